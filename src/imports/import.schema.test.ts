import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseForm } from '../web/form.js';
import { confirmSchema } from './import.schema.js';

describe('confirmSchema', () => {
  test('the upload id as a number, the digest as sent, the possible duplicates included only when ticked', () => {
    const r = parseForm({ upload_id: '12', digest: 'abc', incluir_posibles_duplicados: '1' }, confirmSchema);
    assert.ok(r.ok);
    assert.deepEqual(r.data, { upload_id: 12, digest: 'abc', incluir_posibles_duplicados: true });
    const without = parseForm({ upload_id: '12', digest: 'abc' }, confirmSchema);
    assert.ok(without.ok && without.data.incluir_posibles_duplicados === false);
  });
  test('an upload id that is no id gives null; a repeated field fails the form', () => {
    const odd = parseForm({ upload_id: 'x', digest: 'abc' }, confirmSchema);
    assert.ok(odd.ok && odd.data.upload_id === null);
    const repeated = parseForm({ upload_id: ['1', '2'], digest: 'abc' }, confirmSchema);
    assert.ok(!repeated.ok);
    assert.equal(repeated.errors.upload_id, 'Este campo se envió más de una vez.');
  });
});
