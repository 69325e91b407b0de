import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FormEncodingError, parseFormBody } from './form.js';

describe('parseFormBody', () => {
  test('decodes names and values, + as space, UTF-8 escapes as letters', () => {
    const body = parseFormBody('nombre=Jos%C3%A9+Luis&apellido=B%C3%A1ez&vac%C3%ADo=&solo');
    assert.deepEqual({ ...body }, { nombre: 'José Luis', apellido: 'Báez', vacío: '', solo: '' });
  });

  test('raw UTF-8 (as curl -d sends it) is read as typed', () => {
    assert.deepEqual({ ...parseFormBody('nombre=José+Ñandú') }, { nombre: 'José Ñandú' });
  });

  test('a repeated name gives every value, in order', () => {
    assert.deepEqual({ ...parseFormBody('a=1&b=2&a=3&a=4') }, { a: ['1', '3', '4'], b: '2' });
  });

  test('empty bodies and stray separators give nothing', () => {
    assert.deepEqual({ ...parseFormBody('') }, {});
    assert.deepEqual({ ...parseFormBody('&&a=1&') }, { a: '1' });
  });

  test('__proto__ and constructor are plain field names', () => {
    const body = parseFormBody('__proto__=x&constructor=y');
    assert.equal(body['__proto__'], 'x');
    assert.equal(body['constructor'], 'y');
    assert.equal(({} as Record<string, unknown>)['x'], undefined);
  });

  for (const bad of ['nombre=%C3%28', '%FF%FE=1', 'a=%E0%80%80', 'a=%ED%A0%80', 'x=%zz', 'x=%', 'x=%C3', 'x=\ufffd']) {
    test(`refuses ${JSON.stringify(bad)}`, () => {
      assert.throws(() => parseFormBody(bad), FormEncodingError);
    });
  }
});
