import type { FastifyInstance } from 'fastify';
import { actionContext } from '../web/action-context.js';
import { sendCsvExport } from '../web/csv-export.js';
import { requireAdmin } from '../web/guard.js';
import { pageContext, sendPage } from '../web/render.js';
import { exportAuditTrail } from './audit.export.js';
import { parseAuditQuery } from './audit.filters.js';
import { findAuditCursor, listAuditEntries, listActors } from './audit.repository.js';
import { AuditPage } from './views/audit.page.js';

export const AUDIT_PAGE_SIZE = 50;

/** Routes under /users/audit (administrators): the audit trail, read-only, and its CSV export. */
export async function auditRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.deps;
  app.addHook('preHandler', requireAdmin);

  app.get('/', async (request, reply) => {
    const parsed = parseAuditQuery(request.query, config.timeZone);
    const cursor = parsed.antes === null ? null : await findAuditCursor(db, parsed.antes);
    const [rows, users] = await Promise.all([listAuditEntries(db, parsed.filters, cursor, AUDIT_PAGE_SIZE + 1), listActors(db)]);
    const entries = rows.slice(0, AUDIT_PAGE_SIZE);
    const ctx = pageContext(request, reply);
    ctx.messages.push(...parsed.errors.map((text) => ({ level: 'warning' as const, text })));
    return sendPage(
      reply,
      <AuditPage
        ctx={ctx}
        entries={entries}
        values={parsed.values}
        users={users}
        nextCursor={rows.length > AUDIT_PAGE_SIZE ? entries[entries.length - 1]!.id : null}
        isFirstPage={cursor === null}
        timeZone={config.timeZone}
      />,
    );
  });

  // The trail with the page's filters (bad values ignored, as on the page), newest first.
  app.get('/export.csv', async (request, reply) =>
    sendCsvExport(reply, exportAuditTrail(actionContext(request), parseAuditQuery(request.query, config.timeZone), config.timeZone)),
  );
}
