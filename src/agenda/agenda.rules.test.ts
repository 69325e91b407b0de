import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  bookingTimeErrors,
  editionInForce,
  initials,
  isCpapAdherent,
  longDateEs,
  planVisits,
  reminderText,
  startMinute,
  timeEs,
  visitsFollowingCycle,
  weekStart,
} from './agenda.rules.js';

describe('agenda rules', () => {
  test('a plan expands its lines into due dates from the cycle start, in order', () => {
    const lines = [
      { id: 1, tipo: 'PSG_BASAL', dia: 14, repeticiones: 1, intervalo_dias: 0 },
      { id: 2, tipo: 'SESION', dia: 0, repeticiones: 3, intervalo_dias: 14 },
    ];
    assert.deepEqual(planVisits(lines, '2026-11-01', '2026-11-01'), [
      { plan_visita_id: 2, tipo: 'SESION', vence_el: '2026-11-01' },
      { plan_visita_id: 1, tipo: 'PSG_BASAL', vence_el: '2026-11-15' },
      { plan_visita_id: 2, tipo: 'SESION', vence_el: '2026-11-15' },
      { plan_visita_id: 2, tipo: 'SESION', vence_el: '2026-11-29' },
    ]);
  });

  test('a cycle registered late: visits due more than 30 days before today are not planned', () => {
    const lines = [{ id: 1, tipo: 'CONTROL', dia: 0, repeticiones: 4, intervalo_dias: 30 }];
    assert.deepEqual(
      planVisits(lines, '2026-08-01', '2026-11-01').map((v) => v.vence_el),
      ['2026-10-30'],
    );
    assert.deepEqual(planVisits(lines, '2026-08-01', '2026-09-30').map((v) => v.vence_el), ['2026-08-31', '2026-09-30', '2026-10-30']);
  });

  test('the plan edition in force is the latest valid on the cycle start', () => {
    const editions = [{ vigente_desde: '2000-01-01', n: 1 }, { vigente_desde: '2026-12-01', n: 2 }];
    assert.equal(editionInForce(editions, '2026-11-30')?.n, 1);
    assert.equal(editionInForce(editions, '2026-12-01')?.n, 2);
    assert.equal(editionInForce(editions, '1999-12-31'), null);
  });

  test('the cycle estado moves the visits: pause, resume, cancel', () => {
    assert.deepEqual(visitsFollowingCycle('ACTIVO', 'SUSPENDIDO'), { from: ['PENDIENTE', 'AGENDADA'], to: 'PAUSADA' });
    assert.deepEqual(visitsFollowingCycle('SUSPENDIDO', 'ACTIVO'), { from: ['PAUSADA'], to: 'PENDIENTE' });
    assert.deepEqual(visitsFollowingCycle('SUSPENDIDO', 'TERMINADO')?.to, 'CANCELADA');
    assert.equal(visitsFollowingCycle('ACTIVO', 'ACTIVO'), null);
  });

  test('booking time: a past date, and the clinic hours on both ends', () => {
    const horario = { hora_apertura: '07:00', hora_cierre: '19:00' };
    const check = (fecha: string, hora: string, duracion_min: number) => bookingTimeErrors({ fecha, hora, duracion_min, today: '2026-11-22', horario });
    assert.deepEqual(check('2026-11-22', '07:00', 30), {});
    assert.deepEqual(check('2026-11-22', '18:30', 30), {});
    assert.ok(check('2026-11-21', '08:00', 30).fecha);
    assert.ok(check('2026-11-23', '06:59', 30).hora);
    assert.ok(check('2026-11-23', '18:31', 30).hora);
  });

  test('minutes of a booking are consecutive across midnight and days', () => {
    assert.equal(startMinute('2026-11-23', '00:00') - startMinute('2026-11-22', '23:30'), 30);
    assert.equal(startMinute('1970-01-01', '01:00'), 60);
  });

  test('CPAP adherence on its edges: 4 h and 70 %', () => {
    assert.equal(isCpapAdherent(400, 7000), true);
    assert.equal(isCpapAdherent(399, 7000), false); // 3 h 59 min ≈ 3.99 h
    assert.equal(isCpapAdherent(400, 6900), false); // 69 %
    assert.equal(isCpapAdherent(400, 6999), false);
    assert.equal(isCpapAdherent(null, 8000), null);
  });

  test('weeks start on Monday', () => {
    assert.equal(weekStart('2026-11-22'), '2026-11-16'); // a Sunday
    assert.equal(weekStart('2026-11-23'), '2026-11-23'); // a Monday
  });

  test('the reminder speaks es-CO: long date, 12-hour time, place and what to bring', () => {
    assert.equal(longDateEs('2026-11-23'), 'lunes 23 de noviembre de 2026');
    assert.equal(timeEs('14:05'), '2:05 p. m.');
    assert.equal(timeEs('00:30'), '12:30 a. m.');
    assert.equal(
      reminderText({ nombre: 'Ana', tipo: 'Control de CPAP', fecha: '2026-11-23', hora: '08:00', lugar: 'Clínica', indicaciones: 'El equipo.' }),
      'Hola Ana, le recordamos su cita de Control de CPAP el lunes 23 de noviembre de 2026 a las 8:00 a. m. en Clínica. Por favor traiga: El equipo.',
    );
    assert.equal(initials('Ana María', 'Pérez'), 'A. M. P.');
  });
});
