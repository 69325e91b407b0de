import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newPatientRow } from '../../test/fixtures/patient.fixtures.js';
import { appointmentResource, EXTENSIONS, patientResources, type AppointmentValues } from './fhir.rules.js';

const base: AppointmentValues = {
  id: 7,
  ingreso_id: 3,
  tipo: 'CONTROL_CPAP',
  tipo_nombre: 'Control de CPAP',
  estado: 'AGENDADA',
  vence_el: '2026-12-01',
  fecha: '2026-11-30',
  hora: '14:30',
  duracion_min: 30,
  motivo: null,
  created_at: '2026-11-22T15:00:00.000Z',
};

const BOGOTA = 'America/Bogota';

describe('FHIR Appointment', () => {
  test('the agenda estados map to the Appointment statuses', () => {
    const status = (estado: AppointmentValues['estado']) => appointmentResource({ ...base, estado }, 1, BOGOTA).status;
    assert.deepEqual(
      (['PENDIENTE', 'AGENDADA', 'ATENDIDA', 'NO_ASISTIO', 'CANCELADA', 'PAUSADA'] as const).map(status),
      ['proposed', 'booked', 'fulfilled', 'noshow', 'cancelled', 'proposed'],
    );
  });

  test('a booked visit: its times with the Colombian offset, its patient, its EpisodeOfCare', () => {
    const a = appointmentResource(base, 42, BOGOTA);
    assert.equal(a.start, '2026-11-30T14:30:00-05:00');
    assert.equal(a.end, '2026-11-30T15:00:00-05:00');
    assert.deepEqual(a.participant, [{ actor: { reference: 'Patient/42' }, status: 'accepted' }]);
    assert.deepEqual(a.extension, [{ url: EXTENSIONS.episodeOfCare, valueReference: { reference: 'EpisodeOfCare/3' } }]);
    const due = appointmentResource({ ...base, estado: 'PENDIENTE', fecha: null, hora: null, duracion_min: null }, 42, BOGOTA);
    assert.equal(due.start, undefined);
    assert.deepEqual(due.requestedPeriod, [{ start: '2026-12-01', end: '2026-12-01' }]);
    const cancelled = appointmentResource({ ...base, estado: 'CANCELADA', motivo: 'Viaje' }, 42, BOGOTA);
    assert.deepEqual(cancelled.cancelationReason, { text: 'Viaje' });
  });

  test("the offset is the configured zone's on that day, from its rules: Bogotá all year, a zone with daylight saving by date", () => {
    assert.equal(appointmentResource({ ...base, fecha: '2026-07-01' }, 42, BOGOTA).start, '2026-07-01T14:30:00-05:00');
    assert.equal(appointmentResource({ ...base, fecha: '2026-07-01' }, 42, 'America/New_York').start, '2026-07-01T14:30:00-04:00');
    assert.equal(appointmentResource(base, 42, 'America/New_York').start, '2026-11-30T14:30:00-05:00');
    assert.equal(appointmentResource(base, 42, 'UTC').end, '2026-11-30T15:00:00+00:00');
  });

  test('a patient record exports its appointments after its observations', () => {
    const types = patientResources({ patient: { ...newPatientRow(), id: 1 } as never, ingresos: [], history: new Map(), exams: [], appointments: [base] }, BOGOTA).map((r) => r.resourceType);
    assert.deepEqual(types.slice(-1), ['Appointment']);
  });
});
