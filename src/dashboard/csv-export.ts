import type { FastifyReply, FastifyRequest } from 'fastify';
import { recordAudit } from '../audit/audit.repository.js';
import { contentDisposition, csvChunks, csvStream, type CsvPage } from '../shared/csv.js';

export interface CsvExport {
  /** what is exported, as written in the audit trail ('capita', 'patients', …) */
  name: string;
  fileName: string;
  /** the filters applied, for the audit trail */
  filters: Record<string, unknown>;
  header: readonly string[];
  /** pages of rows, one line per record and nothing else (no total line: a spreadsheet's sum of a column must stay right) */
  pages: AsyncIterable<CsvPage>;
}

/** Export pages hold patient data: let only as many rows as a database page be in flight at once. */
export const EXPORT_PAGE_SIZE = 1000;

/**
 * Streams a CSV download and writes the 'export' audit entry (which export, its filters and the number of
 * rows) once every row is out, before the download completes.
 */
export function sendCsvExport(request: FastifyRequest, reply: FastifyReply, exp: CsvExport): FastifyReply {
  const { db, clock } = request.server.deps;
  const user = request.user;
  let filas = 0;
  async function* counted(): AsyncGenerator<CsvPage> {
    for await (const page of exp.pages) {
      filas += page.length;
      yield page;
    }
  }
  async function* chunks(): AsyncGenerator<string> {
    yield* csvChunks(exp.header, counted());
    await recordAudit(db, {
      at: clock.now(),
      actor: user ? { id: user.id, username: user.username } : null,
      action: 'export',
      entityType: 'export',
      changes: { exportacion: exp.name, filtros: exp.filters, filas },
      requestId: String(request.id),
    });
  }
  return reply
    .code(200)
    .type('text/csv; charset=utf-8')
    .header('Content-Disposition', contentDisposition(exp.fileName))
    .send(csvStream(chunks()));
}
