import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { csvRow, CSV_BOM, contentDisposition } from '../shared/csv.js';
import { isDomainError } from '../shared/domain-error.js';
import { countOf } from '../shared/text.js';
import { today, type MessageLevel } from '../web/deps.js';
import { parseForm } from '../web/form.js';
import { pageContext, redirectWith, sendPage } from '../web/render.js';
import type { ConfirmOutcome } from './import.confirm.js';
import { CONFIRM_WAIT_MS, createConfirmRunner } from './import.confirm-runner.js';
import { createImportJobs } from './import.jobs.js';
import { FILE_MSG, IMPORT_BAD_FILE } from './import.errors.js';
import type { ImportSummary } from './import.plan.js';
import { templateXlsx } from './import.template.js';
import { discardUpload, findReport, findUpload, listPendingUploads, listRecentReports, lookupsFor, storeUpload, UPLOADS_PER_USER } from './import.repository.js';
import { IMPORT_FIELDS, shortFileName } from './import.rules.js';
import { confirmSchema, discardSchema } from './import.schema.js';
import { ImportPage, reportFileName, type ImportPreview, type PendingUpload } from './views/import.page.js';

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

const fmt = (n: number) => n.toLocaleString('es-CO');
const MSG = {
  noFile: 'Elija un archivo .csv o .xlsx.',
  gone: 'La vista previa ya no está disponible (ya se confirmó, se descartó o pasó más de un día). Suba el archivo de nuevo.',
  busy: `Tiene ${UPLOADS_PER_USER} importaciones a medio confirmar: termínelas o descártelas (abajo) antes de revisar otro archivo.`,
  tooBig: 'El análisis de este archivo ocupa demasiado para guardarlo. Divídalo en varios archivos.',
  discarded: (name: string) => `Se descartó la vista previa de «${name}». No se guardó nada de ella.`,
  continuing: (name: string) =>
    `La importación de «${name}» sigue en el servidor. Puede seguir trabajando: su avance está abajo y, cuando termine, ` +
    'esta página dirá el resultado.',
  interrupted: (name: string, created: number) =>
    `La importación de «${name}» se interrumpió. Se crearon ${fmt(created)} pacientes, cada uno completo; el resto no se guardó todavía: ` +
    'pulse «Continuar la importación» abajo para terminarla.',
  leftOut: (n: number, lines: readonly number[]) =>
    ` ${fmt(n)} filas no se importaron porque mientras tanto se registró un paciente con su documento o una persona parecida ` +
    `(filas ${lines.join(', ')}${n > lines.length ? '…' : ''}): revíselas y súbalas de nuevo.`,
} as const;

/**
 * /patients/import/: upload a spreadsheet (read and analysed by a worker thread; nothing written but the analysis),
 * see the preview (each row's errors and duplicates, the counts), confirm (the rows written a batch per
 * transaction). Decisions 0042, 0057, 0058, 0059. Rendered per request.
 */
export async function importRoutes(app: FastifyInstance, opts: { confirmWaitMs?: number }): Promise<void> {
  const deps = app.deps;
  const { db, clock } = deps;
  const jobs = createImportJobs({
    // Never the file's content: only why the thread ended (out of memory, a bug's message).
    onCrash: (err) => app.log.warn({ reason: err instanceof Error ? ((err as { code?: string }).code ?? err.message) : String(err) }, 'import worker thread ended'),
  });
  const confirms = createConfirmRunner({
    waitMs: opts.confirmWaitMs ?? CONFIRM_WAIT_MS,
    now: () => clock.now().getTime(),
    onInterrupted: (outcome) => {
      const err = outcome.error as { code?: unknown; message?: unknown };
      // The error's code and message only: a database error's details may hold a row's values.
      app.log.error({ code: err?.code, message: typeof err?.message === 'string' ? err.message.slice(0, 200) : undefined }, 'import interrupted');
    },
  });
  app.addHook('onClose', async () => {
    await confirms.close();
    await jobs.close();
  });
  /** What a confirm's outcome tells its person, and where. */
  const outcomeMessage = (outcome: ConfirmOutcome): { location: string; level: MessageLevel; text: string } => {
    if (outcome.kind === 'gone') return { location: '/patients/import/', level: 'error', text: MSG.gone };
    if (outcome.kind === 'interrupted') return { location: '/patients/import/', level: 'error', text: MSG.interrupted(outcome.fileName, outcome.created) };
    const skipped = outcome.total - outcome.created;
    // With rows left out, the import page: its report of them waits there to be downloaded (decision 0117).
    return {
      location: outcome.reportId === null ? '/patients/' : '/patients/import/#filas-omitidas',
      level: outcome.leftOut > 0 ? 'warning' : 'success',
      text:
        `Importación de «${outcome.fileName}»: ${countOf(outcome.created, 'paciente creado', 'pacientes creados')}, ${countOf(skipped, 'fila omitida', 'filas omitidas')}.` +
        (outcome.leftOut > 0 ? MSG.leftOut(outcome.leftOut, outcome.leftOutLines) : '') +
        (outcome.reportId === null ? '' : ' Descargue abajo las filas omitidas, cada una con su motivo, para corregirlas e importarlas de nuevo.'),
    };
  };
  const actorOf = (request: FastifyRequest) => (request.user ? { id: request.user.id, username: request.user.username } : null);
  const pendingOf = async (request: FastifyRequest): Promise<PendingUpload[]> =>
    (await listPendingUploads(db, request.user!.id)).map((u) => ({
      id: u.id,
      fileName: u.file_name,
      digest: u.digest,
      createdAt: u.created_at,
      state: u.state,
      counts: (JSON.parse(u.summary) as ImportSummary).counts,
      created: u.created,
      running: confirms.isRunning(u.id),
      includeSimilar: u.include_similar === null ? null : u.include_similar === 1,
    }));
  const render = async (request: FastifyRequest, reply: FastifyReply, opts: { error?: string; preview?: ImportPreview }, status = 200) =>
    sendPage(
      reply,
      <ImportPage
        ctx={pageContext(request, reply)}
        error={opts.error ?? null}
        preview={opts.preview ?? null}
        pending={opts.preview ? [] : await pendingOf(request)}
        reports={opts.preview ? [] : await listRecentReports(db, request.user!.id, clock.now())}
        timeZone={deps.config.timeZone}
      />,
      status,
    );

  app.get('/', async (request, reply) => {
    // What the imports that went on in the background said when they ended.
    for (const outcome of confirms.takeFinished(request.user!.id)) {
      const said = outcomeMessage(outcome);
      reply.flash(said.level, said.text);
    }
    return render(request, reply, {});
  });

  // Templates: the heading row, the specification's field names.
  app.get('/plantilla.csv', async (_request, reply) =>
    reply.type('text/csv; charset=utf-8').header('Content-Disposition', contentDisposition('plantilla-pacientes.csv')).send(CSV_BOM + csvRow([...IMPORT_FIELDS])),
  );
  app.get('/plantilla.xlsx', async (_request, reply) =>
    reply
      .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
      .header('Content-Disposition', contentDisposition('plantilla-pacientes.xlsx'))
      .send(await templateXlsx()),
  );

  // Step 1 and 2: the upload, read and analysed by the worker thread against the database; the preview. Only the
  // analysis is kept.
  app.post('/', { config: { multipart: true } }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const file = body[UPLOAD_FIELD];
    if (!isUploadedFile(file) || (file.data.length === 0 && file.filename === '')) return render(request, reply, { error: MSG.noFile }, 400);
    if (file.truncated) return render(request, reply, { error: FILE_MSG.tooBig }, 413);
    // The extension is read from the whole name; the name kept and shown is shortened, its extension kept.
    const fileName = shortFileName(file.filename);
    try {
      const result = await jobs.analyse({ fileName: file.filename, data: file.data, today: today(deps), lookups: lookupsFor(db) });
      const digest = createHash('sha256').update(file.data).digest('hex');
      const stored = await storeUpload(db, {
        userId: request.user!.id,
        fileName,
        digest,
        summary: result.summary,
        batches: result.batches,
        at: clock.now(),
        report: { header: result.reportHeader, skipped: result.skippedCsv, similar: result.similarCsv },
      });
      if (!stored.ok) return render(request, reply, { error: stored.reason === 'busy' ? MSG.busy : MSG.tooBig }, 409);
      const { kind, columns, headings, ignored, formulaIgnored, counts } = result.summary;
      return render(request, reply, {
        preview: {
          uploadId: stored.id,
          fileName,
          digest,
          read: { kind, fields: columns, headings: headings ?? columns },
          ignored,
          formulaIgnored: formulaIgnored ?? [],
          counts,
          shown: result.shown,
          replaced: stored.replaced,
        },
      });
    } catch (err) {
      if (isDomainError<{ message: string }>(err, IMPORT_BAD_FILE)) return render(request, reply, { error: err.details.message }, 400);
      throw err;
    }
  });

  // Step 3: the previewed rows written a batch per transaction, the import's own audit entry with the last. A
  // large import goes on in the background past the runner's wait (decision 0135).
  app.post('/confirm/', async (request, reply) => {
    const form = parseForm(request.body, confirmSchema);
    if (!form.ok || form.data.upload_id === null) return redirectWith(reply, '/patients/import/', 'error', MSG.gone);
    const { upload_id: uploadId, digest, incluir_posibles_duplicados: includeSimilar } = form.data;
    const upload = await findUpload(db, uploadId, request.user!.id);
    if (!upload || upload.digest !== digest || upload.state === 'preparando') return redirectWith(reply, '/patients/import/', 'error', MSG.gone);
    if (confirms.isRunning(uploadId)) return redirectWith(reply, '/patients/import/', 'info', MSG.continuing(upload.file_name));
    const input = { uploadId, userId: request.user!.id, digest, includeSimilar, actor: actorOf(request), at: clock.now(), day: today(deps), requestId: String(request.id) };
    const outcome = await confirms.run(db, input, upload);
    if (outcome.kind === 'continuing') return redirectWith(reply, '/patients/import/', 'info', MSG.continuing(outcome.fileName));
    const said = outcomeMessage(outcome);
    return redirectWith(reply, said.location, said.level, said.text);
  });

  // The rows a confirmed import left out, as the file had them with a «motivo» column: the person's own, for a day.
  app.get<{ Params: { reportId: string } }>('/omitidas/:reportId/', async (request, reply) => {
    const id = /^\d{1,10}$/.test(request.params.reportId) ? Number(request.params.reportId) : null;
    const report = id === null ? undefined : await findReport(db, id, request.user!.id, clock.now());
    if (!report) return reply.callNotFound();
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', contentDisposition(reportFileName(report.file_name)))
      .send(CSV_BOM + report.csv);
  });

  // A pending preview discarded by its person.
  app.post('/discard/', async (request, reply) => {
    const form = parseForm(request.body, discardSchema);
    if (!form.ok || form.data.upload_id === null) return redirectWith(reply, '/patients/import/', 'error', MSG.gone);
    const upload = await findUpload(db, form.data.upload_id, request.user!.id);
    if (!upload || upload.state === 'importando' || !(await discardUpload(db, upload.id, request.user!.id))) {
      return redirectWith(reply, '/patients/import/', 'error', MSG.gone);
    }
    return redirectWith(reply, '/patients/import/', 'success', MSG.discarded(upload.file_name));
  });
}
