import type { FastifyInstance } from 'fastify';
import { actionContext } from '../web/action-context.js';
import { sendCsvExport } from '../web/csv-export.js';
import { exportExamList, exportPatientList } from './patient.export.js';
import { parseListQuery } from './patient.schema.js';

/** CSV exports of the patient lists, registered at the root: each exports what its page shows (same filters, every page; the follow page's: ingresos/). */
export async function patientExportRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.deps;

  app.get('/patients/export.csv', async (request, reply) => {
    const { query, mesFiltro } = parseListQuery(request.query);
    return sendCsvExport(reply, exportPatientList(actionContext(request), { query, mesFiltro }));
  });

  app.get('/exams/export.csv', async (request, reply) => {
    const { query } = parseListQuery(request.query);
    return sendCsvExport(reply, exportExamList(actionContext(request), { query }));
  });
}
