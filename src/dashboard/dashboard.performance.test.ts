// The invariants the fast dashboard relies on (migration 0021): patients.ultimo_monitoreo kept by triggers,
// dashboard_version bumped by every change the dashboard can show, the cached figures recomputed after such a
// change (made by this process or any other), and the capitation report identical whatever its page size.

import { startOfDayUtc } from '../shared/dates.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from '../db/database.js';
import { migrations } from '../db/migrations/index.js';
import { openIngreso } from '../ingresos/ingreso.repository.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';
import { createTestContext, loggedInClient, type TestClient, type TestContext } from '../../test/helpers.js';
import { versionReader } from '../platform/pages/table-versions.js';
import { dashboardPage } from './dashboard.pages.js';

const readDataVersion = versionReader(dashboardPage.tables);
import { capitaPages, type CapitaQuery } from './dashboard.repository.js';


// Today: 2026-11-22 in America/Bogota.

const ultimo = async (db: Db, pacienteId: number): Promise<string | null> =>
  (await db.selectFrom('patients').select(sql<string | null>`ultimo_monitoreo`.as('u')).where('id', '=', pacienteId).executeTakeFirstOrThrow()).u;

async function addRecord(db: Db, ingresoId: number, userId: number, kind: 'MONITOREO' | 'OTRO', fecha: string): Promise<number> {
  const row = await db
    .insertInto('exam_records')
    .values({
      ingreso_id: ingresoId,
      kind,
      fecha,
      registrado_por: userId,
      created_at: `${fecha}T15:00:00.000Z`,
      tipo: kind === 'MONITOREO' ? 'OXIMETRIA' : null,
      nombre_examen: kind === 'OTRO' ? 'Espirometría' : null,
      observaciones: null, iah: null, saturacion_minima: null, horas_uso_promedio: null, porcentaje_noches_4h: null, presion_cmh2o: null, fuga_lpm: null,
      tipo_sesion: null, numero_sesion: null, isi: null, epworth: null, resultado: null, anulado_at: null, anulado_por: null, motivo_anulacion: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const voidRecord = (db: Db, id: number, userId: number) =>
  db.updateTable('exam_records').set({ anulado_at: '2026-11-20T15:00:00.000Z', anulado_por: userId, motivo_anulacion: 'Error' }).where('id', '=', id).execute();

const terminate = (db: Db, ingresoId: number, fechaFin = '2026-11-15') =>
  db.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin: fechaFin, motivo: 'Alta', updated_at: `${fechaFin}T15:00:00.000Z` }).where('id', '=', ingresoId).execute();

describe('dashboard invariants (migration 0021)', () => {
  let ctx: TestContext;
  let client: TestClient;
  let userId: number;

  before(async () => {
    ctx = await createTestContext();
    let user: { id: number };
    ({ client, user } = await loggedInClient(ctx));
    userId = user.id;
  });
  after(async () => ctx.close());

  test('ultimo_monitoreo follows inserts, voids and new cycles', async () => {
    const { db } = ctx;
    const p = await createPatient(db, { nombre: 'Marta', apellido: 'Ruiz' }, { fechaInicio: '2026-01-10' });
    assert.equal(await ultimo(db, p.id), null);
    await addRecord(db, p.ingresoId!, userId, 'OTRO', '2026-10-01');
    assert.equal(await ultimo(db, p.id), null, 'other kinds do not count');
    const early = await addRecord(db, p.ingresoId!, userId, 'MONITOREO', '2026-03-01');
    assert.equal(await ultimo(db, p.id), '2026-03-01');
    const late = await addRecord(db, p.ingresoId!, userId, 'MONITOREO', '2026-09-01');
    assert.equal(await ultimo(db, p.id), '2026-09-01');
    await addRecord(db, p.ingresoId!, userId, 'MONITOREO', '2026-05-01');
    assert.equal(await ultimo(db, p.id), '2026-09-01', 'an older record leaves it');
    await voidRecord(db, late, userId);
    assert.equal(await ultimo(db, p.id), '2026-05-01', 'a void falls back on the latest remaining record');
    await voidRecord(db, early, userId);
    assert.equal(await ultimo(db, p.id), '2026-05-01');

    // A new cycle keeps the records of the previous ones (any cycle counts), and its own raise it.
    await terminate(db, p.ingresoId!);
    assert.equal(await ultimo(db, p.id), '2026-05-01');
    const second = await db.transaction().execute((trx) => openIngreso(trx, { pacienteId: p.id, fechaInicio: '2026-11-16', userId: null, now: '2026-11-16T15:00:00.000Z' }));
    assert.equal(await ultimo(db, p.id), '2026-05-01');
    const recent = await addRecord(db, second, userId, 'MONITOREO', '2026-11-17');
    assert.equal(await ultimo(db, p.id), '2026-11-17');
    await voidRecord(db, recent, userId);
    assert.equal(await ultimo(db, p.id), '2026-05-01', 'the void recomputes over every cycle');

    const other = await createPatient(db, { nombre: 'Otro', apellido: 'Paciente' }, { fechaInicio: '2026-02-01' });
    await addRecord(db, other.ingresoId!, userId, 'MONITOREO', '2026-11-01');
    assert.equal(await ultimo(db, p.id), '2026-05-01', 'records of other patients do not touch it');
    assert.equal(await ultimo(db, other.id), '2026-11-01');
  });

  test('every change the dashboard shows bumps the data version', async () => {
    const { db } = ctx;
    const changes: [string, () => Promise<unknown>][] = [];
    const p = await createPatient(db, { nombre: 'Vera', apellido: 'Versión' }, { fechaInicio: '2026-11-02' });
    changes.push(['patient created', () => createPatient(db, { nombre: 'Otra', apellido: 'Más' })]);
    changes.push(['patient updated', () => db.updateTable('patients').set({ valor_capita: 100 }).where('id', '=', p.id).execute()]);
    changes.push(['monitoring record', () => addRecord(db, p.ingresoId!, userId, 'MONITOREO', '2026-11-03')]);
    changes.push(['Ingreso suspended', () => db.updateTable('ingresos').set({ estado: 'SUSPENDIDO' }).where('id', '=', p.ingresoId!).execute()]);
    for (const [what, change] of changes) {
      const before = await readDataVersion(db);
      await change();
      assert.notEqual(await readDataVersion(db), before, what);
    }
    const before = await readDataVersion(db);
    await db.selectFrom('patients').select('id').execute();
    assert.equal(await readDataVersion(db), before, 'a read leaves it');
  });

  test('the cached figures are recomputed after a change made outside the application, and on a new day', async () => {
    const { db } = ctx;
    const figure = async (name: string, as: TestClient = client) => {
      const html = (await as.get('/dashboard/')).body;
      return Number(new RegExp(`data-figure="${name}"><span class="figure-value">(\\d+)<`).exec(html)![1]);
    };
    const stale = async () => Number(/(\d+) pacientes? con ingreso ACTIVO sin registro de monitoreo/.exec((await client.get('/dashboard/')).body)?.[1] ?? 0);
    const activos = await figure('activos');
    assert.equal(await figure('activos'), activos, 'served again from the cache');
    // Another process: a write straight into the database (nothing of this application sees it).
    const p = await createPatient(db, { nombre: 'Nueva', apellido: 'Paciente' }, { fechaInicio: '2026-11-21' });
    assert.equal(await figure('activos'), activos + 1);
    const iniciados = await figure('iniciados');
    const sinMonitoreo = await stale();
    await addRecord(db, p.ingresoId!, userId, 'MONITOREO', '2026-11-21');
    assert.equal(await stale(), sinMonitoreo - 1, 'a monitoring record takes the patient off the list');
    // Not before its start nor its record (the database refuses that, decision 0063).
    await terminate(db, p.ingresoId!, '2026-11-21');
    assert.equal(await figure('activos'), activos);
    // A new day: the same data, other figures (the cycles started "this month" are December's now). The
    // session of the test client has expired by then: a new one.
    ctx.clock.set('2026-12-02T15:00:00.000Z');
    try {
      const { client: later } = await loggedInClient(ctx);
      assert.equal(await figure('iniciados', later), 0);
    } finally {
      ctx.clock.set('2026-11-22T15:00:00.000Z');
    }
    assert.equal(await figure('iniciados'), iniciados);
  });

  test('the capitation report is the same rows in the same order whatever its page size', async () => {
    const { db } = ctx;
    for (let k = 0; k < 7; k++) {
      await createPatient(db, { nombre: `N${k % 3}`, apellido: `Apellido ${k % 2}`, entidad_salud: k % 2 ? 'ENTITY_A' : 'ENTITY_B' }, { fechaInicio: '2026-09-01' });
    }
    const tz = ctx.config.timeZone;
    for (const [kind, start, end] of [['current', '2026-11-01', '2026-12-01'], ['past', '2026-10-01', '2026-11-01']] as const) {
      for (const entidad of [null, 'ENTITY_A']) {
        const q: CapitaQuery = { kind, start, end, startInstant: startOfDayUtc(start, tz), endInstant: startOfDayUtc(end, tz), entidad };
        const all = async (size: number) => {
          const out: string[] = [];
          for await (const page of capitaPages(db, q, size)) for (const r of page) out.push(`${r.id} ${r.entidad_salud} ${r.apellido_norm} ${r.nombre_norm} ${r.fecha_inicio} ${r.valor_capita}`);
          return out;
        };
        const whole = await all(1000);
        assert.ok(whole.length >= (entidad === null ? 7 : 3), `${kind} ${entidad}: ${whole.length}`);
        assert.deepEqual(await all(2), whole, `${kind} ${entidad}`);
        assert.deepEqual(await all(1), whole, `${kind} ${entidad}`);
      }
    }
  });
});

class StaticProvider implements MigrationProvider {
  constructor(private readonly list: Record<string, Migration>) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return this.list;
  }
}

describe('migration 0021 backfills ultimo_monitoreo and can be undone', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx.close());

  test('records made before the migration are counted', async () => {
    const { db } = ctx;
    const { user } = await loggedInClient(ctx);
    const migrator = new Migrator({ db, provider: new StaticProvider(migrations) });
    const previous = Object.keys(migrations).sort().at(Object.keys(migrations).sort().indexOf('20261122_0021_dashboard_performance') - 1)!;
    const down = await migrator.migrateTo(previous);
    assert.equal(down.error, undefined);
    const a = await createPatient(db, { nombre: 'Antes', apellido: 'Uno' }, { fechaInicio: '2026-01-01' });
    const b = await createPatient(db, { nombre: 'Antes', apellido: 'Dos' }, { fechaInicio: '2026-01-01' });
    await addRecord(db, a.ingresoId!, user.id, 'MONITOREO', '2026-04-01');
    const voided = await addRecord(db, a.ingresoId!, user.id, 'MONITOREO', '2026-06-01');
    await voidRecord(db, voided, user.id);
    await addRecord(db, b.ingresoId!, user.id, 'OTRO', '2026-06-01');
    const up = await migrator.migrateToLatest();
    assert.equal(up.error, undefined);
    assert.equal(await ultimo(db, a.id), '2026-04-01');
    assert.equal(await ultimo(db, b.id), null);
    await addRecord(db, b.ingresoId!, user.id, 'MONITOREO', '2026-07-01');
    assert.equal(await ultimo(db, b.id), '2026-07-01', 'the triggers work after a down and up');
  });
});
