// Issue 29, point 6: printing a patient gives a referral sheet (identity, program and insurer, diagnosis, the
// current cycle and its month, the latest value of each measure with its date, the referring physician), without
// history or navigation; the clinical view and a cycle's view print under the same header, without links.
// On SQLite, or PostgreSQL with TEST_PG_URL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, decodeEntities, loggedInClient, type TestClient, type TestContext } from './helpers.js';
import { createPatient } from './fixtures/patient.fixtures.js';

// The test clock says 2026-11-22 in Bogotá.
let ctx: TestContext;
let client: TestClient;
let patientId: number;
let activeId: number;
let archivedId: number;
let empty: number;

before(async () => {
  ctx = await createTestContext();
  let user: { id: number };
  ({ client, user } = await loggedInClient(ctx));
  // The first cycle (2025) gets its polysomnography while ACTIVO, then ends; the second starts on 01/03/2026.
  const p = await createPatient(
    ctx.db,
    { nombre: 'Remitida', apellido: 'Hoja', medico_remitente: 'Dra. Olga Pérez', especialidad: 'Neumología', entidad_salud: 'ENTITY_B' },
    { fechaInicio: '2025-01-10' },
  );
  patientId = p.id;
  archivedId = p.ingresoId!;
  const at = '2026-11-01T12:00:00.000Z';
  const rec = (ingreso_id: number, fecha: string, values: Record<string, unknown>) =>
    ctx.db
      .insertInto('exam_records')
      .values({ ingreso_id, fecha, registrado_por: user.id, created_at: at, kind: 'MONITOREO', ...values } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
  // An older polysomnography in the archived cycle, the latest one in the current cycle, and a later one voided.
  await rec(archivedId, '2025-02-01', { tipo: 'POLISOMNOGRAFIA', iah: 4110, saturacion_minima: 7900 });
  await ctx.db.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin: '2025-12-01', motivo: 'alta' }).where('id', '=', archivedId).execute();
  const active = await ctx.db
    .insertInto('ingresos')
    .values({ paciente_id: p.id, fecha_inicio: '2026-03-01', fecha_fin: null, estado: 'ACTIVO', motivo: null, created_at: 'x', updated_at: 'x' })
    .returning('id')
    .executeTakeFirstOrThrow();
  activeId = Number(active.id);
  await rec(activeId, '2026-03-15', { tipo: 'POLISOMNOGRAFIA', iah: 3240, saturacion_minima: 8150 });
  const voided = await rec(activeId, '2026-10-01', { tipo: 'POLISOMNOGRAFIA', iah: 9990, saturacion_minima: 5000 });
  await ctx.db.updateTable('exam_records').set({ anulado_at: at, anulado_por: user.id, motivo_anulacion: 'error' }).where('id', '=', Number(voided.id)).execute();
  await rec(activeId, '2026-11-10', { tipo: 'DESCARGA_CPAP', horas_uso_promedio: 650, porcentaje_noches_4h: 8250 });
  await rec(activeId, '2026-09-05', { kind: 'PSICOLOGIA', tipo_sesion: 'SEGUIMIENTO', numero_sesion: 1, isi: 18, epworth: 14 });
  await rec(activeId, '2026-10-20', { kind: 'PSICOLOGIA', tipo_sesion: 'SEGUIMIENTO', numero_sesion: 2, isi: 12 });
  empty = (await createPatient(ctx.db, { nombre: 'Sinexamenes' }, { fechaInicio: '2026-11-01' })).id;
});
after(async () => ctx.close());

const page = async (url: string) => {
  const res = await client.get(url);
  assert.equal(res.status, 200, url);
  return decodeEntities(res.body);
};

/** The sheet's or header's HTML: from its marker to the end of the element. */
function part(html: string, marker: string, end: string): string {
  const start = html.indexOf(marker);
  assert.ok(start >= 0, `${marker} missing`);
  return html.slice(html.lastIndexOf('<', start), html.indexOf(end, start) + end.length);
}

/** The result rows of the sheet: [measure, value, date]. */
function results(html: string): string[][] {
  const table = part(html, 'data-table="referral-results"', '</table>');
  return [...table.matchAll(/<tr><th scope="row">([^<]*)<\/th><td[^>]*>([^<]*)<\/td><td[^>]*>([^<]*)<\/td><\/tr>/g)].map((m) => [m[1]!, m[2]!, m[3]!]);
}

/** The header's rows: label → value. */
function headerRows(html: string): Record<string, string> {
  const header = part(html, 'data-referral-header', '</header>');
  return Object.fromEntries([...header.matchAll(/<dt>([^<]*)<\/dt><dd>([^<]*)<\/dd>/g)].map((m) => [m[1]!, m[2]!]));
}

const EXPECTED_HEADER = {
  Documento: (doc: string) => doc,
  Programa: 'Programa AOS',
  'Entidad de salud': 'ENTITY_B',
  Diagnóstico: 'G47.3 · Apnea del Sueño',
  // 01/03/2026 → 22/11/2026: month 9 of the program.
  'Ciclo actual': 'Ciclo 2 · activo desde el 01/03/2026 · mes 9 de 18',
  'Médico remitente': 'Dra. Olga Pérez (Neumología)',
};

describe('the referral sheet', () => {
  test('the patient record prints as a referral sheet with the latest value of each measure and its date', async () => {
    const html = await page(`/patients/${patientId}/`);
    const sheet = part(html, 'data-referral-sheet', '</table>');
    assert.match(sheet, /class="print-only referral-sheet"/);
    assert.match(sheet, /Somno · Hoja de remisión/);
    assert.match(sheet, /<strong>Remitida Hoja<\/strong>/);
    const rows = headerRows(html);
    for (const [k, v] of Object.entries(EXPECTED_HEADER)) if (typeof v === 'string') assert.equal(rows[k], v, k);
    assert.match(rows['Documento']!, /^Cédula de ciudadanía /);
    assert.equal(rows['Nacimiento'], '10/05/1970 (56 años)');
    assert.match(sheet, /Impreso el 22\/11\/2026/);
    assert.deepEqual(results(html), [
      ['IAH (última polisomnografía)', '32,4 eventos/h', '15/03/2026'],
      ['Saturación mínima (última polisomnografía)', '81,5 %', '15/03/2026'],
      ['Horas de uso del CPAP (promedio)', '6,5 h', '10/11/2026'],
      ['Noches con uso ≥ 4 h', '82,5 %', '10/11/2026'],
      ['ISI (severidad del insomnio)', '12', '20/10/2026'],
      ['Epworth (somnolencia)', '14', '05/09/2026'],
    ]);
  });

  test('on paper the record leaves off its screen sections, its form, its navigation and its history', async () => {
    const html = await page(`/patients/${patientId}/?consultas=1`);
    assert.match(html, /<section class="card patient-section no-print" id="historial"/);
    assert.match(html, /<div class="grid-2 no-print">/);
    assert.match(html, /<div class="page-head no-print"/);
    assert.match(html, /<section class="patient-section no-print" id="editar"/);
    assert.match(html, /<nav class="section-nav no-print"/);
    // The print stylesheet hides what is marked so, and shows the sheet.
    const css = (await client.get('/static/app.css')).body;
    const print = css.slice(css.indexOf('@media print'));
    assert.match(print, /\.no-print/);
    assert.match(print, /\.print-only \{ display: block; \}/);
  });

  test('a patient without records prints every measure as not registered', async () => {
    const html = await page(`/patients/${empty}/`);
    assert.ok(results(html).every(([, value, fecha]) => value === '—' && fecha === 'Sin registro'));
    assert.equal(headerRows(html)['Ciclo actual'], 'Ciclo 1 · activo desde el 01/11/2026 · mes 1 de 18');
  });

  test('the clinical view and an archived cycle print under the same header, their links left off paper', async () => {
    const record = headerRows(await page(`/patients/${patientId}/`));
    const clinicalHtml = await page(`/exams/${patientId}/`);
    const archiveHtml = await page(`/exams/${patientId}/ingreso/${archivedId}/`);
    assert.deepEqual(headerRows(clinicalHtml), record);
    assert.deepEqual(headerRows(archiveHtml), record);
    assert.match(part(clinicalHtml, 'data-referral-header', '</header>'), /Somno · Vista clínica/);
    assert.match(part(archiveHtml, 'data-referral-header', '</header>'), /Somno · Ciclo 1 \(archivado\)/);
    // The back links sit in elements left off paper.
    assert.match(archiveHtml, /<p class="no-print"><a href="\/exams\/\d+\/">← Vista clínica/);
    assert.match(clinicalHtml, /<p class="no-print"><a href="\/exams\/">← Exámenes/);
  });
});
