import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { editionDateProblem, newEditionValues } from './agenda.admin.rules.js';

describe('agenda administration rules', () => {
  const editions = [
    { id: 1, programa: 'PROGRAMA AOS', vigente_desde: '2026-01-01' },
    { id: 3, programa: 'PROGRAMA AOS', vigente_desde: '2026-06-01' },
    { id: 2, programa: 'PROGRAMA INSOMNIO', vigente_desde: '2026-01-01' },
  ];
  const lines = [
    { plan_id: 1, tipo: 'PSG_BASAL', dia: 0, repeticiones: 1, intervalo_dias: 0 },
    { plan_id: 3, tipo: 'PSG_BASAL', dia: 0, repeticiones: 1, intervalo_dias: 0 },
    { plan_id: 3, tipo: 'CONTROL_CPAP', dia: 30, repeticiones: 12, intervalo_dias: 30 },
    { plan_id: 2, tipo: 'PSICOLOGIA', dia: 7, repeticiones: 8, intervalo_dias: 14 },
  ];

  test("a new edition starts from the program's latest edition, in force from today", () => {
    assert.deepEqual(newEditionValues('PROGRAMA AOS', '2026-11-27', editions, lines), {
      programa: 'PROGRAMA AOS',
      vigente_desde: '2026-11-27',
      tipo_1: 'PSG_BASAL', dia_1: '0', repeticiones_1: '1', intervalo_1: '0',
      tipo_2: 'CONTROL_CPAP', dia_2: '30', repeticiones_2: '12', intervalo_2: '30',
    });
    assert.equal(newEditionValues('PROGRAMA INSOMNIO', '2026-11-27', editions, lines).tipo_1, 'PSICOLOGIA');
  });

  test('an unknown program asked for falls back to the first; a program without editions starts blank', () => {
    assert.equal(newEditionValues('PROGRAMA X', '2026-11-27', editions, lines).programa, 'PROGRAMA AOS');
    assert.deepEqual(newEditionValues('PROGRAMA INSOMNIO', '2026-11-27', [], []), { programa: 'PROGRAMA INSOMNIO', vigente_desde: '2026-11-27' });
  });

  test('an edition may not start in the past nor on or before the latest one', () => {
    assert.equal(editionDateProblem('2026-11-28', '2026-11-27', '2026-06-01'), null);
    assert.match(editionDateProblem('2026-11-26', '2026-11-27', null) ?? '', /ya pasó/);
    assert.match(editionDateProblem('2026-12-01', '2026-11-27', '2026-12-01') ?? '', /después de la última edición/);
  });
});
