// Issue 29, point 7: one numbering of a patient's cycles (ciclo 1, 2, 3 in order of start) on every page, in the
// audit trail and in the exports; never a cycle's internal id. On SQLite, or PostgreSQL with TEST_PG_URL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, decodeEntities, loggedInClient, type TestClient, type TestContext } from './helpers.js';
import { createPatient } from './fixtures/patient.fixtures.js';

let ctx: TestContext;
let client: TestClient;
let patient: { id: number; documento: string };
/** The patient's cycles by their number: 1 and 2 terminated, 3 ACTIVO. */
const cycle: Record<1 | 2 | 3, number> = { 1: 0, 2: 0, 3: 0 };

async function terminatedCycle(pacienteId: number, fechaInicio: string, fechaFin: string): Promise<number> {
  const row = await ctx.db
    .insertInto('ingresos')
    .values({ paciente_id: pacienteId, fecha_inicio: fechaInicio, fecha_fin: fechaFin, estado: 'TERMINADO', motivo: 'alta', created_at: 'x', updated_at: 'x' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

before(async () => {
  ctx = await createTestContext();
  ({ client } = await loggedInClient(ctx, { isAdmin: true }));
  // Other patients' cycles first, so that no internal id is 1, 2 or 3 by chance.
  for (let i = 0; i < 4; i++) await createPatient(ctx.db, { nombre: `Otro${i}` }, { fechaInicio: '2026-05-01' });
  // The ACTIVO cycle is written first (lowest id) although it started last; the oldest start is written last.
  const p = await createPatient(ctx.db, { nombre: 'Numerada', apellido: 'Ciclos' }, { fechaInicio: '2026-03-01' });
  patient = p;
  cycle[3] = p.ingresoId!;
  cycle[2] = await terminatedCycle(p.id, '2025-08-01', '2025-12-01');
  cycle[1] = await terminatedCycle(p.id, '2025-01-10', '2025-06-30');
  assert.ok(cycle[3] < cycle[2] && cycle[2] < cycle[1] && cycle[3] > 3);
});
after(async () => ctx.close());

const page = async (url: string) => {
  const res = await client.get(url);
  assert.equal(res.status, 200, url);
  return decodeEntities(res.body);
};

/** The HTML of the element carrying data-ingreso-id="<id>" up to its closing tag `end`. */
function block(html: string, id: number, end: string): string {
  const start = html.indexOf(`data-ingreso-id="${id}"`);
  assert.ok(start >= 0, `ingreso ${id} not shown`);
  return html.slice(start, html.indexOf(end, start));
}

const noInternalIds = (html: string) => {
  for (const id of Object.values(cycle)) {
    assert.doesNotMatch(html, new RegExp(`(Ingreso|Ciclo|ciclo) (#|n\\.º )?${id}\\b`), `internal id ${id} shown as a cycle`);
  }
  assert.doesNotMatch(html, /Ingreso #\d/);
};

describe('one cycle numbering per patient', () => {
  test('the follow page numbers the cycles by start', async () => {
    const html = await page(`/patients/follow?query_search=${patient.documento}`);
    assert.match(block(html, cycle[3], '</article>'), /<strong>Ciclo 3<\/strong>/);
    assert.match(block(html, cycle[2], '</article>'), /<strong>Ciclo 2<\/strong>/);
    assert.match(block(html, cycle[1], '</article>'), /<strong>Ciclo 1<\/strong>/);
    // latest start first
    assert.ok(html.indexOf(`data-ingreso-id="${cycle[3]}"`) < html.indexOf(`data-ingreso-id="${cycle[1]}"`));
    noInternalIds(html);
  });

  test('the clinical view names the current cycle and lists every cycle by the same numbers', async () => {
    const html = await page(`/exams/${patient.id}/`);
    assert.match(block(html, cycle[3], '</p>'), /Ciclo 3/);
    assert.match(block(html, cycle[1], '</tr>'), /Ciclo 1 \(archivado\)/);
    assert.match(block(html, cycle[2], '</tr>'), /Ciclo 2 \(archivado\)/);
    noInternalIds(html);
  });

  test('an archived cycle is titled by its number', async () => {
    const html = await page(`/exams/${patient.id}/ingreso/${cycle[1]}/`);
    assert.match(html, /<title>Ciclo 1 · Numerada Ciclos/);
    assert.match(html, /<h1>\s*Ciclo 1 de Numerada Ciclos/);
    assert.match(html, /<span aria-current="page">Ciclo 1<\/span>/);
    noInternalIds(html);
  });

  test('the termination question, the audit trail and the patient history use the same number', async () => {
    const asked = await page(`/patients/ingreso/terminar/${cycle[3]}/`);
    assert.match(asked, /El ciclo 3 \(ACTIVO, desde el 01\/03\/2026\)/);
    noInternalIds(asked);

    const res = await client.post(`/patients/ingreso/estado/${cycle[3]}/SUSPENDIDO/`, { motivo_estado: 'Viaje' });
    assert.equal(res.status, 302);
    // The archive view writes a view entry of cycle 1 (its record) too.
    await page(`/exams/${patient.id}/ingreso/${cycle[1]}/`);

    const trail = await page(`/users/audit/?paciente=${patient.id}`);
    assert.match(trail, /Ciclo 3/);
    assert.match(trail, /Ciclo 1/);
    noInternalIds(trail);

    const history = await page(`/patients/${patient.id}/?consultas=1`);
    assert.match(history, /Ciclo 3/);
    noInternalIds(history);

    const csv = await client.get(`/users/audit/export.csv?paciente=${patient.id}`);
    assert.equal(csv.status, 200);
    assert.match(csv.body, /Ciclo 3/);
    noInternalIds(csv.body);
  });

  test('the follow export carries the cycle number, not the internal id', async () => {
    const res = await client.get(`/patients/follow.csv?query_search=${patient.documento}`);
    assert.equal(res.status, 200);
    const lines = res.body.replace(/^\uFEFF/, '').trim().split(/\r?\n/);
    const header = lines[0]!.split(';');
    assert.ok(header.includes('ciclo'));
    assert.ok(!header.includes('ingreso_id'));
    const col = header.indexOf('ciclo');
    assert.deepEqual(
      lines.slice(1).map((l) => l.split(';')[col]),
      ['3', '2', '1'],
    );
  });

  test('a clinical view entry (written while cycle 3 was ACTIVO) reads its cycle by number', async () => {
    await ctx.app.auditViews.flush();
    const trail = await page(`/users/audit/?paciente=${patient.id}&accion=exam.view_clinical`);
    assert.match(trail, /<strong>Ciclo<\/strong>: 3/);
    noInternalIds(trail);
  });
});
