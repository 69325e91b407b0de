// What the records lacked for RIPS (issue 27, decision 0090): each user's own document (on their account page and
// by an administrator), the patient's tipo_usuario (optional, 01–13) and an exam's time of day.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { validatePatientForm } from '../../src/patients/patient.schema.js';
import { createTestContext, decodeEntities, loggedInClient, type TestClient, type TestContext } from '../helpers.js';

describe('a user’s own document', () => {
  let ctx: TestContext;
  let admin: TestClient;
  let staff: TestClient;
  let staffId: number;
  before(async () => {
    ctx = await createTestContext();
    admin = (await loggedInClient(ctx, { isAdmin: true })).client;
    const s = await loggedInClient(ctx);
    staff = s.client;
    staffId = s.user.id;
  });
  after(async () => ctx?.close());

  const stored = () => ctx.db.selectFrom('users').select(['tipo_documento', 'documento']).where('id', '=', staffId).executeTakeFirstOrThrow();

  test('the user gives it on the account page, in its canonical form; errors stand beside the field', async () => {
    const page = await staff.get('/users/password/');
    assert.match(page.body, /name="tipo_documento"/);
    const bad = await staff.post('/users/password/documento/', { tipo_documento: 'CC', documento: '12AB' });
    assert.equal(bad.status, 200);
    assert.match(decodeEntities(bad.body), /id="error_documento">[^<]*solo puede tener dígitos/);
    const ok = await staff.post('/users/password/documento/', { tipo_documento: 'CC', documento: '1.098.765.432' });
    assert.equal(ok.status, 302);
    assert.deepEqual(await stored(), { tipo_documento: 'CC', documento: '1098765432' });
  });

  test('an administrator changes it on the user’s page; anyone else gets 403; each change is audited', async () => {
    assert.equal((await staff.post(`/users/${staffId}/documento/`, { tipo_documento: 'CE', documento: 'X1' })).status, 403);
    const ok = await admin.post(`/users/${staffId}/documento/`, { tipo_documento: 'CE', documento: 'ab-123' });
    assert.equal(ok.status, 302);
    assert.deepEqual(await stored(), { tipo_documento: 'CE', documento: 'AB123' });
    const entries = await ctx.db.selectFrom('audit_log').select(['action', 'entity_id', 'changes']).where('action', '=', 'user.document').orderBy('id').execute();
    assert.equal(entries.length, 2);
    assert.equal(entries[1]!.entity_id, staffId);
    assert.deepEqual(JSON.parse(entries[1]!.changes!), { tipo_documento: ['CC', 'CE'], documento: ['1098765432', 'AB123'] });
  });
});

describe('the patient’s tipo_usuario', () => {
  const VALID: Record<string, string> = {
    nombre: 'Ana', apellido: 'Ríos', tipo_documento: 'CC', documento: '1098765432', fecha_nacimiento: '1980-01-31', genero: 'F', departamento: 'SANTANDER',
    ciudad: 'SAN GIL', zona: 'URBANA', telefono: '607', celular: '300', estado_civil: 'SOLTERO', entidad_salud: 'ENTITY_A', estrato: '2', peso: '', altura: '',
    perimetro_abdominal: '', cuello: '', medico_remitente: 'Dr', especialidad: 'ORL', diagnostico_clinico: 'G47.3', programa: 'PROGRAMA AOS', valor_capita: '',
    fecha_inicio_programa: '',
  };
  test('optional: blank stays blank (never guessed), a code of the table is kept, anything else refused beside the field', () => {
    const blank = validatePatientForm(VALID, '2026-11-22');
    assert.ok(blank.ok);
    assert.equal(blank.patient.tipo_usuario, '');
    const given = validatePatientForm({ ...VALID, tipo_usuario: '04' }, '2026-11-22');
    assert.ok(given.ok);
    assert.equal(given.patient.tipo_usuario, '04');
    const bad = validatePatientForm({ ...VALID, tipo_usuario: '14' }, '2026-11-22');
    assert.ok(!bad.ok);
    assert.equal(bad.errors.tipo_usuario, 'Seleccione una opción de la lista.');
  });
});
