import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ComponentChildren } from 'preact';
import { FragmentSlot, renderFragment, type Fragment } from '../../web/render.js';
import { PatientHistory, patientHistoryFragment } from './patient-history.js';

// The record page places the history section as bytes kept around its rows (decision 0355): they must be the bytes
// of the section's render, whatever its shape and whoever the patient.

const text = (fragment: Fragment) => Buffer.concat(fragment.parts.map((part) => part ?? Buffer.from('[CSRF]'))).toString('utf8');
const kept = (html: string) => <FragmentSlot fragment={renderFragment(<tbody dangerouslySetInnerHTML={{ __html: html }} />)} />;

test('the history section kept around its rows is the section as rendered, for every shape and patient', () => {
  const rowsOf = (n: number): ComponentChildren[] => [
    ...Array.from({ length: Math.min(n, 2) }, (_, i) => kept(`<tr data-audit-id="${i}"><td>José «${i}» &amp; Peña</td></tr>`)),
    ...Array.from({ length: Math.max(0, n - 2) }, (_, i) => (
      <tr data-audit-id={String(100 + i)}>
        <td>{`fila <${i}> "nueva"`}</td>
      </tr>
    )),
  ];
  const seen = new Set<string>();
  // Twice over: the second time every shape comes from the kept frames.
  for (let round = 0; round < 2; round++) {
    for (const patientId of [1, 1234, 987654]) {
      for (const includeViews of [false, true]) {
        for (const [count, limit] of [[0, 20], [3, 20], [20, 20], [5, 5], [1, 1]] as const) {
          const rows = rowsOf(count);
          const expected = text(renderFragment(<PatientHistory count={count} rows={rows} limit={limit} patientId={patientId} includeViews={includeViews} />));
          const sent = text(patientHistoryFragment({ count, rows, limit, patientId, includeViews }));
          assert.equal(sent, expected, JSON.stringify({ patientId, includeViews, count, limit }));
          assert.ok(sent.includes(`action="/patients/${patientId}/#historial"`));
          seen.add(sent);
        }
      }
    }
  }
  assert.equal(seen.size, 3 * 2 * 5, 'each patient, scope and shape its own section');
});
