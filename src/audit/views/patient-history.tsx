import type { ComponentChildren } from 'preact';
import { AuditRowsTable } from './audit-entry.js';

/**
 * A patient's history (decisions §9: each patient page shows it): the audit entries of that patient, newest
 * first, as rows (PatientHistoryCache gives them, kept rendered); `count` of them, at most `limit`.
 */
export function PatientHistory({ count, rows, limit }: { count: number; rows: ComponentChildren; limit?: number }) {
  return (
    <section class="card" id="historial" data-section="patient-history">
      <h2>Historial</h2>
      <AuditRowsTable count={count} empty="Sin registros en la auditoría.">
        {rows}
      </AuditRowsTable>
      {limit !== undefined && count >= limit && <p class="muted">Se muestran las {limit} entradas más recientes.</p>}
    </section>
  );
}
