// POST /patients/create/: the warning about a possible duplicate person (decision 0043), on the test engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPatient } from './fixtures/patient.fixtures.js';
import { createTestContext, decodeEntities, loggedInClient, type TestClient, type TestContext } from './helpers.js';

let ctx: TestContext;
let client: TestClient;
let seq = 0;

before(async () => {
  ctx = await createTestContext();
  ({ client } = await loggedInClient(ctx));
});
after(async () => ctx?.close());

/** A cédula of its own: digits only (decision 0030), and so already canonical, stored as typed. */
const cedula = () => `${String(process.pid % 100000).padStart(5, '0')}${String(++seq).padStart(3, '0')}`;

function form(overrides: Record<string, string>): Record<string, string> {
  return {
    nombre: 'José', apellido: 'Pérez Gómez', tipo_documento: 'CC', documento: cedula(), fecha_nacimiento: '1961-07-19',
    genero: 'M', departamento: 'SANTANDER', ciudad: 'BUCARAMANGA', zona: 'URBANA', telefono: '6076543210', celular: '3157654321',
    estado_civil: 'CASADO', entidad_salud: 'ENTITY_A', estrato: '3', peso: '', altura: '', perimetro_abdominal: '', cuello: '',
    medico_remitente: 'Dra. Rueda', especialidad: 'Neumología', diagnostico_clinico: 'G47.3', programa: 'PROGRAMA AOS', valor_capita: '',
    fecha_inicio_programa: '', ...overrides,
  };
}

const countByDocumento = async (documento: string) =>
  (await ctx.db.selectFrom('patients').select('id').where('documento', '=', documento).execute()).length;

describe('POST /patients/create/ — possible duplicate person', () => {
  test('same birth date, swapped surnames and no accents: a warning linking to the record, nothing stored', async () => {
    const existing = await createPatient(ctx.db, { nombre: 'José', apellido: 'Pérez Gómez', fecha_nacimiento: '1961-07-19' });
    const f = form({ nombre: 'jose', apellido: 'GOMEZ PEREZ' });
    const res = await client.post('/patients/create/', f);
    assert.equal(res.status, 200);
    assert.match(res.body, /data-duplicate-warning/);
    assert.match(res.body, new RegExp(`href="/patients/${existing.id}/"`));
    assert.match(decodeEntities(res.body), /misma fecha de\s+nacimiento y un nombre parecido/);
    assert.match(res.body, /name="es_otra_persona"/);
    // The typed values are kept.
    assert.match(res.body, new RegExp(`value="${f.documento}"`));
    assert.equal(await countByDocumento(f.documento!), 0);
  });

  test('one typo in the name is also caught; confirming "es otra persona" creates it and audits the confirmation', async () => {
    const existing = await createPatient(ctx.db, { nombre: 'Marcela', apellido: 'Quintero', fecha_nacimiento: '1970-02-03' });
    const f = form({ nombre: 'Marcela', apellido: 'Quinteros', fecha_nacimiento: '1970-02-03' });
    assert.equal((await client.post('/patients/create/', f)).status, 200);
    assert.equal(await countByDocumento(f.documento!), 0);
    const res = await client.post('/patients/create/', { ...f, es_otra_persona: '1' });
    assert.equal(res.status, 302);
    assert.equal(await countByDocumento(f.documento!), 1);
    const created = await ctx.db.selectFrom('patients').select('id').where('documento', '=', f.documento!).executeTakeFirstOrThrow();
    const entry = await ctx.db.selectFrom('audit_log').select('changes').where('patient_id', '=', created.id).where('action', '=', 'patient.create').executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(entry.changes!).otra_persona_confirmada, [null, [existing.id]]);
  });

  test('a similar name born another day, or another name the same day: created at once', async () => {
    await createPatient(ctx.db, { nombre: 'Luisa', apellido: 'Cárdenas', fecha_nacimiento: '1980-05-05' });
    const otherDay = form({ nombre: 'Luisa', apellido: 'Cárdenas', fecha_nacimiento: '1980-05-06' });
    assert.equal((await client.post('/patients/create/', otherDay)).status, 302);
    const otherName = form({ nombre: 'Lucía', apellido: 'Cárdenas Ruiz', fecha_nacimiento: '1980-05-05' });
    assert.equal((await client.post('/patients/create/', otherName)).status, 302);
  });

  test('the same documento stays an error, confirmation or not', async () => {
    const existing = await createPatient(ctx.db, { nombre: 'Raúl', apellido: 'Mejía', documento: cedula() });
    // The same cédula typed with the dots and spaces people use.
    const typed = ` ${existing.documento.slice(0, 2)}.${existing.documento.slice(2, 5)}.${existing.documento.slice(5)} `;
    const res = await client.post('/patients/create/', form({ documento: typed, es_otra_persona: '1' }));
    assert.equal(res.status, 200);
    assert.match(decodeEntities(res.body), /Ya existe un paciente con este documento/);
  });
});
