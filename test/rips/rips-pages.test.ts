// The RIPS file read in keyset pages (decision 0093): a month larger than one page (500 patients) comes out whole,
// usuarios numbered 1..n across the pages, each patient's services in order, valid against the schema; on both engines.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { RIPS_PAGE_SIZE } from '../../src/rips/rips.actions.js';
import { newPatientRow } from '../fixtures/patient.fixtures.js';
import { createTestContext, loggedInClient, type TestClient, type TestContext } from '../helpers.js';

const SCHEMA = JSON.parse(readFileSync(fileURLToPath(new URL('../../src/rips/schema/rips-res2275-v1.schema.json', import.meta.url)), 'utf8'));
const N = RIPS_PAGE_SIZE * 2 + 37;

describe('RIPS across keyset pages', () => {
  let ctx: TestContext;
  let client: TestClient;
  before(async () => {
    ctx = await createTestContext();
    const { client: c, user } = await loggedInClient(ctx);
    client = c;
    const db = ctx.db;
    await db.updateTable('users').set({ tipo_documento: 'CC', documento: '5550001' }).where('id', '=', user.id).execute();
    await db.updateTable('rips_settings').set({ nit: '900123456', codigo_prestador: '680010012301' }).execute();
    for (let start = 0; start < N; start += 200) {
      const rows = Array.from({ length: Math.min(200, N - start) }, (_, i) => newPatientRow({ documento: `70${String(start + i).padStart(6, '0')}`, tipo_usuario: '01' }));
      const ids = (await db.insertInto('patients').values(rows).returning('id').execute()).map((r) => r.id);
      const ingresos = await db
        .insertInto('ingresos')
        .values(ids.map((id) => ({ paciente_id: id, fecha_inicio: '2026-01-02', estado: 'ACTIVO', created_at: '2026-01-02T00:00:00.000Z', updated_at: '2026-01-02T00:00:00.000Z' })))
        .returning(['id', 'paciente_id'])
        .execute();
      // Two services each, the later one inserted first: the file orders them by date and time.
      await db
        .insertInto('exam_records')
        .values(
          ingresos.flatMap((i) => [
            { ingreso_id: i.id, kind: 'PSICOLOGIA', tipo_sesion: 'SEGUIMIENTO', fecha: '2026-10-20', hora: '09:00', registrado_por: user.id, created_at: '2026-10-20T15:00:00.000Z' },
            { ingreso_id: i.id, kind: 'MONITOREO', tipo: 'POLIGRAFIA', fecha: '2026-10-04', hora: '21:00', registrado_por: user.id, created_at: '2026-10-04T15:00:00.000Z' },
          ] as const),
        )
        .execute();
    }
  });
  after(async () => ctx?.close());

  test(`${N} patients: every one once, numbered across the pages, services in order, valid`, async () => {
    const res = await client.get('/dashboard/rips.json?mes=2026-10&entidad_salud=ENTITY_A&factura=FE77&operacion=CapitaFinal');
    assert.equal(res.status, 200);
    const file = JSON.parse(res.body);
    assert.equal(file.usuarios.length, N);
    assert.deepEqual(
      file.usuarios.map((u: { consecutivo: number }) => u.consecutivo),
      Array.from({ length: N }, (_, i) => i + 1),
    );
    assert.equal(new Set(file.usuarios.map((u: { numDocumentoIdentificacion: string }) => u.numDocumentoIdentificacion)).size, N);
    const u = file.usuarios[N - 1];
    assert.equal(u.servicios.procedimientos[0].fechaInicioAtencion, '2026-10-04 21:00');
    assert.equal(u.servicios.consultas[0].fechaInicioAtencion, '2026-10-20 09:00');
    const ajv = new Ajv({ strict: false });
    assert.ok(ajv.validate(SCHEMA, file), JSON.stringify(ajv.errors?.slice(0, 3)));
  });
});
