// The dashboard's empty capitation form is rendered once a month and placed as bytes (decision 0275): the same bytes
// as the component, for each month, and a form sent with values or an error still comes from the component.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { render } from 'preact-render-to-string';
import { renderFragment } from '../../web/render.js';
import { CapitaReport, CapitaReportForm } from './dashboard.page.js';

const bytesOf = (node: Parameters<typeof renderFragment>[0]): string => Buffer.concat(renderFragment(node).parts.map((p) => p ?? Buffer.alloc(0))).toString();

describe('the capitation form rendered once a month', () => {
  test('gives the same bytes as the component, whichever month came before', () => {
    for (const mes of ['2026-11', '2026-12', '2026-11', '2027-01', '2027-01']) {
      assert.equal(bytesOf(<CapitaReport form={null} mes={mes} />), render(<CapitaReportForm form={{ mes, entidad: '' }} mes={mes} />));
      assert.match(bytesOf(<CapitaReport form={null} mes={mes} />), new RegExp(`name="mes" type="month" value="${mes}" max="${mes}"`));
    }
  });

  test('a form sent with values or an error is the component itself', () => {
    const sent = { mes: '2026-1"3', entidad: 'ENTITY_B', error: 'Mes <inválido>' };
    const html = bytesOf(<CapitaReport form={sent} mes="2026-11" />);
    assert.equal(html, render(<CapitaReportForm form={sent} mes="2026-11" />));
    assert.match(html, /value="2026-1&quot;3"/);
    assert.match(html, /<option value="ENTITY_B" selected>/);
    assert.match(html, /Mes &lt;inválido>/);
  });
});
