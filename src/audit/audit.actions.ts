// The audit trail's own use cases: how an export is audited (each feature's export action calls it).

import { inTransaction } from '../platform/writes/transaction.js';
import type { ActionContext } from '../platform/writes/action-context.js';
import type { CsvDownload, CsvPage } from '../shared/csv.js';
import { recordAudit } from './audit.repository.js';

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
    await inTransaction(ctx.db, (trx) =>
      recordAudit(trx, {
        at,
        actor: ctx.actor,
        action: 'export',
        entityType: 'export',
        changes: { exportacion: spec.name, filtros: spec.filters, filas },
        requestId: ctx.requestId ?? null,
      }),
    );
  }
  return { fileName: spec.fileName, header: spec.header, pages: counted() };
}
