// Every page at a desktop's 1366 × 900 and a phone's 390 × 844: no serious or critical axe-core violation, no
// sideways scroll, no console error. Then the keyboard-only journey: log in, create a patient after one invalid
// submit, add a monitoring record, and read it in the audit trail as it was typed. With SCREENSHOTS=<dir> it
// also writes the main pages' screenshots there (docs/screenshots/ in the README).

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { insertExamRecord } from '../../src/exams/exam.repository.js';
import { createPatient } from '../fixtures/patient.fixtures.js';
import { createUser } from '../helpers.js';
import { axeProblems, loggedInPage, newPage, startBrowserTest, submitLogin, type BrowserContext } from './harness.js';

const SIZES = [
  { name: 'escritorio', width: 1366, height: 900 },
  { name: 'telefono', width: 390, height: 844 },
] as const;
const SHOTS = process.env.SCREENSHOTS;

let b: BrowserContext;
let admin: { id: number; username: string; password: string };
let active: { id: number; ingresoId: number | null; documento: string };
let finished: { id: number; ingresoId: number | null; documento: string };

before(async () => {
  b = await startBrowserTest();
  const db = b.ctx.db;
  admin = await createUser(db, { isAdmin: true });
  // Today is 2026-11-22 in Bogotá.
  active = await createPatient(db, { nombre: 'Lucía', apellido: 'Fernández Quintero', documento: 'PG-1' }, { fechaInicio: '2026-05-10' });
  await createPatient(db, { nombre: 'Mateo', apellido: 'Ortiz', documento: 'PG-2', entidad_salud: 'ENTITY_B', programa: 'PROGRAMA INSOMNIO' }, { fechaInicio: '2026-11-02' });
  finished = await createPatient(db, { nombre: 'Ramón', apellido: 'Archivado', documento: 'PG-3' }, { fechaInicio: '2025-01-10' });
  await db.transaction().execute(async (trx) => {
    for (const [ingresoId, fecha, iah] of [
      [active.ingresoId!, '2026-06-01', 3240],
      [active.ingresoId!, '2026-10-01', 1210],
      [finished.ingresoId!, '2025-03-01', 4100],
    ] as const) {
      await insertExamRecord(trx, {
        ingreso_id: ingresoId, kind: 'MONITOREO', fecha, registrado_por: admin.id, created_at: '2026-11-01T00:00:00.000Z',
        tipo: 'POLISOMNOGRAFIA', iah, saturacion_minima: 8450, horas_uso_promedio: 520, porcentaje_noches_4h: 7500, observaciones: 'Control de rutina',
      });
    }
  });
  await db.updateTable('ingresos').set({ estado: 'TERMINADO', fecha_fin: '2025-12-01', motivo: 'alta' }).where('id', '=', finished.ingresoId!).execute();
  if (SHOTS) await mkdir(SHOTS, { recursive: true });
});
after(async () => {
  await b?.close();
});

/** What the checks found on one page, as lines; empty when it is fine. */
async function problemsOf(page: Page, consoleErrors: string[]): Promise<string[]> {
  const out: string[] = [];
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  if (scrollWidth > innerWidth) out.push(`scrolls sideways: ${scrollWidth} > ${innerWidth}`);
  // axe-core is put in every page by the context's init script (see the test below), so nothing is injected here.
  out.push(...(await axeProblems(page)));
  out.push(...consoleErrors.splice(0).map((e) => `console: ${e}`));
  return out;
}

test('every page, on a desktop and on a phone: no serious axe violation, no sideways scroll, no console error', async () => {
  const found: string[] = [];
  for (const size of SIZES) {
    const page = await newPage(b, { viewport: { width: size.width, height: size.height }, axe: true });
    const consoleErrors: string[] = [];
    let expect404 = false;
    let expect400 = false;
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      // The 404 page's own status is logged by the browser as a failed load: that one is expected.
      if (expect404 && /status of 404/.test(m.text())) return;
      // So is a report asked for with a bad month (its form with the errors, answered 400).
      if (expect400 && /status of 400/.test(m.text())) return;
      consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    const check = async (label: string, shot?: string) => {
      await page.waitForLoadState('load');
      for (const p of await problemsOf(page, consoleErrors)) found.push(`${size.name} ${label} (${new URL(page.url()).pathname}): ${p}`);
      if (SHOTS && shot) await page.screenshot({ path: join(SHOTS, `${shot}-${size.name}.png`), fullPage: false });
    };
    const visit = async (url: string, label: string, shot?: string) => {
      await page.goto(url);
      await check(label, shot);
    };

    await visit('/users/login/', 'login', 'login');
    await submitLogin(page, admin);
    await page.waitForURL('**/dashboard/');
    await check('dashboard', 'dashboard');
    await visit('/dashboard/novedades/', 'novedades form');
    await page.getByLabel('Entidad de salud').selectOption('ENTITY_A');
    await page.getByRole('button', { name: 'Ver informe' }).click();
    await check('novedades', 'novedades');
    expect400 = true;
    await visit('/dashboard/novedades/?mes=2026-13&entidad_salud=OTRA', 'novedades with errors');
    expect400 = false;
    await visit('/patients/', 'list', 'pacientes');
    await visit('/patients/?query_search=lucia&mes_filtro=7', 'list searched and filtered');
    await visit('/patients/?mes_filtro=99', 'list with an out-of-range filter');
    await visit('/patients/create/', 'create');
    await page.getByRole('button', { name: 'Guardar paciente' }).click();
    await check('create with errors', 'nuevo-paciente-errores');
    await visit(`/patients/${active.id}/`, 'record', 'ficha');
    await visit(`/patients/${active.id}/?consultas=1`, 'record with views');
    await visit('/patients/follow', 'follow', 'seguimiento');
    await visit(`/patients/follow?query_search=${finished.documento}`, 'follow: new cycle form');
    await visit(`/patients/ingreso/terminar/${active.ingresoId}/`, 'terminate');
    await page.getByRole('button', { name: 'Sí, terminar el ciclo' }).click();
    await check('terminate with errors');
    await visit('/exams/', 'exams');
    await visit(`/exams/${active.id}/`, 'clinical', 'vista-clinica');
    await visit(`/exams/${finished.id}/ingreso/${finished.ingresoId}/`, 'archived cycle');
    await visit('/users/audit/', 'audit', 'auditoria');
    await visit('/users/', 'users');
    await visit('/users/password/', 'password');
    expect404 = true;
    await visit('/no-existe/', '404');
    expect404 = false;
    await page.context().close();
  }
  assert.deepEqual(found, []);
});

/** Presses Tab until the element with this id has the focus (keyboard only); fails after `max` presses. */
async function tabTo(page: Page, id: string, max = 120): Promise<void> {
  for (let i = 0; i < max; i++) {
    if ((await page.evaluate(() => document.activeElement?.id ?? '')) === id) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`Tab never reached #${id}`);
}

/** Tabs to a select and moves through its options with the arrow keys until the one with this value is chosen. */
async function chooseByKeyboard(page: Page, id: string, value: string): Promise<void> {
  await tabTo(page, id);
  for (let i = 0; i < 60; i++) {
    if ((await page.evaluate((sel) => (document.getElementById(sel) as HTMLSelectElement).value, id)) === value) return;
    await page.keyboard.press('ArrowDown');
  }
  assert.fail(`#${id} never showed ${value}`);
}

async function typeInto(page: Page, id: string, text: string): Promise<void> {
  await tabTo(page, id);
  await page.keyboard.type(text);
}

test('keyboard only: log in, create a patient after one invalid submit, add a monitoring record, read it in the audit trail', async () => {
  const page = await newPage(b, { viewport: { width: 390, height: 844 } });
  const consoleErrors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(e.message));

  await page.goto('/users/login/');
  await typeInto(page, 'id_username', admin.username);
  await typeInto(page, 'id_password', admin.password);
  await page.keyboard.press('Enter');
  await page.waitForURL('**/dashboard/');

  // To the patient list and the form, by links.
  await page.keyboard.press('Tab'); // skip link first
  await tabToLink(page, 'Pacientes');
  await page.keyboard.press('Enter');
  await page.waitForURL('**/patients/');
  await tabToLink(page, 'Nuevo paciente');
  await page.keyboard.press('Enter');
  await page.waitForURL('**/patients/create/');

  // One invalid submit: only the name typed.
  await typeInto(page, 'id_nombre', 'Teclado');
  await submitWithEnter(page);
  // The summary has the focus and lists every field in error, each a link to it.
  assert.equal(await page.evaluate(() => document.activeElement?.hasAttribute('data-error-summary')), true);
  const links = await page.locator('[data-error-summary] a').evaluateAll((els) => els.map((e) => e.getAttribute('href')));
  const invalid = await page.locator('[aria-invalid="true"]').evaluateAll((els) => els.map((e) => `#${e.id}`));
  assert.ok(links.length >= 10, links.join(' '));
  assert.deepEqual(links, invalid);
  // Following the first link puts the focus in that field.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), links[0]!.slice(1));

  await typeInto(page, 'id_apellido', 'Sin Ratón');
  await chooseByKeyboard(page, 'id_tipo_documento', 'CC');
  await typeInto(page, 'id_documento', '1098777001');
  await tabTo(page, 'id_fecha_nacimiento');
  // Day and month alike: the date field's order follows the browser's language (dd/mm or mm/dd).
  await page.keyboard.type('03031961');
  assert.equal(await page.inputValue('#id_fecha_nacimiento'), '1961-03-03');
  await chooseByKeyboard(page, 'id_genero', 'F');
  await chooseByKeyboard(page, 'id_estado_civil', 'SOLTERO');
  await typeInto(page, 'id_telefono', '6076543210');
  await typeInto(page, 'id_celular', '3001234567');
  await chooseByKeyboard(page, 'id_ciudad', 'BUCARAMANGA');
  await chooseByKeyboard(page, 'id_zona', 'URBANA');
  await chooseByKeyboard(page, 'id_estrato', '3');
  await typeInto(page, 'id_medico_remitente', 'Dra. Teclas');
  await typeInto(page, 'id_especialidad', 'Neumología');
  await chooseByKeyboard(page, 'id_programa', 'PROGRAMA AOS');
  await chooseByKeyboard(page, 'id_entidad_salud', 'ENTITY_A');
  await tabTo(page, 'id_valor_capita');
  await page.keyboard.press('Enter');
  await page.waitForURL('**/patients/');
  assert.match((await page.locator('[data-message-level="success"]').textContent()) ?? '', /Teclado Sin Ratón registrado/);

  // Find them, open the clinical view, add a monitoring record.
  await typeInto(page, 'id_query_search', 'teclado');
  await page.keyboard.press('Enter');
  await page.waitForURL(/query_search=teclado/);
  await tabToLink(page, 'Vista clínica');
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/exams\/\d+\/$/);
  await chooseByKeyboard(page, 'id_monitoreo_tipo', 'POLIGRAFIA');
  await typeInto(page, 'id_monitoreo_iah', '32,4');
  await submitWithEnter(page);
  assert.equal(await page.getByRole('status').first().textContent(), 'Registro de monitoreo guardado en el ingreso activo.');

  // The audit trail shows what was typed: 32,4, not the stored 3240.
  await page.goto('/users/audit/?accion=exam.create');
  // Only the changes cell: the username beside it carries the process id, whose digits may be anything.
  const changes = (await page.locator('[data-audit-id]').first().locator('td[data-label="Cambios"]').textContent()) ?? '';
  assert.match(changes, /IAH: — → 32,4 eventos\/h/);
  assert.match(changes, /Tipo: — → Poligrafía respiratoria/);
  assert.doesNotMatch(changes, /3240|MONITOREO/);
  assert.deepEqual(consoleErrors, []);
  await page.context().close();
});

/** Presses Enter in a field (the form is sent) and waits for the page that answers. */
async function submitWithEnter(page: Page): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
}

/** Presses Tab until a link with exactly this text has the focus. */
async function tabToLink(page: Page, text: string, max = 120): Promise<void> {
  for (let i = 0; i < max; i++) {
    const focused = await page.evaluate(() => {
      const el = document.activeElement;
      return el instanceof HTMLAnchorElement ? (el.textContent ?? '').trim() : '';
    });
    if (focused === text) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`Tab never reached the link «${text}»`);
}

/** WCAG's contrast ratio of two CSS colours 'rgb(r, g, b)'. */
function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = (c.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
      const s = Number(v) / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

test('the focus ring stands out 3:1 from what it sits on, and the print view is a record to hand over', async () => {
  const { page } = await loggedInPage(b, admin, { viewport: { width: 1366, height: 900 } });
  await page.goto(`/patients/${active.id}/`);
  /** The focused element's outline colour and the background it sits on (the first opaque one up the tree). */
  const ring = () =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      let bg = 'rgb(255, 255, 255)';
      for (let p: HTMLElement | null = el.parentElement; p; p = p.parentElement) {
        const c = getComputedStyle(p).backgroundColor;
        if (c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') {
          bg = c;
          break;
        }
      }
      return { outline: getComputedStyle(el).outlineColor, width: parseFloat(getComputedStyle(el).outlineWidth), bg, id: el.id || el.textContent };
    });
  // Links of the blue top bar, the page's links and buttons, the form's fields.
  const seen = new Set<string>();
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const r = await ring();
    assert.ok(r.width >= 2, `${r.id}: outline ${r.width}px`);
    const ratio = contrast(r.outline, r.bg);
    assert.ok(ratio >= 3, `${r.id}: ${r.outline} on ${r.bg} is ${ratio.toFixed(2)}:1`);
    seen.add(r.bg);
  }
  assert.ok(seen.size >= 2, [...seen].join(' '));

  // On paper: who it is and when it was printed, no navigation, no forms.
  await page.emulateMedia({ media: 'print' });
  assert.equal(await page.locator('.topbar').isVisible(), false);
  assert.equal(await page.getByRole('navigation', { name: 'Secciones de la ficha' }).isVisible(), false);
  assert.equal(await page.locator('form').first().isVisible(), false);
  // The record prints as a referral sheet (decision 0116): who it is, the cycle, and when it was printed.
  const header = ((await page.locator('.print-header').innerText()) ?? '').replace(/\s+/g, ' ');
  assert.match(header, /Hoja de remisión/);
  assert.match(header, /Lucía Fernández Quintero Documento Cédula de ciudadanía PG-1/);
  assert.match(header, /Impreso el 22\/11\/2026/);
  await page.goto(`/exams/${active.id}/`);
  assert.match((await page.locator('.print-header').textContent()) ?? '', /Vista clínica.*Lucía Fernández Quintero/);
  assert.equal(await page.locator('.exam-forms').isVisible(), false);
  await page.emulateMedia({ media: 'screen' });
  assert.equal(await page.locator('.print-header').isVisible(), false);
  await page.context().close();
});
