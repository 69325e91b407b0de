// The contact consents on the patient's record page (issue 28), on both engines: each channel's state, a link to the
// consent page, and the kept record page (decision 0049) showing a consent given or withdrawn at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, ENGINE, loggedInClient, type TestClient, type TestContext } from '../../test/helpers.js';
import { createPatient } from '../../test/fixtures/patient.fixtures.js';

let ctx: TestContext;
let client: TestClient;

before(async () => {
  ctx = await createTestContext(); // today: 2026-11-22
  client = (await loggedInClient(ctx)).client;
});
after(async () => ctx.close());

/** Each channel's line of the record page's consent section. */
async function consentLines(patientId: number): Promise<Record<string, string>> {
  const res = await client.get(`/patients/${patientId}/`);
  assert.equal(res.status, 200);
  return Object.fromEntries([...res.body.matchAll(/<dd data-consent="(\w+)" data-vigente="[01]">([^<]*)<\/dd>/g)].map((m) => [m[1]!, m[2]!]));
}

describe(`contact consent on the patient record page, on ${ENGINE}`, () => {
  test('each channel shown; giving and withdrawing a consent changes the kept record page, and only that patient’s', async () => {
    const p = await createPatient(ctx.db, { nombre: 'Ficha' });
    const other = await createPatient(ctx.db, { nombre: 'Vecina' });
    const page = await client.get(`/patients/${p.id}/`);
    assert.match(page.body, new RegExp(`href="/agenda/consentimiento/${p.id}/"`));
    assert.deepEqual(await consentLines(p.id), {
      TELEFONO: 'Sin autorización',
      SMS: 'Sin autorización',
      WHATSAPP: 'Sin autorización',
      EMAIL: 'Sin autorización',
    });
    const otherBefore = (await client.get(`/patients/${other.id}/`)).body;

    // Kept now; a consent given on the agenda's page must show on the next visit.
    assert.equal((await client.post(`/agenda/consentimiento/${p.id}/`, { canal: 'WHATSAPP', otorgado_el: '2026-11-20' })).status, 302);
    assert.equal((await consentLines(p.id)).WHATSAPP, 'Autorizado desde el 20/11/2026');

    const row = await ctx.db.selectFrom('contacto_consentimientos').select('id').where('paciente_id', '=', p.id).executeTakeFirstOrThrow();
    assert.equal((await client.post(`/agenda/consentimiento/retirar/${row.id}/`, { retirado_el: '2026-11-22' })).status, 302);
    assert.equal((await consentLines(p.id)).WHATSAPP, 'Retirado el 22/11/2026 (autorizado el 20/11/2026)');
    // Given again: the live one is what the record says.
    assert.equal((await client.post(`/agenda/consentimiento/${p.id}/`, { canal: 'WHATSAPP', otorgado_el: '2026-11-22' })).status, 302);
    assert.equal((await consentLines(p.id)).WHATSAPP, 'Autorizado desde el 22/11/2026');

    const otherAfter = (await client.get(`/patients/${other.id}/`)).body;
    const strip = (html: string) => html.replace(/name="csrfmiddlewaretoken" value="[^"]*"/g, '').replace(/<section class="card[^"]*" id="historial"[\s\S]*?<\/section>/, '');
    assert.equal(strip(otherAfter), strip(otherBefore), "another patient's record page is unchanged");
  });
});
