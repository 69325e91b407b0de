import type { FastifyInstance } from 'fastify';
import { actionContext } from '../web/action-context.js';
import { sendCsvExport } from '../web/csv-export.js';
import { requireAdmin } from '../web/guard.js';
import { exportUsers } from './users.export.js';

/** /users/export.csv (administrators): the users' list as CSV. */
export async function usersExportRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.deps;
  app.get('/users/export.csv', { preHandler: requireAdmin }, async (request, reply) =>
    sendCsvExport(reply, exportUsers(actionContext(request), config.timeZone)),
  );
}
