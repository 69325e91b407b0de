import type { ComponentChildren } from 'preact';
import { auditEntryKey, type HistoryRows } from '../audit.history-cache.js';
import { listAuditEntries, type AuditListRow } from '../audit.repository.js';
import type { Executor } from '../../db/database.js';
import { AuditRow, AuditRowsTable } from './audit-entry.js';

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
