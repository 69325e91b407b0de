import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { createPatient } from '../fixtures/patient.fixtures.js';
import type { Page } from 'playwright-core';
import { loggedInPage, startBrowserTest, type BrowserContext } from './harness.js';

let b: BrowserContext;
before(async () => {
  b = await startBrowserTest();
  // Today is 2026-11-22: two patients in month 1, one in month 3.
  await createPatient(b.ctx.db, { nombre: 'Lucía', apellido: 'Núñez', documento: 'BR-1' }, { fechaInicio: '2026-11-02' });
  await createPatient(b.ctx.db, { nombre: 'Mateo', apellido: 'Ortiz', documento: 'BR-2', entidad_salud: 'ENTITY_B' }, { fechaInicio: '2026-11-10' });
  await createPatient(b.ctx.db, { nombre: 'Sofía', apellido: 'Peña', documento: 'BR-3' }, { fechaInicio: '2026-09-01' });
});
after(async () => {
  await b?.close();
});

test('log in, read the dashboard chart, download the capitation CSV', async () => {
  const { page } = await loggedInPage(b);
  const chart = page.getByRole('img', { name: /Ingresos activos por mes de cápita/ });
  assert.ok(await chart.isVisible());
  const bar1 = page.locator('svg[data-chart="mes-capita"]:visible g.chart-bar[data-mes="1"] rect');
  const bar3 = page.locator('svg[data-chart="mes-capita"]:visible g.chart-bar[data-mes="3"] rect');
  const box1 = await bar1.boundingBox();
  const box3 = await bar3.boundingBox();
  assert.ok(box1 && box3 && box3.height > 0);
  assert.ok(Math.abs(box1.height - 2 * box3.height) < 1.5, `${box1.height} vs ${box3.height}`);
  assert.equal(await page.locator('[data-figure="activos"] .figure-value').textContent(), '3');

  assert.ok((await labelPixels(page)) >= 11);

  await page.getByLabel('Mes (AAAA-MM)').fill('2026-11');
  await page.getByLabel('Entidad de salud').selectOption('ENTITY_A');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Descargar CSV' }).click()]);
  assert.equal(download.suggestedFilename(), 'capita-2026-11-ENTITY_A.csv');
  const bytes = await readFile((await download.path()));
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  assert.equal(
    bytes.toString('utf8'),
    '\uFEFFdocumento;tipo_documento;nombre;apellido;entidad_salud;programa;mes_capita;valor_capita\r\n' +
      'BR-1;CC;Lucía;Núñez;ENTITY_A;PROGRAMA AOS;1;259783,00\r\n' +
      'BR-3;CC;Sofía;Peña;ENTITY_A;PROGRAMA AOS;3;259783,00\r\n',
  );
  await page.context().close();
});

/** The smallest label of the chart shown, in pixels on screen (its font size times the drawing's scale, if any). */
async function labelPixels(page: Page): Promise<number> {
  return page.evaluate(() => {
    const svg = [...document.querySelectorAll<SVGSVGElement>('svg[data-chart="mes-capita"]')].find((s) => s.getBoundingClientRect().width > 0)!;
    const viewBox = svg.viewBox.baseVal;
    const scale = viewBox && viewBox.width > 0 ? svg.getBoundingClientRect().width / viewBox.width : 1;
    const shown = [...svg.querySelectorAll('text')].filter((t) => t.getBoundingClientRect().width > 0);
    return Math.min(...shown.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale));
  });
}

/** Labels of the chart shown that overlap another one, or stick out of the drawing. */
async function crowdedLabels(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const svg = document.querySelector<SVGSVGElement>('svg[data-chart="mes-capita"]')!;
    const frame = svg.getBoundingClientRect();
    const boxes = [...svg.querySelectorAll('text')].map((t) => ({ text: t.textContent ?? '', box: t.getBoundingClientRect() })).filter((t) => t.box.width > 0);
    const bad: string[] = [];
    boxes.forEach((a, i) => {
      if (a.box.left < frame.left - 0.5 || a.box.right > frame.right + 0.5) bad.push(`${a.text} outside`);
      for (const b of boxes.slice(i + 1)) {
        const overlap = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left) > 0.5 && Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top) > 0.5;
        if (overlap) bad.push(`${a.text} over ${b.text}`);
      }
    });
    return bad;
  });
}

test('the chart fits a phone and a desktop, its labels readable on both, its figures in a table', async () => {
  const { page } = await loggedInPage(b);
  for (const [width, height] of [[390, 844], [1366, 900], [800, 900]] as const) {
    await page.setViewportSize({ width, height });
    const shown = page.locator('svg[data-chart="mes-capita"]:visible');
    assert.equal(await shown.count(), 1, `${width}`);
    const box = (await shown.boundingBox())!;
    const card = (await page.locator('.chart-figure').boundingBox())!;
    assert.ok(box.width <= card.width + 0.5 && box.width >= card.width * 0.95, `${width}: chart ${box.width} in a card of ${card.width}`);
    assert.ok(box.height >= 250, `${width}: chart ${box.height} px high`);
    const px = await labelPixels(page);
    assert.ok(px >= 11, `${width}: labels of ${px.toFixed(1)} px`);
    assert.deepEqual(await crowdedLabels(page), [], `${width}`);
    // Bars in order, inside the drawing, none over the next.
    const bars = await page.locator('svg[data-chart="mes-capita"] g.chart-bar rect').evaluateAll((rects) => rects.map((r) => r.getBoundingClientRect()).map((b) => [b.left, b.right]));
    assert.equal(bars.length, 18);
    for (let i = 1; i < 18; i++) assert.ok(bars[i]![0]! > bars[i - 1]![1]!, `${width}: bar ${i + 1} after bar ${i}`);
    assert.ok(bars[0]![0]! >= box.x && bars[17]![1]! <= box.x + box.width, `${width}: bars inside the drawing`);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true);
  }
  await page.getByText('Ver los datos del gráfico').click();
  assert.ok(await page.getByRole('table', { name: 'Ingresos activos por mes de cápita' }).isVisible());
  await page.context().close();
});
