// The audit trail's own use cases: how an export is audited (each feature's export action calls it, and the FHIR
// exports).

import type { ActionContext } from '../platform/writes/action-context.js';
import type { CsvDownload, CsvPage } from '../shared/csv.js';
import { recordAuditAlone } from './audit.repository.js';

export interface ExportSpec extends CsvDownload {
  /** what is exported, as written in the audit trail ('capita', 'patients', …) */
  name: string;
  /** the filters applied, for the audit trail */
  filters: Record<string, unknown>;
}

/**
 * The download of an export whose 'export' audit entry (which export, its filters and the number of rows) is
 * written once every row is out, before the download completes.
 */
export function auditedExport(ctx: ActionContext, spec: ExportSpec): CsvDownload {
  const at = ctx.clock.now();
  async function* counted(): AsyncGenerator<CsvPage> {
    let filas = 0;
    for await (const page of spec.pages) {
      filas += page.length;
      yield page;
    }
    await recordExport(ctx, { exportacion: spec.name, filtros: spec.filters, filas }, { at });
  }
  return { fileName: spec.fileName, header: spec.header, pages: counted() };
}

/**
 * An export's entry in the trail (`changes`: which export and what it held), in a transaction of its own: the CSV
 * downloads above and the FHIR exports write it the same way. `at`: when the export began (now by default).
 */
export function recordExport(ctx: ActionContext, changes: Record<string, unknown>, { at = ctx.clock.now(), patientId = null }: { at?: Date; patientId?: number | null } = {}): Promise<void> {
  return recordAuditAlone(ctx.db, { at, actor: ctx.actor, action: 'export', entityType: 'export', patientId, changes, requestId: ctx.requestId ?? null });
}
