// The audit trail's CSV export: the entries of /users/audit/'s filters, newest first, and its own 'export' entry.

import { todayOf, type ActionContext } from '../platform/writes/action-context.js';
import { EXPORT_PAGE_SIZE, keysetBatches, type CsvDownload, type CsvValue } from '../shared/csv.js';
import { formatDateTimeEs } from '../shared/dates.js';
import { auditedExport } from './audit.actions.js';
import type { ParsedAuditQuery } from './audit.filters.js';
import { changesLine, rawChangesLine, readableChanges } from './audit.format.js';
import { actionLabel } from './audit.labels.js';
import { findAuditCursor, listAuditEntries, type AuditListRow } from './audit.repository.js';
import { recordText } from './views/audit-entry.js';

export function exportAuditTrail(ctx: ActionContext, parsed: ParsedAuditQuery, timeZone: string): CsvDownload {
  const { db } = ctx;
  const auditCells = (e: AuditListRow): CsvValue[] => {
    const c = readableChanges(e.entity_type, e.changes, timeZone, undefined, e.ciclos, { id: e.user_id, username: e.username });
    return [formatDateTimeEs(e.at, timeZone), e.username, actionLabel(e.action), e.action, recordText(e), e.patient_id, changesLine(c), rawChangesLine(c), e.changes];
  };
  async function* pages() {
    const start = parsed.antes === null ? null : await findAuditCursor(db, parsed.antes);
    const all = keysetBatches<AuditListRow>((after) => listAuditEntries(db, parsed.filters, after ?? start, EXPORT_PAGE_SIZE), EXPORT_PAGE_SIZE);
    for await (const page of all) yield page.map(auditCells);
  }
  return auditedExport(ctx, {
    name: 'audit',
    fileName: `auditoria-${todayOf(ctx)}.csv`,
    filters: Object.fromEntries(Object.entries(parsed.values).filter(([, v]) => v !== '')),
    header: ['fecha', 'usuario', 'accion', 'accion_codigo', 'registro', 'paciente_id', 'cambios', 'cambios_almacenados', 'cambios_json'],
    pages: pages(),
  });
}
