// The writers beside a benchmark scenario (decision 0295): their figures are those of the measured run (a tally taken
// at its start and at its end), and the desk's bookings are drawn from a seed that moves with the data, so that a
// run on a database a run already wrote asks for other slots than the ones it booked.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { BookingWriter, loadAgendaData, type AgendaData, type BookingTally } from '../bench/agenda.js';
import { tallyBetween, type WriteTally } from '../bench/mixed.js';
import type { Fixtures } from '../bench/scenarios.js';
import type { Session } from '../bench/server.js';
import { insertRow } from '../src/platform/writes/prepared.js';
import { createPatient } from './fixtures/patient.fixtures.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers.js';

describe('a tally between two moments', () => {
  it('counts what happened between them, each kind of write apart, and the failures noted meanwhile', () => {
    const start: WriteTally = { rate: 5, sent: 10, ok: 9, failed: 1, skipped: 2, byKind: { create: 4, exam: 6 }, failures: ['a'] };
    const end: WriteTally = { rate: 5, sent: 40, ok: 38, failed: 2, skipped: 2, byKind: { create: 14, exam: 16, 'status-ACTIVO': 10 }, failures: ['a', 'b'] };
    assert.deepEqual(tallyBetween(start, end), { rate: 5, sent: 30, ok: 29, failed: 1, skipped: 0, byKind: { create: 10, exam: 10, 'status-ACTIVO': 10 }, failures: ['b'] });
    const booked: BookingTally = { rate: 5, sent: 31, ok: 24, overlaps: 7, failed: 0, skipped: 0, failures: [] };
    const none: BookingTally = { rate: 5, sent: 0, ok: 0, overlaps: 0, failed: 0, skipped: 0, failures: [] };
    assert.deepEqual(tallyBetween(none, booked), booked);
  });
});

describe(`the desk's bookings drawn from the data (engine=${ENGINE})`, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await database.drop();
  });

  const forms = (a: AgendaData): Record<string, string>[] => {
    const writer = new BookingWriter({ csrfToken: 't' } as Session, a, 5) as unknown as { form(): Record<string, string> };
    return Array.from({ length: 5 }, () => writer.form());
  };

  it('books the same slots on the same data and other slots once a visit was written', async () => {
    const db = database.handle.db as unknown as Kysely<any>;
    const p = await createPatient(database.handle.db, {}, { fechaInicio: '2026-11-02' });
    const f = { today: '2026-11-22', activeIds: [p.id] } as unknown as Fixtures;
    const first = (await loadAgendaData(db, f))!;
    assert.deepEqual(forms(first), forms((await loadAgendaData(db, f))!), 'the same data, the same bookings');
    await database.handle.db.transaction().execute((trx) =>
      insertRow(trx, 'citas', {
        paciente_id: p.id,
        ingreso_id: p.ingresoId!,
        tipo: 'CONSULTA_CONTROL',
        estado: 'PENDIENTE',
        plan_visita_id: null,
        vence_el: '2026-12-01',
        fecha: null,
        hora: null,
        duracion_min: null,
        inicio_min: null,
        fin_min: null,
        profesional_id: null,
        recurso_id: null,
        exam_record_id: null,
        motivo: null,
        recordado_at: null,
        recordado_por: null,
        created_at: '2026-11-22T15:00:00.000Z',
        updated_at: '2026-11-22T15:00:00.000Z',
      }),
    );
    const second = (await loadAgendaData(db, f))!;
    assert.notEqual(second.bookingSeed, first.bookingSeed);
    assert.notDeepEqual(forms(second), forms(first), 'a visit written, other slots');
  });
});
