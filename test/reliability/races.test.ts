// Item 2: concurrent requests against the invariants the database must keep (both engines; on PostgreSQL the
// requests really run in parallel on separate pooled connections).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { todayIn } from '../../src/shared/dates.js';
import { type Client, type Resp } from './lib/client.js';
import { createReliabilityContext, report, type ReliabilityContext } from './lib/context.js';
import { brokenInvariants, examForm, patientForm, seedPatient, uniqueDocumento } from './lib/world.js';

let ctx: ReliabilityContext;
let client: Client;
const today = () => todayIn(ctx.config.timeZone, ctx.clock.now());
const level = (r: Resp) => r.flashed.at(-1)?.level;

before(async () => {
  ctx = await createReliabilityContext();
  ({ client } = await ctx.loggedIn({ isAdmin: true }));
});
after(async () => ctx.close());

describe('races', () => {
  test('20 concurrent new-cycle posts for one patient open exactly one Ingreso', async () => {
    const { patientId, ingresoId } = await seedPatient(ctx.db, {}, '2026-01-05');
    const end = await client.post(`/patients/ingreso/estado/${ingresoId}/TERMINADO/`, { fecha_terminacion: '2026-06-01', motivo_estado: 'Fin' });
    assert.equal(level(end), 'success');
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.post(`/patients/ingreso/nuevo/${patientId}/`, { fecha_inicio: today() })));
    const ok = answers.filter((a) => a.status === 302 && level(a) === 'success').length;
    const open = await ctx.db.selectFrom('ingresos').select('id').where('paciente_id', '=', patientId).where('estado', 'in', ['ACTIVO', 'SUSPENDIDO']).execute();
    report(`new cycle: 20 concurrent posts → ${ok} success, ${answers.filter((a) => level(a) === 'error').length} refused with a message, ${open.length} open Ingreso`);
    assert.equal(open.length, 1);
    assert.equal(ok, 1);
    assert.ok(answers.every((a) => a.status === 302), `statuses: ${answers.map((a) => a.status).join(',')}`);
    assert.deepEqual(await brokenInvariants(ctx.db), []);
  });

  test('20 concurrent creates with one documento make exactly one patient (and one Ingreso)', async () => {
    const documento = uniqueDocumento('D');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.post('/patients/create/', patientForm({ documento: i % 2 ? documento : documento.toLowerCase(), nombre: `Carrera${i}` }))),
    );
    const created = answers.filter((a) => a.status === 302).length;
    const refused = answers.filter((a) => a.status === 200 && /aria-invalid="true"/.test(a.body)).length;
    const rows = await ctx.db.selectFrom('patients').select('id').where('documento_key', '=', documento.toUpperCase()).execute();
    report(`duplicate documento: 20 concurrent creates → ${created} created, ${refused} refused with a field error, ${rows.length} patient`);
    assert.equal(rows.length, 1);
    assert.equal(created, 1);
    assert.equal(refused, 19, `statuses: ${answers.map((a) => a.status).join(',')}`);
    const ingresos = await ctx.db.selectFrom('ingresos').select('id').where('paciente_id', '=', rows[0]!.id).execute();
    assert.equal(ingresos.length, 1);
  });

  test('a TERMINADO racing new exam records never leaves a record on the finished cycle', async () => {
    let recordsBefore = 0;
    let recordsAfter = 0;
    const rounds = 8;
    for (let i = 0; i < rounds; i++) {
      const { patientId, ingresoId } = await seedPatient(ctx.db, {}, '2026-01-05');
      const posts = [
        client.post(`/exams/${patientId}/monitoreo/`, examForm('monitoreo', today())),
        client.post(`/patients/ingreso/estado/${ingresoId}/TERMINADO/`, { fecha_terminacion: today(), motivo_estado: 'Carrera' }),
        client.post(`/exams/${patientId}/psicologia/`, examForm('psicologia', today())),
        client.post(`/exams/${patientId}/otros/`, examForm('otros', today())),
      ];
      const answers = await Promise.all(posts);
      assert.ok(answers.every((a) => a.status === 302), `statuses: ${answers.map((a) => a.status).join(',')}`);
      const acked = [answers[0]!, answers[2]!, answers[3]!].filter((a) => level(a) === 'success').length;
      const stored = await ctx.db.selectFrom('exam_records').select('id').where('ingreso_id', '=', ingresoId).execute();
      assert.equal(stored.length, acked, 'every acknowledged record is stored, and only those');
      const estado = await ctx.db.selectFrom('ingresos').select('estado').where('id', '=', ingresoId).executeTakeFirstOrThrow();
      assert.equal(estado.estado, 'TERMINADO');
      recordsBefore += acked;
      recordsAfter += 3 - acked;
    }
    const broken = await brokenInvariants(ctx.db);
    report(`TERMINADO vs exam records: ${rounds} rounds of 1 status change + 3 records in parallel → ${recordsBefore} records landed before the end, ${recordsAfter} refused after; invariants: ${broken.length === 0 ? 'hold' : broken.join('; ')}`);
    assert.deepEqual(broken, []);
  });

  test('concurrent changes of different patients (creates, edits, status changes, new cycles) all succeed', async () => {
    // Every one of these changes moves the list counters and versions kept by triggers (migrations 0020, 0021):
    // they must queue for those rows, never deadlock (PostgreSQL would abort one with 40P01).
    const rounds = 6;
    const statuses: number[] = [];
    let changes = 0;
    for (let round = 0; round < rounds; round++) {
      const seeded = await Promise.all(Array.from({ length: 4 }, () => seedPatient(ctx.db, {}, '2026-01-05')));
      const [a, b, c, d] = seeded as [(typeof seeded)[0], (typeof seeded)[0], (typeof seeded)[0], (typeof seeded)[0]];
      const ended = await client.post(`/patients/ingreso/estado/${d.ingresoId}/TERMINADO/`, { fecha_terminacion: today(), motivo_estado: 'Fin' });
      assert.equal(level(ended), 'success');
      const posts = [
        client.post('/patients/create/', patientForm({ documento: uniqueDocumento('M') })),
        client.post('/patients/create/', patientForm({ documento: uniqueDocumento('M'), fecha_inicio_programa: '2026-03-02' })),
        client.post(`/patients/${a.patientId}/`, patientForm({ documento: a.documento, apellido: `Cambiado ${round}`, fecha_inicio_programa: '2026-02-02' })),
        client.post(`/patients/ingreso/estado/${b.ingresoId}/TERMINADO/`, { fecha_terminacion: today(), motivo_estado: 'Carrera' }),
        client.post(`/patients/ingreso/estado/${c.ingresoId}/SUSPENDIDO/`, {}),
        client.post(`/patients/ingreso/nuevo/${d.patientId}/`, { fecha_inicio: today() }),
      ];
      const answers = await Promise.all(posts);
      statuses.push(...answers.map((x) => x.status));
      changes += answers.filter((x) => x.status === 302 && level(x) === 'success').length;
    }
    const broken = await brokenInvariants(ctx.db);
    report(`mixed changes: ${rounds} rounds of 6 concurrent changes on different patients → ${changes} succeeded; statuses ${[...new Set(statuses)].join(',')}; invariants: ${broken.length === 0 ? 'hold' : broken.join('; ')}`);
    assert.deepEqual(statuses.filter((s) => s !== 302), [], 'every change answered with its redirect');
    assert.equal(changes, rounds * 6);
    assert.deepEqual(broken, []);
  });

  test('a user deactivated while their requests are in flight changes nothing after the deactivation commits', async () => {
    const { client: victim, user } = await ctx.loggedIn();
    await victim.get('/patients/create/');
    const admin = client;
    await admin.get(`/users/${user.id}/`);
    let deactivated = false;
    const writes: Promise<Resp>[] = [];
    // Each writer keeps posting until a few of its posts started after the deactivation had committed.
    const writer = async () => {
      let after = 0;
      while (after < 5 && writes.length < 400) {
        if (deactivated) after++;
        const p = victim.post('/patients/create/', patientForm({ nombre: 'Desactivado' }));
        writes.push(p);
        await p;
        // Let other requests (the deactivation) in: the SQLite driver alone never yields to the event loop.
        await new Promise((r) => setImmediate(r));
      }
    };
    const writers = [writer(), writer(), writer(), writer()];
    while (writes.length < 8) await new Promise((r) => setImmediate(r));
    const deactivation = await admin.post(`/users/${user.id}/deactivate/`, {});
    deactivated = true;
    assert.equal(deactivation.status, 302);
    assert.equal(level(deactivation), 'success');
    await Promise.all(writers);
    const answers = await Promise.all(writes);
    const mark = await ctx.db.selectFrom('audit_log').select('id').where('action', '=', 'user.deactivate').where('entity_id', '=', user.id).executeTakeFirstOrThrow();
    const later = await ctx.db.selectFrom('audit_log').select(['id', 'action']).where('user_id', '=', user.id).where('id', '>', mark.id).where('action', 'not in', ['logout', 'login_failed']).execute();
    report(
      `deactivation in flight: ${answers.length} writes by the user (${answers.filter((a) => a.status === 302 && a.location === '/patients/').length} created, ${answers.filter((a) => (a.location ?? '').startsWith('/users/login/')).length} sent to login); changes committed after the deactivation: ${later.length}`,
    );
    assert.deepEqual(later, [], 'no change by the user was committed after the deactivation');
  });
});
