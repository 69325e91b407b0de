import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseForm, validateForm } from '../web/form.js';
import { CYCLE_START_MSG, ERR } from './ingreso.rules.js';
import { newCycleForm, newCycleSchema, statusForm, suspensionSchema, terminationSchema } from './ingreso.schema.js';

const TODAY = '2026-11-22';

describe('statusForm and newCycleForm', () => {
  test('the fields as posted, with the return fields; readForm’s errors kept', () => {
    const r = parseForm({ fecha_terminacion: ' 2026-11-20 ', motivo_estado: 'Alta', query_search: 'ana', page: '2' }, statusForm);
    assert.ok(r.ok);
    assert.deepEqual(r.data, { fecha_terminacion: ' 2026-11-20 ', motivo_estado: 'Alta', confirmacion: '', query_search: 'ana', page: '2' });
    const bad = parseForm({ fecha_inicio: ['2026-11-01', '2026-11-02'], otro: 'x' }, newCycleForm);
    assert.ok(!bad.ok);
    assert.deepEqual(bad.errors, {
      fecha_inicio: 'Este campo se envió más de una vez.',
      _form: 'El formulario contiene campos desconocidos: otro.',
    });
  });
});

describe('terminationSchema', () => {
  const errorsOf = (fecha_terminacion: string, motivo_estado: string, fechaInicio = '2026-01-10') => {
    const r = validateForm({ fecha_terminacion, motivo_estado }, terminationSchema(fechaInicio, TODAY));
    return r.ok ? r.data : r.errors;
  };
  test('a valid end: the date and the motivo, trimmed', () => {
    assert.deepEqual(errorsOf(' 2026-11-20 ', '  Alta médica '), { fecha_terminacion: '2026-11-20', motivo_estado: 'Alta médica' });
  });
  test('a message per rule, beside its field', () => {
    assert.deepEqual(errorsOf('', ''), { fecha_terminacion: ERR.fechaTerminacionMissing, motivo_estado: ERR.motivoMissing });
    assert.deepEqual(errorsOf('2026-02-30', 'x'), { fecha_terminacion: ERR.fechaTerminacionInvalid });
    assert.deepEqual(errorsOf('2026-01-09', 'x'), { fecha_terminacion: ERR.fechaTerminacionBeforeStart('2026-01-10') });
    assert.deepEqual(errorsOf('2026-11-23', 'x'), { fecha_terminacion: ERR.fechaTerminacionFuture });
    assert.deepEqual(errorsOf('2026-12-02', 'x', '2026-12-01'), { fecha_terminacion: ERR.fechaTerminacionNotStarted('2026-12-01') });
    assert.deepEqual(errorsOf('2026-11-20', 'x'.repeat(2001)), { motivo_estado: ERR.motivoTooLong });
  });
  test('a cycle not started yet ends on its own start date', () => {
    assert.deepEqual(errorsOf('2026-12-01', 'Cancelado', '2026-12-01'), { fecha_terminacion: '2026-12-01', motivo_estado: 'Cancelado' });
  });
});

describe('suspensionSchema', () => {
  test('an optional motivo, trimmed, at most 2000 characters', () => {
    assert.deepEqual(validateForm({ motivo_estado: '  ' }, suspensionSchema), { ok: true, data: { motivo_estado: null }, values: { motivo_estado: '  ' } });
    const long = validateForm({ motivo_estado: 'x'.repeat(2001) }, suspensionSchema);
    assert.ok(!long.ok);
    assert.deepEqual(long.errors, { motivo_estado: ERR.motivoTooLong });
  });
});

describe('newCycleSchema', () => {
  const schema = newCycleSchema(TODAY, '1960-05-05');
  const errorOf = (fecha_inicio: string) => {
    const r = validateForm({ fecha_inicio }, schema);
    return r.ok ? null : r.errors.fecha_inicio;
  };
  test('a real date, not after today, not before the birth date', () => {
    assert.equal(errorOf(' 2026-11-22 '), null);
    assert.equal(errorOf('1960-05-05'), null);
    assert.equal(errorOf('2026-11-23'), CYCLE_START_MSG.future(TODAY));
    assert.equal(errorOf('1960-05-04'), CYCLE_START_MSG.beforeBirth('1960-05-05'));
    assert.match(errorOf('22/11/2026') ?? '', /fecha válida/);
    assert.match(errorOf('') ?? '', /fecha válida/);
  });
});
