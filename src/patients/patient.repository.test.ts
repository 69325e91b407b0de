import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../../test/helpers.js';
import { isPostgres, type Db } from '../db/database.js';
import { createPatient, newPatientRow } from '../../test/fixtures/patient.fixtures.js';
import { insertPatient } from './patient.writes.repository.js';
import { sql } from 'kysely';
import { readTableVersions } from '../platform/pages/table-versions.js';
import { openIngreso } from '../ingresos/ingreso.repository.js';
import { searchPatients, type PatientSearch } from './patient.capita-list.repository.js';
import { findPatientById } from './patient.repository.js';
import { escapeLike, ftsPhrase } from './patient.search.repository.js';

const TODAY = '2026-11-22';
let database: TestDatabase;
let db: Db;
let seq = 0;
/** A token no other test uses, so each test searches its own patients. */
const token = () => `tok${String.fromCharCode(97 + (seq % 26))}${String.fromCharCode(97 + (Math.floor(seq++ / 26) % 26))}x`;

before(async () => {
  database = await createTestDatabase();
  db = database.handle.db;
});
after(async () => database.drop());

describe('escaping helpers', () => {
  test('escapeLike escapes %, _ and backslash', () => {
    assert.equal(escapeLike('50%_a\\b'), '50\\%\\_a\\\\b');
  });
  test('ftsPhrase quotes and doubles inner quotes', () => {
    assert.equal(ftsPhrase('a"b'), '"a""b"');
  });
});

describe('findPatientById', () => {
  test('returns the row, or undefined', async () => {
    const p = await createPatient(db, { nombre: 'Lucía' });
    assert.equal((await findPatientById(db, p.id))?.nombre, 'Lucía');
    assert.equal(await findPatientById(db, 999_999), undefined);
  });
});

describe('searchPatients', () => {
  test('only active patients, each once, ordered by apellido, nombre (accents ignored), id', async () => {
    const t = token();
    const c = await createPatient(db, { nombre: `Zoe ${t}`, apellido: 'Álvarez' });
    const a = await createPatient(db, { nombre: `Ana ${t}`, apellido: 'Álvarez' });
    const b = await createPatient(db, { nombre: `Beto ${t}`, apellido: 'Alvarado' });
    await createPatient(db, { nombre: `Sin ${t}`, apellido: 'Ingreso' }, { fechaInicio: null });
    const r = await searchPatients(db, { query: t, onlyActive: true, page: 1, today: TODAY });
    assert.deepEqual(
      r.rows.map((x) => x.id),
      [b.id, a.id, c.id],
    );
    assert.equal(r.total, 3);
    assert.equal(r.rows[0]!.mes_capita, 1);
    assert.equal(r.rows[0]!.fecha_inicio, '2026-11-01');
    const all = await searchPatients(db, { query: t, onlyActive: false, page: 1, today: TODAY });
    assert.equal(all.total, 4);
    const none = all.rows.find((x) => x.apellido === 'Ingreso')!;
    assert.equal(none.ingreso_id, null);
    assert.equal(none.fecha_inicio, null);
    assert.equal(none.mes_capita, null);
  });

  test('search ignores case and accents, on the full name and on part of the documento', async () => {
    const t = token();
    const p = await createPatient(db, { nombre: 'José', apellido: `Pérez ${t}`, documento: `99${t}1234` });
    for (const q of ['jose perez', 'JOSÉ PÉREZ', `${t}12`, 'é', 'pe', `pérez ${t}`]) {
      const r = await searchPatients(db, { query: q, onlyActive: true, page: 1, today: TODAY });
      assert.ok(
        r.rows.some((x) => x.id === p.id),
        `query ${q} should find the patient`,
      );
    }
    // Every word must be found (decision 0070): one that is nowhere in the patient's text finds nobody.
    const miss = await searchPatients(db, { query: `jose perez ${t}zz`, onlyActive: true, page: 1, today: TODAY });
    assert.equal(miss.total, 0);
  });

  test('a documento typed as printed on the cédula (dots), with hyphens or spaces, finds the patient (decision 0050)', async () => {
    const t = token();
    const digits = String(7_000_000_000 + seq * 1_000 + 123);
    const dotted = digits.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
    const p = await createPatient(db, { nombre: `Cédula ${t}`, apellido: 'Punteada', documento: digits });
    const pa = await createPatient(db, { nombre: `Pasaporte ${t}`, apellido: 'Guionado', tipo_documento: 'PA', documento: `ZX${digits.slice(-5)}` });
    const legacy = await createPatient(db, { nombre: `Antiguo ${t}`, apellido: 'Separado', documento: `${digits.slice(0, 2)}.${digits.slice(2, 5)}.${digits.slice(5, 6)}` });
    const ids = async (q: string, onlyActive: boolean) => (await searchPatients(db, { query: q, onlyActive, page: 1, today: TODAY })).rows.map((x) => x.id);
    for (const onlyActive of [true, false]) {
      for (const q of [dotted, ` ${dotted} `, dotted.slice(0, 7), digits.replace(/(\d{3})(?=\d)/g, '$1-'), digits.replace(/(\d{3})(?=\d)/g, '$1 ')]) {
        assert.ok((await ids(q, onlyActive)).includes(p.id), `${JSON.stringify(q)} should find ${digits}`);
      }
      assert.ok((await ids(`zx-${digits.slice(-5, -3)}.${digits.slice(-3)}`, onlyActive)).includes(pa.id));
      // Stored as typed before keys were canonical: found as typed and by its key.
      const key = digits.slice(0, 6);
      assert.ok((await ids(legacy.documento, onlyActive)).includes(legacy.id), `as typed: ${legacy.documento}`);
      assert.ok((await ids(key, onlyActive)).includes(legacy.id), `by its key: ${key}`);
    }
    // A name and the cédula as printed: each word found on its own (decision 0070), the cédula by its digits.
    assert.deepEqual((await ids(`punteada ${dotted}`, false)), [p.id]);
    assert.deepEqual((await ids(`${dotted.slice(0, 7)} cédula ${t}`, true)), [p.id]);
  });

  test('every word of the query, in any order, in nombre, apellido or documento (issue 29, decision 0070)', async () => {
    const t = token();
    const maria = await createPatient(db, { nombre: 'María Fernanda', apellido: `Rodríguez Pérez ${t}`, documento: `1098${seq}7755` });
    const jose = await createPatient(db, { nombre: 'José Luis', apellido: `Gómez ${t}` });
    const luz = await createPatient(db, { nombre: 'Luz Dary', apellido: `Quintero Ñáñez ${t}` }, { fechaInicio: null });
    const other = await createPatient(db, { nombre: 'Mariana', apellido: `Gómez Rodas ${t}` });
    const ids = async (q: string, extra: Partial<PatientSearch> = {}) => {
      const r = await searchPatients(db, { query: `${q} ${t}`, onlyActive: false, page: 1, today: TODAY, ...extra });
      assert.equal(r.total, r.rows.length, q);
      return r.rows.map((x) => x.id).sort((a, b) => a - b);
    };
    assert.deepEqual(await ids('maria rodriguez'), [maria.id]);
    assert.deepEqual(await ids('rodriguez maria'), [maria.id]);
    assert.deepEqual(await ids('MARÍA  RODRÍGUEZ'), [maria.id]);
    assert.deepEqual(await ids('Rodríguez, María'), [maria.id]);
    assert.deepEqual(await ids('maria fernanda rodriguez'), [maria.id]);
    assert.deepEqual(await ids('jose gomez'), [jose.id]);
    assert.deepEqual(await ids('luz quintero'), [luz.id]);
    assert.deepEqual(await ids('nanez luz'), [luz.id]);
    assert.deepEqual(await ids('luz quintero', { onlyActive: true }), []);
    assert.deepEqual(await ids('gomez'), [jose.id, other.id]);
    assert.deepEqual(await ids('mari'), [maria.id, other.id]);
    // A word found nowhere: nobody, whatever the others match.
    assert.deepEqual(await ids('maria rodriguez zzz'), []);
    assert.deepEqual(await ids('jose quintero'), []);
    // A documento prefix with a name word; words of one or two characters are checked too.
    assert.deepEqual(await ids(`rodriguez 1098${seq}`), [maria.id]);
    assert.deepEqual(await ids('ma go'), [other.id]);
    assert.deepEqual(await ids('lu quintero'), [luz.id]);
    // Without the token: the query alone finds her among everyone.
    const plain = await searchPatients(db, { query: 'maria rodriguez', onlyActive: true, page: 1, today: TODAY });
    assert.ok(plain.rows.some((x) => x.id === maria.id) && !plain.rows.some((x) => x.id === jose.id));
  });

  test('words of one or two characters only: every one must still be found', async () => {
    const t = token();
    const a = await createPatient(db, { nombre: `Yi ${t}`, apellido: 'Xu Oh' });
    await createPatient(db, { nombre: `Yi ${t}`, apellido: 'Li' });
    const r = await searchPatients(db, { query: 'xu yi oh', onlyActive: true, page: 1, today: TODAY });
    assert.ok(r.rows.some((x) => x.id === a.id));
    assert.ok(r.rows.every((x) => /xu/i.test(x.apellido) && /oh/i.test(x.apellido)), JSON.stringify(r.rows));
  });

  test('wildcards, quotes and SQL in the search are taken literally', async () => {
    const t = token();
    const p = await createPatient(db, { nombre: `O'Brien "50%" ${t}`, apellido: 'Ñandú_x' });
    const find = (q: string) => searchPatients(db, { query: q, onlyActive: true, page: 1, today: TODAY });
    assert.equal((await find(`"50%" ${t}`)).rows[0]?.id, p.id);
    assert.equal((await find(`o'brien`)).rows.some((x) => x.id === p.id), true);
    assert.equal((await find('u_x')).rows.some((x) => x.id === p.id), true);
    for (const q of ['%', '_', '%%%', '"', '\\', `' or 1=1 --`, `"); drop table patients; --`, 'a" OR "b', 'NEAR(a b)', '*']) {
      const r = await find(q);
      assert.ok(r.total >= 0);
    }
    assert.equal((await find('%')).rows.some((x) => x.id === p.id), true);
    assert.equal((await find('zz%zz')).total, 0);
    assert.ok(await findPatientById(db, p.id));
  });

  test('mes_filtro is a condition on the ACTIVO Ingreso fecha_inicio', async () => {
    const t = token();
    const six = await createPatient(db, { nombre: t }, { fechaInicio: '2026-05-31' }); // month 7
    const old = await createPatient(db, { nombre: t }, { fechaInicio: '2024-01-15' }); // month 18 (clamped)
    const future = await createPatient(db, { nombre: t }, { fechaInicio: '2027-02-01' }); // month 1
    const ids = async (mes: number) =>
      (await searchPatients(db, { query: t, mesFiltro: mes, onlyActive: true, page: 1, today: TODAY })).rows.map((r) => r.id);
    assert.deepEqual(await ids(7), [six.id]);
    assert.deepEqual(await ids(6), []);
    assert.deepEqual(await ids(18), [old.id]);
    assert.deepEqual(await ids(1), [future.id]);
  });

  test('pagination: 10 a page, clamped to 1..pageCount', async () => {
    const t = token();
    for (let i = 0; i < 23; i++) await createPatient(db, { nombre: t, apellido: `Ap${String(i).padStart(2, '0')}` });
    const page = (n: number) => searchPatients(db, { query: t, onlyActive: true, page: n, today: TODAY });
    const p2 = await page(2);
    assert.equal(p2.total, 23);
    assert.equal(p2.pageCount, 3);
    assert.equal(p2.rows.length, 10);
    assert.equal(p2.rows[0]!.apellido, 'Ap10');
    const last = await page(99);
    assert.equal(last.page, 3);
    assert.equal(last.rows.length, 3);
    assert.equal((await page(0)).page, 1);
    assert.equal((await page(Number.NaN)).page, 1);
    const empty = await searchPatients(db, { query: `${t}nothing`, onlyActive: true, page: 5, today: TODAY });
    assert.deepEqual([empty.total, empty.page, empty.pageCount, empty.rows.length], [0, 1, 1, 0]);
  });
});

describe('patients.activo_desde follows the ACTIVO Ingreso (database triggers)', () => {
  const activoDesde = async (id: number) =>
    (await db.selectFrom('patients').select('activo_desde').where('id', '=', id).executeTakeFirstOrThrow()).activo_desde;
  const listed = async (t: string, mesFiltro: number | null = null) =>
    (await searchPatients(db, { query: t, mesFiltro, onlyActive: true, page: 1, today: TODAY })).rows.map((r) => r.id);

  test('opening, suspending, reactivating, moving the start, terminating and deleting', async () => {
    const t = token();
    const p = await createPatient(db, { nombre: t }, { fechaInicio: '2026-05-02' });
    assert.equal(await activoDesde(p.id), '2026-05-02');
    assert.deepEqual(await listed(t, 7), [p.id]);
    const setIngreso = (values: { estado?: 'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO'; fecha_inicio?: string; fecha_fin?: string; motivo?: string }) =>
      db.updateTable('ingresos').set(values).where('id', '=', p.ingresoId!).execute();
    await setIngreso({ estado: 'SUSPENDIDO' });
    assert.equal(await activoDesde(p.id), null);
    assert.deepEqual(await listed(t), []);
    await setIngreso({ estado: 'ACTIVO' });
    assert.deepEqual(await listed(t), [p.id]);
    await setIngreso({ fecha_inicio: '2026-11-03' });
    assert.equal(await activoDesde(p.id), '2026-11-03');
    assert.deepEqual(await listed(t, 7), []);
    assert.deepEqual(await listed(t, 1), [p.id]);
    await setIngreso({ estado: 'TERMINADO', fecha_fin: '2026-11-20', motivo: 'Alta' });
    assert.equal(await activoDesde(p.id), null);
    const other = await createPatient(db, { nombre: t }, { fechaInicio: null });
    await db.insertInto('ingresos').values({ paciente_id: other.id, fecha_inicio: '2026-10-10', fecha_fin: null, estado: 'ACTIVO', motivo: null, created_at: 'x', updated_at: 'x' }).execute();
    assert.equal(await activoDesde(other.id), '2026-10-10');
    await db.deleteFrom('ingresos').where('paciente_id', '=', other.id).execute();
    assert.equal(await activoDesde(other.id), null);
  });

  test('a start given with the new patient is kept when its cycle says so, and set right when it does not (decision 0300)', async () => {
    const t = token();
    const insertWithStart = (activo_desde: string) => insertPatient(db, { ...newPatientRow({ nombre: t }), activo_desde });
    const open = (pacienteId: number, fechaInicio: string) => db.transaction().execute((trx) => openIngreso(trx, { pacienteId, fechaInicio, userId: null, now: 'x' }));
    // Whether the patient's row was written again: SQLite bumps the version of patients for each row written,
    // PostgreSQL writes a new version of the row (its xmin).
    const rowStamp = async (id: number) =>
      isPostgres(db)
        ? String((await sql<{ x: string }>`select xmin::text as x from patients where id = ${id}`.execute(db)).rows[0]!.x)
        : String((await readTableVersions(db)).get('patients'));
    const right = await insertWithStart('2026-06-01');
    const stampBefore = await rowStamp(right);
    await open(right, '2026-06-01');
    assert.equal(await activoDesde(right), '2026-06-01');
    assert.equal(await rowStamp(right), stampBefore, 'unchanged, the row is not written again');
    assert.deepEqual(await listed(t, 6), [right]);
    const wrong = await insertWithStart('2020-01-01');
    await open(wrong, '2026-06-02');
    assert.equal(await activoDesde(wrong), '2026-06-02');
    const none = await insertWithStart('2026-06-03');
    await db.insertInto('ingresos').values({ paciente_id: none, fecha_inicio: '2026-06-03', fecha_fin: '2026-06-04', estado: 'TERMINADO', motivo: 'Alta', created_at: 'x', updated_at: 'x' }).execute();
    assert.equal(await activoDesde(none), null);
    assert.deepEqual((await listed(t)).sort((a, b) => a - b), [right, wrong].sort((a, b) => a - b));
  });
});

describe('patient_active_counts and the version of patients follow the patients (database triggers, migration 0020, decision 0023)', () => {
  /** The counters must always equal the count they stand for. */
  const assertCountsExact = async () => {
    const kept = await db.selectFrom('patient_active_counts').select(['mes', 'n']).where('n', '>', 0).orderBy('mes').execute();
    const actual = await db
      .selectFrom('patients')
      .select([sql<string>`substr(activo_desde, 1, 7)`.as('mes'), sql<number>`cast(count(*) as integer)`.as('n')])
      .where('activo_desde', 'is not', null)
      .groupBy(sql`substr(activo_desde, 1, 7)`)
      .orderBy('mes')
      .execute();
    assert.deepEqual(
      kept.map((r) => [r.mes, Number(r.n)]),
      actual.map((r) => [r.mes, Number(r.n)]),
    );
  };
  const version = async () => Number((await readTableVersions(db)).get('patients'));

  test('create, suspend, reactivate, move the start, terminate, new cycle, delete', async () => {
    const t = token();
    const v0 = await version();
    const p = await createPatient(db, { nombre: t }, { fechaInicio: '2026-05-02' });
    await createPatient(db, { nombre: t }, { fechaInicio: null });
    await assertCountsExact();
    assert.ok((await version()) > v0);
    const setIngreso = (id: number, values: { estado?: 'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO'; fecha_inicio?: string; fecha_fin?: string; motivo?: string }) =>
      db.updateTable('ingresos').set(values).where('id', '=', id).execute();
    for (const change of [
      { estado: 'SUSPENDIDO' as const },
      { estado: 'ACTIVO' as const },
      { fecha_inicio: '2026-05-20' }, // same month
      { fecha_inicio: '2026-11-03' }, // another month
      { estado: 'TERMINADO' as const, fecha_fin: '2026-11-20', motivo: 'Alta' },
    ]) {
      const before = await version();
      await setIngreso(p.ingresoId!, change);
      await assertCountsExact();
      assert.ok((await version()) > before, JSON.stringify(change));
    }
    // A new cycle after the termination.
    await db.transaction().execute((trx) => openIngreso(trx, { pacienteId: p.id, fechaInicio: '2026-11-21', userId: null, now: 'x' }));
    await assertCountsExact();
    // Any change of a patient is a new version; a read is not.
    const quiet = await version();
    await db.selectFrom('patients').select('id').execute();
    assert.equal(await version(), quiet);
    await db.updateTable('patients').set({ telefono: '3001234567' }).where('id', '=', p.id).execute();
    assert.ok((await version()) > quiet);
    await db.deleteFrom('ingreso_historial').where('ingreso_id', 'in', db.selectFrom('ingresos').select('id').where('paciente_id', '=', p.id)).execute();
    await db.deleteFrom('ingresos').where('paciente_id', '=', p.id).execute();
    await assertCountsExact();
  });

  test('the list and its counts are the same whichever page plan is chosen, and follow every change', async () => {
    const t = token();
    const made = [];
    for (let i = 0; i < 14; i++) {
      made.push(await createPatient(db, { nombre: `${t} ${i % 3 === 0 ? 'gonzalo' : 'luis'}`, apellido: `Ap${String(13 - i).padStart(2, '0')}` }, { fechaInicio: i % 4 === 0 ? null : `2026-0${5 + (i % 2)}-1${i % 10}` }));
    }
    const run = (walkBudget: number, query: string, extra: Partial<PatientSearch> = {}) =>
      searchPatients(db, { query, onlyActive: true, page: 1, today: TODAY, walkBudget, fewMatches: 0, ...extra });
    for (const query of [t, `${t} gonzalo`, `${t} luis`, 'gonzalo', `luis ${t}`, `${t} ap1`, `ap0 ${t}`, `go ${t}`]) {
      for (const extra of [{}, { mesFiltro: 7 }, { mesFiltro: 6 }, { onlyActive: false }, { page: 2 }, { onlyActive: false, page: 2 }, { page: 9 }]) {
        const walked = await run(Number.POSITIVE_INFINITY, query, extra);
        const indexed = await run(0, query, extra);
        assert.deepEqual(indexed, walked, `${query} ${JSON.stringify(extra)}`);
        // SQLite reads few matches once, in list order, for the count and the page together: the same list.
        assert.deepEqual(await searchPatients(db, { query, onlyActive: true, page: 1, today: TODAY, ...extra }), walked, `few ${query} ${JSON.stringify(extra)}`);
        // More matches than it reads at once: counted and paged apart.
        assert.deepEqual(await searchPatients(db, { query, onlyActive: true, page: 1, today: TODAY, fewMatches: 2, ...extra }), walked, `many ${query} ${JSON.stringify(extra)}`);
      }
    }
    // The count follows a change at once.
    const before = (await run(0, t)).total;
    await db.updateTable('ingresos').set({ estado: 'SUSPENDIDO' }).where('id', '=', made[1]!.ingresoId!).execute();
    assert.equal((await run(0, t)).total, before - 1);
    await createPatient(db, { nombre: t });
    assert.equal((await run(0, t)).total, before);
  });
});
