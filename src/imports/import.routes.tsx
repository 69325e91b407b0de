import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordAudit } from '../audit/audit.repository.js';
import type { Executor } from '../db/database.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { createPatientWithCycle } from '../patients/patient.create.js';
import { findPatientsByDocumentoKeys, findPeopleBornOn } from '../patients/identity.repository.js';
import { DOCUMENTO_TAKEN } from '../patients/patient.repository.js';
import { documentoKey } from '../patients/patient.rules.js';
import { csvRow, CSV_BOM, contentDisposition } from '../shared/csv.js';
import { parseIsoDate } from '../shared/dates.js';
import { today } from '../web/deps.js';
import { parseForm } from '../web/form.js';
import { pageContext, redirectWith, sendPage } from '../web/render.js';
import { isDomainError } from '../shared/domain-error.js';
import { badFile, loadExcelJs, readSpreadsheet, FILE_MSG, IMPORT_BAD_FILE, type SheetData } from './import.parse.js';
import { deleteUpload, findUpload, insertUpload } from './import.repository.js';
import { analyseRows, dayFirstToIso as dayFirst, IMPORT_FIELDS, matchHeader, type ImportAnalysis, type ImportField } from './import.rules.js';
import { confirmSchema } from './import.schema.js';
import { ImportPage, type ImportPreview } from './views/import.page.js';

/** The multipart field of the upload form; the body parser (app.ts) hands it over as an UploadedFile. */
export const UPLOAD_FIELD = 'archivo';

export interface UploadedFile {
  filename: string;
  data: Buffer;
  /** The file went past the parser's size limit: `data` is cut. */
  truncated: boolean;
}

const isUploadedFile = (v: unknown): v is UploadedFile =>
  typeof v === 'object' && v !== null && Buffer.isBuffer((v as UploadedFile).data) && typeof (v as UploadedFile).filename === 'string';

const MSG = {
  noFile: 'Elija un archivo .csv o .xlsx.',
  gone: 'La vista previa ya no está disponible (ya se confirmó o pasó más de un día). Suba el archivo de nuevo.',
  raced: 'Mientras se importaba, otra persona registró un paciente con uno de los documentos del archivo.',
} as const;

/** The analysis of a read file against what the database holds now (run again, inside the transaction, on confirm). */
async function analyse(db: Executor, sheet: SheetData, day: string): Promise<{ columns: (ImportField | null)[]; ignored: string[]; analysis: ImportAnalysis }> {
  const header = matchHeader(sheet.header);
  if (!header.ok) throw badFile(header.error);
  const docIndex = header.columns.indexOf('documento');
  const birthIndex = header.columns.indexOf('fecha_nacimiento');
  const keys = sheet.rows.map((r) => (r[docIndex] ?? '').trim()).filter((d) => d !== '').map(documentoKey);
  const dates = sheet.rows.map((r) => parseIsoDate(dayFirst(r[birthIndex] ?? '')) ?? '').filter((d) => d !== '');
  const existing = await findPatientsByDocumentoKeys(db, keys);
  const born = await findPeopleBornOn(db, dates);
  return { columns: header.columns, ignored: header.ignored, analysis: analyseRows(sheet.rows, header.columns, day, existing, born) };
}

/**
 * /patients/import/: upload a spreadsheet (nothing written), see the preview (each row's errors and duplicates,
 * the counts), confirm (the rows to create written in one transaction). Decision 0042. Rendered per request.
 */
export async function importRoutes(app: FastifyInstance): Promise<void> {
  const deps = app.deps;
  const { db, clock } = deps;
  const actorOf = (request: FastifyRequest) => (request.user ? { id: request.user.id, username: request.user.username } : null);
  const render = (request: FastifyRequest, reply: FastifyReply, opts: { error?: string; preview?: ImportPreview }, status = 200) =>
    sendPage(reply, <ImportPage ctx={pageContext(request, reply)} error={opts.error ?? null} preview={opts.preview ?? null} />, status);

  app.get('/', async (request, reply) => render(request, reply, {}));

  // Templates: the heading row, the specification's field names.
  app.get('/plantilla.csv', async (_request, reply) =>
    reply.type('text/csv; charset=utf-8').header('Content-Disposition', contentDisposition('plantilla-pacientes.csv')).send(CSV_BOM + csvRow([...IMPORT_FIELDS])),
  );
  app.get('/plantilla.xlsx', async (_request, reply) => {
    const Excel = await loadExcelJs();
    const workbook = new Excel.Workbook();
    const sheet = workbook.addWorksheet('Pacientes');
    sheet.addRow([...IMPORT_FIELDS]);
    sheet.getRow(1).font = { bold: true };
    for (const field of ['documento', 'telefono', 'celular', 'fecha_nacimiento', 'fecha_inicio_programa'] as const) {
      // Text cells: Excel would otherwise drop a documento's leading zeros or turn dates into serial numbers.
      sheet.getColumn(IMPORT_FIELDS.indexOf(field) + 1).numFmt = '@';
    }
    const buffer = Buffer.from(await workbook.xlsx.writeBuffer());
    return reply
      .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
      .header('Content-Disposition', contentDisposition('plantilla-pacientes.xlsx'))
      .send(buffer);
  });

  // Step 1 and 2: the upload, read and checked against the database; the preview. Only the upload itself is kept.
  app.post('/', { config: { multipart: true } }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const file = body[UPLOAD_FIELD];
    if (!isUploadedFile(file) || (file.data.length === 0 && file.filename === '')) return render(request, reply, { error: MSG.noFile }, 400);
    if (file.truncated) return render(request, reply, { error: FILE_MSG.tooBig }, 413);
    const fileName = file.filename.slice(0, 200) || 'archivo';
    try {
      const sheet = await readSpreadsheet(fileName, file.data);
      const { columns, ignored, analysis } = await analyse(db, sheet, today(deps));
      const digest = createHash('sha256').update(file.data).digest('hex');
      const uploadId = await insertUpload(db, { userId: request.user!.id, fileName, digest, content: file.data, at: clock.now() });
      const shown = columns.filter((c): c is ImportField => c !== null);
      return render(request, reply, { preview: { uploadId, fileName, digest, columns: shown, ignored, analysis } });
    } catch (err) {
      if (isDomainError<{ message: string }>(err, IMPORT_BAD_FILE)) return render(request, reply, { error: err.details.message }, 400);
      throw err;
    }
  });

  // Step 3: the rows to create, written in one transaction with one audit entry for the import and one per patient.
  app.post('/confirm/', async (request, reply) => {
    const form = parseForm(request.body, confirmSchema);
    if (!form.ok || form.data.upload_id === null) return redirectWith(reply, '/patients/import/', 'error', MSG.gone);
    const { upload_id: uploadId, digest, incluir_posibles_duplicados: includeSimilar } = form.data;
    const upload = await findUpload(db, uploadId, request.user!.id);
    if (!upload || upload.digest !== digest) return redirectWith(reply, '/patients/import/', 'error', MSG.gone);
    const at = clock.now();
    const day = today(deps);
    let result: { created: number; counts: ImportAnalysis['counts'] } | null;
    try {
      const sheet = await readSpreadsheet(upload.file_name, upload.content);
      result = await inTransaction(db, async (trx) => {
        if (!(await deleteUpload(trx, upload.id))) return null;
        const { analysis } = await analyse(trx, sheet, day);
        let created = 0;
        const importDetails = { importacion: [null, { archivo: upload.file_name, sha256: upload.digest }] };
        for (const row of analysis.rows) {
          if (row.patient === null || row.status === 'omitir' || (row.status === 'revisar' && !includeSimilar)) continue;
          await createPatientWithCycle(trx, {
            patient: row.patient,
            fechaInicio: row.fechaInicio ?? day,
            estado: row.estado,
            actor: actorOf(request),
            at,
            requestId: String(request.id),
            auditDetails: row.status === 'revisar' ? { ...importDetails, otra_persona_confirmada: [null, row.similar.patientIds] } : importDetails,
          });
          created++;
        }
        await recordAudit(trx, {
          at,
          actor: actorOf(request),
          action: 'patient.import',
          entityType: 'import',
          changes: {
            archivo: upload.file_name,
            sha256: upload.digest,
            filas: analysis.counts.total,
            creados: created,
            omitidos: analysis.counts.total - created,
            con_errores: analysis.counts.conErrores,
            documentos_repetidos: analysis.counts.duplicados,
            posibles_duplicados: analysis.counts.revisar,
            posibles_duplicados_importados: includeSimilar,
          },
          requestId: String(request.id),
        });
        return { created, counts: analysis.counts };
      });
    } catch (err) {
      if (isDomainError<{ message: string }>(err, IMPORT_BAD_FILE)) return redirectWith(reply, '/patients/import/', 'error', `${err.details.message} No se guardó nada.`);
      if (isDomainError(err, DOCUMENTO_TAKEN)) return redirectWith(reply, '/patients/import/', 'error', `${MSG.raced} No se guardó nada: suba el archivo de nuevo.`);
      throw err;
    }
    if (result === null) return redirectWith(reply, '/patients/import/', 'error', MSG.gone);
    const skipped = result.counts.total - result.created;
    return redirectWith(
      reply,
      '/patients/',
      'success',
      `Importación de «${upload.file_name}»: ${result.created.toLocaleString('es-CO')} pacientes creados, ${skipped.toLocaleString('es-CO')} filas omitidas.`,
    );
  });
}
