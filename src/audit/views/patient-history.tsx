import type { ComponentChildren } from 'preact';
import { auditEntryKey, type HistoryRows } from '../audit.history-cache.js';
import { listAuditEntries, type AuditListRow } from '../audit.repository.js';
import type { Executor } from '../../db/database.js';
import { AuditRow, AuditRowsTable } from './audit-entry.js';
import { ContentMarker, fragmentOfParts, partsOf, renderFrame, type Fragment, type FragmentPart } from '../../web/render.js';

/**
 * A patient's history (decisions §9: each patient page shows it): the audit entries of that patient, newest
 * first, as rows (PatientHistoryCache gives the changes, kept rendered); `count` of them, at most `limit`. The
 * views of the record are left out unless `includeViews` (the "incluir consultas" filter).
 */
export function PatientHistory({
  count,
  rows,
  limit,
  patientId,
  includeViews = false,
}: {
  count: number;
  rows: ComponentChildren;
  limit?: number;
  /** the patient whose page it is: the filter's form posts there */
  patientId?: number;
  includeViews?: boolean;
}) {
  return (
    <section class="card patient-section no-print" id="historial" data-section="patient-history" aria-labelledby="historial-title">
      <h2 id="historial-title">Historial</h2>
      {patientId !== undefined && (
        <form method="get" action={`/patients/${patientId}/#historial`} class="filters history-filter no-print" novalidate>
          <div class="checkbox-field">
            <input type="checkbox" id="id_consultas" name="consultas" value="1" checked={includeViews} />
            <label for="id_consultas">Incluir consultas</label>
          </div>
          <button type="submit" class="button small">
            Aplicar
          </button>
        </form>
      )}
      <p class="muted" data-history-scope={includeViews ? 'all' : 'changes'}>
        {includeViews ? 'Cambios y consultas de la ficha.' : 'Cambios de la ficha, sus ciclos y sus exámenes. Las consultas están ocultas.'}
      </p>
      <AuditRowsTable count={count} empty={includeViews ? 'Sin registros en la auditoría.' : 'Sin cambios registrados.'}>
        {rows}
      </AuditRowsTable>
      {limit !== undefined && count >= limit && <p class="muted">Se muestran las {limit} entradas más recientes.</p>}
    </section>
  );
}

/**
 * The history section as bytes, the same as PatientHistory's render: what surrounds the rows is rendered once per
 * shape (with the views or not, empty or not, at the limit or not) and kept, cut where the patient's id goes in its
 * form's address and where the rows go. Its render on each visit was a tenth of a kept record page's CPU
 * (decision 0355).
 */
export function patientHistoryFragment({ count, rows, limit, patientId, includeViews }: { count: number; rows: ComponentChildren; limit: number; patientId: number; includeViews: boolean }): Fragment {
  const key = `${includeViews ? 'all' : 'changes'} ${count === 0 ? 'empty' : count >= limit ? 'full' : 'some'} ${limit}`;
  let frame = historyFrames.get(key);
  if (frame === undefined) {
    const [head, tail] = renderFrame(
      <PatientHistory count={count} rows={<ContentMarker />} limit={limit} patientId={PATIENT_HOLE} includeViews={includeViews} />,
      1,
    ) as [Fragment, Fragment];
    frame = { ...cutAt(head, Buffer.from(String(PATIENT_HOLE))), tail };
    historyFrames.set(key, frame);
  }
  return fragmentOfParts([...frame.before, Buffer.from(String(patientId)), ...frame.after, ...partsOf(rows), ...frame.tail.parts]);
}

/** Stands for the patient's id in a kept frame: a number no history's markup holds otherwise. */
const PATIENT_HOLE = Number.MAX_SAFE_INTEGER;
/** At most two scopes × three shapes × the limits the pages use. */
const historyFrames = new Map<string, { before: FragmentPart[]; after: FragmentPart[]; tail: Fragment }>();

/** A fragment's parts before and after the one place `hole` stands in its bytes. */
function cutAt(fragment: Fragment, hole: Buffer): { before: FragmentPart[]; after: FragmentPart[] } {
  const found = fragment.parts.flatMap((part, i) => (part !== null && part.includes(hole) ? [i] : []));
  const at = found.length === 1 ? fragment.parts[found[0]!]!.indexOf(hole) : -1;
  if (at < 0 || fragment.parts[found[0]!]!.indexOf(hole, at + 1) >= 0) throw new Error('the history frame must hold the patient hole once');
  const i = found[0]!;
  const part = fragment.parts[i]!;
  return { before: [...fragment.parts.slice(0, i), part.subarray(0, at)], after: [part.subarray(at + hole.length), ...fragment.parts.slice(i + 1)] };
}

/**
 * The history with the views included, read per request: the latest `limit` entries of the patient, with the
 * views still queued (`pending`, newest first) on top, each entry once.
 */
export async function historyWithViews(
  db: Executor,
  patientId: number,
  limit: number,
  pending: readonly AuditListRow[],
  timeZone: string,
): Promise<HistoryRows> {
  const stored = await listAuditEntries(db, { patientId }, null, limit);
  const written = new Set(stored.map(auditEntryKey));
  const entries = [...pending.filter((r) => !written.has(auditEntryKey(r))), ...stored].slice(0, limit);
  return { count: entries.length, rows: entries.map((entry) => <AuditRow entry={entry} timeZone={timeZone} />) };
}
