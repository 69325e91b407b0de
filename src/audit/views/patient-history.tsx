import type { ComponentChildren } from 'preact';
import type { AuditListRow } from '../audit.repository.js';
import { AuditTable } from './audit-entry.js';

/**
 * A patient's history (decisions §9: each patient page shows it): the audit entries of that patient, newest
 * first. Load them with listPatientHistory(db, patientId) from audit.repository.ts.
 */
export function PatientHistory({
  entries,
  timeZone,
  limit,
  rowFor,
}: {
  entries: AuditListRow[];
  timeZone: string;
  limit?: number;
  rowFor?: (entry: AuditListRow) => ComponentChildren;
}) {
  return (
    <section class="card" id="historial" data-section="patient-history">
      <h2>Historial</h2>
      <AuditTable entries={entries} timeZone={timeZone} empty="Sin registros en la auditoría." rowFor={rowFor} />
      {limit !== undefined && entries.length >= limit && (
        <p class="muted">Se muestran las {limit} entradas más recientes.</p>
      )}
    </section>
  );
}
