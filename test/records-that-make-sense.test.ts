// Issue 15, holes 1 to 4: one documento however it is typed, exams inside their cycle, no cycle starting in the
// future (nor billed before it starts), and birth dates that can be. Through the real forms, on the test engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { migrateToLatest } from '../src/db/migrate.js';
import { migrations } from '../src/db/migrations/index.js';
import { Migrator, type Kysely, type Migration } from 'kysely';
import { createPatient, newPatientForm, newPatientRow } from './fixtures/patient.fixtures.js';
import { normalizeForSearch } from '../src/shared/text.js';
import { listDocumentoCollisions, logDocumentoCollisions } from '../src/patients/identity.repository.js';
import { searchPatients } from '../src/patients/patient.capita-list.repository.js';
import { createTestContext, createTestDatabase, decodeEntities, ENGINE, loggedInClient, messagesIn, type TestClient, type TestContext } from './helpers.js';

let ctx: TestContext;
let client: TestClient;
before(async () => {
  ctx = await createTestContext();
  ({ client } = await loggedInClient(ctx, { isAdmin: true }));
});
after(async () => {
  await ctx.close();
});

// TestClock default: 2026-11-22T15:00Z, i.e. 2026-11-22 in Bogotá.
let seq = 0;
/** A numeric documento no other test of this file uses. */
const cedula = () => `7${String(process.pid % 10000).padStart(4, '0')}${String(++seq).padStart(4, '0')}`;

/** The shared valid form with a cédula (digits) of this file's own. */
const form = (overrides: Record<string, string> = {}): Record<string, string> => newPatientForm({ tipo_documento: 'CC', documento: cedula(), ...overrides });

/** The message shown beside a field of the patient form, or null. */
function fieldError(html: string, field: string): string | null {
  const m = new RegExp(`id="error_${field}"[^>]*>([^<]*)<`).exec(html);
  return m ? decodeEntities(m[1]!) : null;
}

const countPatients = async () =>
  Number((await ctx.db.selectFrom('patients').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

test(`records that make sense run on ${ENGINE}`, () => {
  assert.equal(ctx.database.handle.engine, ENGINE);
});

describe('hole 1: one documento, however it is typed', () => {
  test('the seven ways of typing 881234 give one patient; the others get the error beside documento', async () => {
    const digits = `88${String(process.pid % 10000).padStart(4, '0')}`;
    const [a, b] = [digits.slice(0, 2), digits.slice(2)];
    const variants = [`${a}${b}`, `${a}\u200b${b}`, `${a}\u200c${b}`, [...`${a}${b}`].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join(''), `${a} ${b}`, `${a}-${b}`, `${a}.${b}`];
    const before = await countPatients();
    const first = await client.post('/patients/create/', form({ documento: variants[0]! }));
    assert.equal(first.status, 302);
    for (const v of variants.slice(1)) {
      const res = await client.post('/patients/create/', form({ documento: v }));
      assert.equal(res.status, 200, JSON.stringify(v));
      assert.equal(fieldError(res.body, 'documento'), 'Ya existe un paciente con este documento.', JSON.stringify(v));
      assert.match(res.body, /name="documento"[^>]*aria-invalid="true"/);
    }
    assert.equal(await countPatients(), before + 1);
    const stored = await ctx.db.selectFrom('patients').select(['documento', 'documento_key']).where('documento_key', '=', digits).execute();
    assert.deepEqual(stored, [{ documento: digits, documento_key: digits }]);
  });

  test('moving another patient onto a look-alike documento is refused too', async () => {
    const doc = cedula();
    assert.equal((await client.post('/patients/create/', form({ documento: doc }))).status, 302);
    const other = await createPatient(ctx.db, { documento: cedula() });
    const res = await client.post(`/patients/${other.id}/`, form({ documento: ` ${doc.slice(0, 3)}.${doc.slice(3)}\u2060 ` }));
    assert.equal(res.status, 200);
    assert.equal(fieldError(res.body, 'documento'), 'Ya existe un paciente con este documento.');
  });

  test('what cannot be a document of its type is refused beside the field and stores nothing', async () => {
    const before = await countPatients();
    for (const [tipo, documento, message] of [
      ['CC', '88A1234', /Cédula de ciudadanía: el número solo puede tener dígitos/],
      ['RC', '12/34', /solo puede tener dígitos/],
      ['PA', 'AB-12Ñ', /letras sin tilde/],
      ['CC', ' . - ', /Escriba el número del documento/],
    ] as const) {
      const res = await client.post('/patients/create/', form({ tipo_documento: tipo, documento }));
      assert.equal(res.status, 200, documento);
      assert.match(fieldError(res.body, 'documento') ?? '', message, documento);
    }
    assert.equal(await countPatients(), before);
    const passport = await client.post('/patients/create/', form({ tipo_documento: 'PA', documento: `ab ${seq}x${process.pid}` }));
    assert.equal(passport.status, 302, 'a passport holds letters and digits, stored upper-cased without separators');
  });

  test('property: documentos that render the same to a person are refused as the same documento', async () => {
    const INVISIBLE = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad'];
    const SEPARATOR = [' ', '.', '-', '\u00a0', '\u2010', '\u2013', '\uff0e'];
    const wide = (c: string) => String.fromCharCode(c.charCodeAt(0) + 0xfee0);
    const typed = (base: string) =>
      fc
        .array(fc.record({ wide: fc.boolean(), lower: fc.boolean(), noise: fc.constantFrom('', ...INVISIBLE, ...SEPARATOR) }), {
          minLength: base.length,
          maxLength: base.length,
        })
        .map((choices) =>
          [...base]
            .map((c, i) => {
              const x = choices[i]!.lower ? c.toLowerCase() : c;
              return choices[i]!.noise + (choices[i]!.wide ? wide(x) : x);
            })
            .join(''),
        );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('CC', 'PA').chain((tipo) => {
          run++;
          const base = tipo === 'CC' ? `9${String(process.pid % 1000).padStart(3, '0')}${String(run).padStart(3, '0')}` : `P${process.pid % 1000}Z${run}`;
          return fc.tuple(fc.constant(tipo), typed(base), typed(base));
        }),
        async ([tipo, first, second]) => {
          const created = await client.post('/patients/create/', form({ tipo_documento: tipo, documento: first }));
          assert.equal(created.status, 302, `${JSON.stringify(first)}: ${fieldError(created.body, 'documento')}`);
          const again = await client.post('/patients/create/', form({ tipo_documento: tipo, documento: second }));
          assert.equal(again.status, 200, JSON.stringify([first, second]));
          assert.equal(fieldError(again.body, 'documento'), 'Ya existe un paciente con este documento.');
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe('hole 2: an exam is filed only within its cycle', () => {
  test('a date before the ACTIVO cycle started, or in 1900, is refused beside fecha; within the cycle it is filed', async () => {
    const p = await createPatient(ctx.db, { documento: cedula() }, { fechaInicio: '2026-06-01' });
    await client.post(`/patients/ingreso/estado/${p.ingresoId}/TERMINADO/`, { fecha_terminacion: '2026-11-10', motivo_estado: 'Fin' });
    const nuevo = await client.post(`/patients/ingreso/nuevo/${p.id}/`, { fecha_inicio: '2026-11-15' });
    assert.equal(messagesIn((await client.follow(nuevo)).body)[0]?.level, 'success');
    const records = () => ctx.db.selectFrom('exam_records').select(['ingreso_id', 'fecha']).innerJoin('ingresos', 'ingresos.id', 'exam_records.ingreso_id').where('ingresos.paciente_id', '=', p.id).execute();
    for (const fecha of ['2026-11-12', '1900-01-01', '2026-11-14']) {
      const res = await client.post(`/exams/${p.id}/otros/`, { fecha, nombre_examen: 'Espirometría', resultado: '', observaciones: '' });
      assert.equal(res.status, 200, fecha);
      assert.match(decodeEntities(res.body), /anterior al inicio del ciclo activo \(15\/11\/2026\)/, fecha);
    }
    assert.deepEqual(await records(), []);
    const ok = await client.post(`/exams/${p.id}/otros/`, { fecha: '2026-11-15', nombre_examen: 'Espirometría', resultado: '', observaciones: '' });
    assert.equal(ok.status, 302);
    assert.deepEqual((await records()).map((r) => r.fecha), ['2026-11-15']);
  });
});

describe('the database holds the date rules that do not depend on today', () => {
  test('an exam record dated outside its Ingreso, or an Ingreso starting before the birth date, is refused by the database', async () => {
    const p = await createPatient(ctx.db, { documento: cedula(), fecha_nacimiento: '1970-04-12' }, { fechaInicio: '2026-11-05' });
    const user = await ctx.db.selectFrom('users').select('id').executeTakeFirstOrThrow();
    const exam = (fecha: string) =>
      ctx.db
        .insertInto('exam_records')
        .values({ ingreso_id: p.ingresoId!, kind: 'OTRO', fecha, nombre_examen: 'X', registrado_por: user.id, created_at: new Date().toISOString() })
        .execute();
    await assert.rejects(exam('2026-11-04'), /fecha outside its Ingreso/);
    await exam('2026-11-05');
    await assert.rejects(
      ctx.db.updateTable('ingresos').set({ fecha_inicio: '1970-04-11' }).where('id', '=', p.ingresoId!).execute(),
      /before the patient's birth/,
    );
    // Rows written before the rule stay readable and changeable in their other columns.
    await ctx.db.updateTable('ingresos').set({ motivo: 'nota' }).where('id', '=', p.ingresoId!).execute();
  });
});

describe('hole 3: a cycle cannot start in the future, nor be billed before it starts', () => {
  test('fecha_inicio_programa=2030-01-01 at creation: 200, the reason beside the field, nothing stored', async () => {
    const before = await countPatients();
    const res = await client.post('/patients/create/', form({ fecha_nacimiento: '1970-04-12', fecha_inicio_programa: '2030-01-01' }));
    assert.equal(res.status, 200);
    assert.equal(fieldError(res.body, 'fecha_inicio_programa'), 'La fecha de inicio no puede ser posterior a hoy (22/11/2026): un ciclo empieza el día en que el paciente ingresa.');
    const beforeBirth = await client.post('/patients/create/', form({ fecha_nacimiento: '1970-04-12', fecha_inicio_programa: '1969-12-31' }));
    assert.equal(beforeBirth.status, 200);
    assert.match(fieldError(beforeBirth.body, 'fecha_inicio_programa') ?? '', /anterior a la fecha de nacimiento del paciente \(12\/04\/1970\)/);
    assert.equal(await countPatients(), before);
    assert.equal((await client.post('/patients/create/', form({ fecha_nacimiento: '1970-04-12', fecha_inicio_programa: '2026-11-22' }))).status, 302, 'today is fine');
  });

  test('fecha_inicio=2030-01-01 on a new cycle, or moved there from the patient form: refused, nothing changes', async () => {
    const p = await createPatient(ctx.db, { documento: cedula(), fecha_nacimiento: '1970-04-12' }, { fechaInicio: '2026-06-01' });
    const moved = await client.post(`/patients/${p.id}/`, form({ documento: (await ctx.db.selectFrom('patients').select('documento').where('id', '=', p.id).executeTakeFirstOrThrow()).documento, tipo_documento: 'PA', fecha_inicio_programa: '2030-01-01' }));
    assert.equal(moved.status, 200);
    assert.match(fieldError(moved.body, 'fecha_inicio_programa') ?? '', /no puede ser posterior a hoy/);
    await client.post(`/patients/ingreso/estado/${p.ingresoId}/TERMINADO/`, { fecha_terminacion: '2026-11-01', motivo_estado: 'Fin' });
    const res = await client.post(`/patients/ingreso/nuevo/${p.id}/`, { fecha_inicio: '2030-01-01' });
    const page = await client.follow(res);
    assert.deepEqual(messagesIn(page.body).at(-1), {
      level: 'error',
      text: 'No se pudo iniciar el ciclo. La fecha de inicio no puede ser posterior a hoy (22/11/2026): un ciclo empieza el día en que el paciente ingresa.',
    });
    const early = await client.post(`/patients/ingreso/nuevo/${p.id}/`, { fecha_inicio: '1965-01-01' });
    assert.match(messagesIn((await client.follow(early)).body)[0]!.text, /anterior a la fecha de nacimiento/);
    const ingresos = await ctx.db.selectFrom('ingresos').select(['estado', 'fecha_inicio']).where('paciente_id', '=', p.id).execute();
    assert.deepEqual(ingresos, [{ estado: 'TERMINADO', fecha_inicio: '2026-06-01' }]);
  });

  test('capita.csv bills a cycle for a month only when it was ACTIVO on a day of it (this month and past months)', async () => {
    // Rows written before this rule existed: a cycle that starts after the month, opened through the repository.
    const future = await createPatient(ctx.db, { documento: cedula(), apellido: 'Futuro' }, { fechaInicio: '2030-01-01' });
    const decemberStart = await createPatient(ctx.db, { documento: cedula(), apellido: 'Diciembre' }, { fechaInicio: '2026-12-01' });
    const current = await createPatient(ctx.db, { documento: cedula(), apellido: 'Vigente' }, { fechaInicio: '2026-11-05' });
    const docOf = async (id: number) => (await ctx.db.selectFrom('patients').select('documento').where('id', '=', id).executeTakeFirstOrThrow()).documento;
    const rowsOf = async (mes: string, as = client) => {
      const res = await as.get(`/dashboard/capita.csv?mes=${mes}`);
      assert.equal(res.status, 200);
      return res.body.split('\r\n').slice(1).join('\n');
    };
    const november = await rowsOf('2026-11');
    assert.ok(november.includes(await docOf(current.id)), 'a cycle ACTIVO this month is billed');
    assert.ok(!november.includes(await docOf(future.id)), 'a cycle starting in 2030 is not billed in November 2026');
    assert.ok(!november.includes(await docOf(decemberStart.id)), 'a cycle starting next month is not billed this month');
    // A past month, seen from January 2027: the cycle that starts in 2030 was not ACTIVO on any day of December.
    ctx.clock.set('2027-01-10T15:00:00.000Z');
    try {
      // A session of that day (the clock jumped seven weeks; this file's own session stays valid at the real time).
      const { client: later } = await loggedInClient(ctx, { isAdmin: true });
      const december = await rowsOf('2026-12', later);
      assert.ok(december.includes(await docOf(decemberStart.id)), 'started on 1 December: billed for December');
      assert.ok(december.includes(await docOf(current.id)));
      assert.ok(!december.includes(await docOf(future.id)), 'starts in 2030: not billed for December 2026');
      const october = await rowsOf('2026-10', later);
      assert.ok(!october.includes(await docOf(current.id)), 'started in November: not billed for October');
    } finally {
      ctx.clock.set('2026-11-22T15:00:00.000Z');
    }
  });
});

describe('hole 4: a birth date that can be', () => {
  for (const [fecha, message] of [
    ['2026-11-22', 'La fecha de nacimiento debe ser anterior a hoy (22/11/2026).'],
    ['1800-01-01', 'La fecha de nacimiento no puede ser de hace más de 120 años (la más antigua aceptada es el 22/11/1906).'],
    ['1906-11-21', 'La fecha de nacimiento no puede ser de hace más de 120 años (la más antigua aceptada es el 22/11/1906).'],
  ] as const) {
    test(`${fecha}: 200 with the rule it broke beside the field, nothing stored`, async () => {
      const before = await countPatients();
      const res = await client.post('/patients/create/', form({ fecha_nacimiento: fecha }));
      assert.equal(res.status, 200);
      assert.equal(fieldError(res.body, 'fecha_nacimiento'), message);
      assert.equal(await countPatients(), before);
    });
  }
  test('yesterday and exactly 120 years ago are accepted', async () => {
    assert.equal((await client.post('/patients/create/', form({ fecha_nacimiento: '2026-11-21', fecha_inicio_programa: '2026-11-22' }))).status, 302);
    assert.equal((await client.post('/patients/create/', form({ fecha_nacimiento: '1906-11-22' }))).status, 302);
  });
});

describe('existing documentos that collide once compared canonically', () => {
  test('the migration merges and drops nothing: it lists them (page and log) and keeps every row readable', async () => {
    const database = await createTestDatabase({ migrate: false });
    try {
      const db = database.handle.db;
      const names = Object.keys(migrations).sort();
      const mine = names.indexOf('20261125_0040_documento_canonical_key');
      const provider = { getMigrations: async (): Promise<Record<string, Migration>> => migrations };
      const migrated = await new Migrator({ db: db as Kysely<any>, provider }).migrateTo(names[mine - 1]!);
      assert.equal(migrated.error, undefined);
      // Rows as the previous rule stored them: documento_key = trimmed, upper-cased documento.
      const insertOld = async (documento: string) => {
        const row = newPatientRow({ documento });
        // …and search_text = the names and the documento as typed, nothing else.
        const { id } = await db
          .insertInto('patients')
          .values({ ...row, documento_key: documento.trim().toUpperCase(), search_text: normalizeForSearch(`${row.nombre} ${row.apellido} ${documento}`) })
          .returning('id')
          .executeTakeFirstOrThrow();
        return id;
      };
      const a = await insertOld('881234');
      const b = await insertOld('88 1234');
      const c = await insertOld('88.123.4');
      const lone = await insertOld('ab-99');
      const other = await insertOld('881235');
      await migrateToLatest(db);

      const rows = await db.selectFrom('patients').select(['id', 'documento', 'documento_key']).orderBy('id').execute();
      assert.deepEqual(rows, [
        { id: a, documento: '881234', documento_key: '881234' },
        { id: b, documento: '88 1234', documento_key: `881234#${b}` },
        { id: c, documento: '88.123.4', documento_key: `881234#${c}` },
        { id: lone, documento: 'ab-99', documento_key: 'AB99' },
        { id: other, documento: '881235', documento_key: '881235' },
      ]);
      assert.deepEqual((await listDocumentoCollisions(db)).map((r) => [r.documento_key, r.id]), [['881234', a], ['881234', b], ['881234', c]]);
      const lines: { obj: object; msg: string }[] = [];
      await logDocumentoCollisions(db, { warn: (obj, msg) => lines.push({ obj, msg }) });
      assert.equal(lines.length, 1);
      assert.match(lines[0]!.msg, /1 documento\(s\) repetido\(s\) entre 3 pacientes registrados: .*\/users\/documentos\//);
      assert.deepEqual(lines[0]!.obj, { patientIds: [a, b, c] });
      assert.doesNotMatch(JSON.stringify(lines), /881234|Ana|Prueba/, 'no documento or name in the log');
      const count = await sql<{ n: number }>`select cast(count(*) as integer) as n from documento_collisions`.execute(db);
      assert.equal(Number(count.rows[0]!.n), 3);

      // Migration 0100 (decision 0050): the rows stored as typed carry their key in the search text, so each of the
      // three is found by any of the three ways it was typed, and by its key.
      const searchTexts = async () =>
        (await db.selectFrom('patients').select(['id', 'search_text']).where('id', 'in', [a, b, c, lone, other]).orderBy('id').execute()).map((r) => r.search_text.split(' ').slice(2).join(' '));
      assert.deepEqual(await searchTexts(), ['881234', '88 1234 881234', '88.123.4 881234', 'ab-99 ab99', '881235']);
      for (const q of ['881234', '88 1234', '88.123.4', '88-12-34']) {
        const found = await searchPatients(db, { query: q, onlyActive: false, page: 1, today: '2026-11-22' });
        assert.deepEqual(found.rows.map((r) => r.id).sort((x, y) => x - y), [a, b, c], q);
      }
      assert.deepEqual((await searchPatients(db, { query: 'AB.99', onlyActive: false, page: 1, today: '2026-11-22' })).rows.map((r) => r.id), [lone]);
      // Its down takes the keys off again.
      const down = await new Migrator({ db: db as Kysely<any>, provider }).migrateTo('20261125_0090_active_patient_ids');
      assert.equal(down.error, undefined);
      assert.deepEqual(await searchTexts(), ['881234', '88 1234', '88.123.4', 'ab-99', '881235']);
    } finally {
      await database.drop();
    }
  });

  test('the administrators page lists an open group, a member stays editable, a new look-alike is refused, a fix resolves it', async () => {
    const base = cedula();
    const first = await createPatient(ctx.db, { documento: base });
    const second = await createPatient(ctx.db, { documento: `${base}X` });
    // As the migration leaves two colliding patients.
    await ctx.db.updateTable('patients').set({ documento: `${base.slice(0, 3)} ${base.slice(3)}`, documento_key: `${base}#${second.id}` }).where('id', '=', second.id).execute();
    await ctx.db.insertInto('documento_collisions').values([{ patient_id: first.id, documento_key: base }, { patient_id: second.id, documento_key: base }]).execute();

    const page = await client.get('/users/documentos/');
    assert.equal(page.status, 200);
    assert.match(page.body, new RegExp(`data-documento-key="${base}" data-patient-id="${first.id}"`));
    assert.match(page.body, new RegExp(`data-documento-key="${base}" data-patient-id="${second.id}"`));
    assert.match((await client.get('/users/')).body, /href="\/users\/documentos\/"/, 'linked from the administrators\u2019 page');
    const { client: staff } = await loggedInClient(ctx);
    assert.equal((await staff.get('/users/documentos/')).status, 403, 'administrators only');

    // The colliding member can still be corrected in other fields while it keeps its documento.
    const kept = await client.post(`/patients/${second.id}/`, form({ documento: base, nombre: 'Corregida' }));
    assert.equal(kept.status, 302, fieldError(kept.body, 'documento') ?? '');
    // Nobody new can take that documento, not even after the first patient's documento is corrected.
    await ctx.db.updateTable('patients').set({ documento: `${base}1`, documento_key: `${base}1` }).where('id', '=', first.id).execute();
    const look = await client.post('/patients/create/', form({ documento: base }));
    assert.equal(look.status, 200);
    assert.equal(fieldError(look.body, 'documento'), 'Ya existe un paciente con este documento.');
    assert.doesNotMatch((await client.get('/users/documentos/')).body, new RegExp(`data-documento-key="${base}"`), 'resolved once one member differs');
  });
});
