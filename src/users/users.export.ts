// The users' CSV export (administrators): every user, by id, and its 'export' audit entry.

import { auditedExport } from '../audit/audit.actions.js';
import { todayOf, type ActionContext } from '../platform/writes/action-context.js';
import { EXPORT_PAGE_SIZE, keysetBatches, type CsvDownload } from '../shared/csv.js';
import { formatDateTimeEs } from '../shared/dates.js';
import { listUsersPage, type UserListRow } from './user-admin.repository.js';

export function exportUsers(ctx: ActionContext, timeZone: string): CsvDownload {
  const { db } = ctx;
  async function* pages() {
    for await (const page of keysetBatches<UserListRow>((after) => listUsersPage(db, after?.id ?? 0, EXPORT_PAGE_SIZE), EXPORT_PAGE_SIZE)) {
      yield page.map((u) => [
        u.username,
        u.is_admin === 1 ? 'Sí' : 'No',
        u.is_active === 1 ? 'Sí' : 'No',
        u.last_login_at ? formatDateTimeEs(u.last_login_at, timeZone) : null,
        formatDateTimeEs(u.created_at, timeZone),
      ]);
    }
  }
  return auditedExport(ctx, {
    name: 'users',
    fileName: `usuarios-${todayOf(ctx)}.csv`,
    filters: {},
    header: ['usuario', 'administrador', 'activo', 'ultimo_ingreso', 'creado'],
    pages: pages(),
  });
}
