import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NOVEDADES_MESSAGES, novedadOfChange, parseNovedadesQuery } from './novedades.rules.js';

const TODAY = '2026-11-22';

describe('parseNovedadesQuery', () => {
  test('this month and a past month, with the insurer and the pages', () => {
    const now = parseNovedadesQuery({ mes: ' 2026-11 ', entidad_salud: 'ENTITY_A', page: '3', page_novedades: '2' }, TODAY);
    assert.ok(now.ok);
    assert.equal(now.month.kind, 'current');
    assert.deepEqual([now.entidad, now.page, now.pageNovedades, now.form.mes], ['ENTITY_A', 3, 2, '2026-11']);
    const past = parseNovedadesQuery({ mes: '2025-02', entidad_salud: 'ENTITY_B' }, TODAY);
    assert.ok(past.ok);
    assert.deepEqual([past.month.kind, past.month.start, past.month.end, past.month.last], ['past', '2025-02-01', '2025-03-01', '2025-02-28']);
  });

  test('each refusal beside its field, both at once when both are wrong', () => {
    const both = parseNovedadesQuery({ mes: '2026-13', entidad_salud: 'OTRA' }, TODAY);
    assert.ok(!both.ok);
    assert.deepEqual(both.errors, { mes: NOVEDADES_MESSAGES.invalid('2026-13'), entidad_salud: NOVEDADES_MESSAGES.entidadUnknown });
    const future = parseNovedadesQuery({ mes: '2026-12', entidad_salud: 'ENTITY_A' }, TODAY);
    assert.ok(!future.ok);
    assert.deepEqual(future.errors, { mes: NOVEDADES_MESSAGES.future('2026-12') });
    const missing = parseNovedadesQuery({ mes: undefined, entidad_salud: undefined }, TODAY);
    assert.ok(!missing.ok);
    assert.deepEqual(missing.errors, { mes: NOVEDADES_MESSAGES.missing, entidad_salud: NOVEDADES_MESSAGES.entidadMissing });
    const long = parseNovedadesQuery({ mes: '1'.repeat(500), entidad_salud: 'x'.repeat(500) }, TODAY);
    assert.ok(!long.ok);
    assert.equal(long.form.mes.length, 40);
    assert.equal(long.form.entidad_salud.length, 40);
  });
});

test('novedadOfChange: the kind of a change of estado', () => {
  assert.equal(novedadOfChange(null, 'ACTIVO'), 'APERTURA');
  assert.equal(novedadOfChange('ACTIVO', 'SUSPENDIDO'), 'SUSPENSION');
  assert.equal(novedadOfChange('SUSPENDIDO', 'ACTIVO'), 'REACTIVACION');
  assert.equal(novedadOfChange('ACTIVO', 'TERMINADO'), 'TERMINACION');
  assert.equal(novedadOfChange('SUSPENDIDO', 'TERMINADO'), 'TERMINACION');
});
