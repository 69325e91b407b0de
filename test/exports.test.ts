import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { recordAudit } from '../src/audit/audit.repository.js';
import { createPatient } from './fixtures/patient.fixtures.js';
import { createTestContext, loggedInClient, type TestClient, type TestContext } from './helpers.js';

// Today: 2026-11-22 in America/Bogota.

const lines = (body: string): string[] => {
  assert.ok(body.startsWith('\uFEFF'), 'BOM');
  const parts = body.slice(1).split('\r\n');
  assert.equal(parts.pop(), '', 'ends with CRLF');
  return parts;
};

describe('CSV exports of the list pages', () => {
  let ctx: TestContext;
  let client: TestClient;
  let admin: TestClient;
  const tag = `x${process.pid}`;

  before(async () => {
    ctx = await createTestContext();
    ({ client } = await loggedInClient(ctx));
    ({ client: admin } = await loggedInClient(ctx, { isAdmin: true }));
    await createPatient(ctx.db, { nombre: 'José', apellido: 'Pérez', documento: `${tag}-1` }, { fechaInicio: '2026-11-01' });
    await createPatient(ctx.db, { nombre: 'María', apellido: 'Ángel', documento: `${tag}-2`, entidad_salud: 'ENTITY_B' }, { fechaInicio: '2026-09-15' });
    const terminated = await createPatient(ctx.db, { nombre: 'Pedro', apellido: 'Zapata', documento: `${tag}-3` }, { fechaInicio: '2026-01-10' });
    await ctx.db
      .updateTable('ingresos')
      .set({ estado: 'TERMINADO', fecha_fin: '2026-06-30', motivo: 'Alta' })
      .where('id', '=', terminated.ingresoId!)
      .execute();
  });
  after(async () => ctx.close());

  const lastExport = async () => {
    const e = await ctx.db.selectFrom('audit_log').selectAll().where('action', '=', 'export').orderBy('id', 'desc').executeTakeFirstOrThrow();
    return JSON.parse(e.changes!) as { exportacion: string; filtros: Record<string, unknown>; filas: number };
  };

  test('/patients/export.csv: the active patients matching the page filters, in the list order', async () => {
    const res = await client.get(`/patients/export.csv?query_search=${tag}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-disposition'], 'attachment; filename="pacientes-2026-11-22.csv"');
    assert.deepEqual(lines(res.body), [
      'documento;tipo_documento;nombre;apellido;programa;entidad_salud;departamento;ciudad;fecha_inicio;mes_capita',
      `${tag}-2;CC;María;Ángel;PROGRAMA AOS;ENTITY_B;SANTANDER;BUCARAMANGA;2026-09-15;3`,
      `${tag}-1;CC;José;Pérez;PROGRAMA AOS;ENTITY_A;SANTANDER;BUCARAMANGA;2026-11-01;1`,
    ]);
    assert.deepEqual(await lastExport(), { exportacion: 'patients', filtros: { query_search: tag, mes_filtro: null }, filas: 2 });

    const mes3 = await client.get(`/patients/export.csv?query_search=${tag}&mes_filtro=3`);
    assert.deepEqual(lines(mes3.body).slice(1).map((l) => l.split(';')[0]), [`${tag}-2`]);
    const accents = await client.get('/patients/export.csv?query_search=jose%20perez');
    assert.deepEqual(lines(accents.body).slice(1).map((l) => l.split(';')[0]), [`${tag}-1`]);
    const ignored = await client.get(`/patients/export.csv?query_search=${tag}&mes_filtro=99`);
    assert.equal(lines(ignored.body).length, 3);
  });

  test('the list pages link to their export with the same filters', async () => {
    const list = await client.get(`/patients/?query_search=${tag}&mes_filtro=3`);
    assert.match(list.body, new RegExp(`href="/patients/export.csv\\?query_search=${tag}&amp;mes_filtro=3">Exportar CSV<`));
    const follow = await client.get(`/patients/follow?query_search=${tag}`);
    assert.match(follow.body, new RegExp(`href="/patients/follow.csv\\?query_search=${tag}">Exportar CSV<`));
  });

  test('/patients/follow.csv: every matching patient, one line per Ingreso', async () => {
    const res = await client.get(`/patients/follow.csv?query_search=${tag}`);
    assert.equal(res.status, 200);
    const rows = lines(res.body);
    assert.equal(rows[0], 'documento;tipo_documento;nombre;apellido;programa;entidad_salud;departamento;ciudad;ciclo;estado;fecha_inicio;fecha_fin;mes_capita;motivo');
    assert.deepEqual(
      rows.slice(1).map((l) => [l.split(';')[0], l.split(';')[9], l.split(';')[11], l.split(';')[13]]),
      [
        [`${tag}-2`, 'ACTIVO', '', ''],
        [`${tag}-1`, 'ACTIVO', '', ''],
        [`${tag}-3`, 'TERMINADO', '2026-06-30', 'Alta'],
      ],
    );
    assert.equal((await lastExport()).exportacion, 'follow');
  });

  test('/exams/export.csv: active patients with their latest monitoring date', async () => {
    const res = await client.get(`/exams/export.csv?query_search=${tag}`);
    assert.equal(res.status, 200);
    const rows = lines(res.body);
    assert.match(rows[0]!, /;ultimo_monitoreo$/);
    assert.equal(rows.length, 3);
    assert.deepEqual(await lastExport(), { exportacion: 'exams', filtros: { query_search: tag }, filas: 2 });
  });

  test('/users/export.csv and /users/audit/export.csv: administrators only, audited', async () => {
    assert.equal((await client.get('/users/export.csv')).status, 403);
    assert.equal((await client.get('/users/audit/export.csv')).status, 403);

    const users = await admin.get('/users/export.csv');
    assert.equal(users.status, 200);
    const userRows = lines(users.body);
    assert.equal(userRows[0], 'usuario;administrador;activo;ultimo_ingreso;creado');
    assert.equal(userRows.length, 3);
    assert.equal((await lastExport()).exportacion, 'users');

    await recordAudit(ctx.db, { at: new Date('2026-11-20T15:00:00.000Z'), actor: null, action: 'patient.update', entityType: 'patient', entityId: 9, patientId: 9, changes: { nombre: ['=Ana', 'Ana; "B"'], peso: [8000, 8250] } });
    const audit = await admin.get('/users/audit/export.csv?paciente=9&desde=2026-11-20');
    assert.equal(audit.status, 200);
    assert.deepEqual(lines(audit.body), [
      'fecha;usuario;accion;accion_codigo;registro;paciente_id;cambios;cambios_almacenados;cambios_json',
      // What staff typed and read, then the stored values for auditors (the exact JSON last).
      `20/11/2026 10:00;;Paciente modificado;patient.update;Paciente #9;9;"Nombre: =Ana → Ana; ""B"" | Peso: 80 kg → 82,5 kg";` +
        `"nombre: =Ana → Ana; ""B"" | peso: 8000 → 8250";"{""nombre"":[""=Ana"",""Ana; \\""B\\""""],""peso"":[8000,8250]}"`,
    ]);
    assert.deepEqual(await lastExport(), { exportacion: 'audit', filtros: { paciente: '9', desde: '2026-11-20' }, filas: 1 });
  });
});
