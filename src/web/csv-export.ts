import type { FastifyReply } from 'fastify';
import { contentDisposition, csvChunks, csvStream, type CsvDownload } from '../shared/csv.js';

/** Streams a CSV download: the BOM and heading, then its pages as they are read (the export's action audits it). */
export function sendCsvExport(reply: FastifyReply, download: CsvDownload): FastifyReply {
  return reply
    .code(200)
    .type('text/csv; charset=utf-8')
    .header('Content-Disposition', contentDisposition(download.fileName))
    .send(csvStream(csvChunks(download.header, download.pages)));
}
