import { formatDateTimeEs } from '../../shared/dates.js';
import { CsrfField, Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import { PREVIEW_PROBLEM_ROWS, PREVIEW_VALID_ROWS } from '../import.plan.js';
import type { ReplacedUpload } from '../import.repository.js';
import { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS, UPLOADS_PER_USER, type ImportAnalysis, type RowAnalysis, type RowStatus } from '../import.rules.js';
import type { ReportListed } from '../import.repository.js';
import { displayCell, problemText, rowProblems, type FileColumns } from '../import.report.js';
import type { UploadState } from '../import.table.js';

export { PREVIEW_PROBLEM_ROWS, PREVIEW_VALID_ROWS };

export interface ImportPreview {
  uploadId: number;
  fileName: string;
  digest: string;
  /** The columns read, under the file's own headings. */
  read: FileColumns;
  ignored: string[];
  /** Ignored columns that hold formulas. */
  formulaIgnored: string[];
  counts: ImportAnalysis['counts'];
  /** The rows shown, in file order (chosen by the analysis: import.plan.ts). */
  shown: RowAnalysis[];
  /** The person's older previews this one replaced (decision 0059). */
  replaced: ReplacedUpload[];
}

/** A preview of the person's not yet confirmed (or confirmed part-way), listed on the upload page. */
export interface PendingUpload {
  id: number;
  fileName: string;
  digest: string;
  createdAt: string;
  state: UploadState;
  counts: ImportAnalysis['counts'];
  created: number;
  /** Its import is being written by the server now (in the background, decision 0135). */
  running: boolean;
  includeSimilar: boolean | null;
}

const STATUS_LABEL: Record<RowStatus, string> = { crear: 'Se creará', revisar: 'Posible duplicado', omitir: 'Se omitirá' };
const fmt = (n: number) => n.toLocaleString('es-CO');

function UploadForm() {
  return (
    <form method="post" action="/patients/import/" enctype="multipart/form-data" class="import-form" data-import-upload="">
      <CsrfField />
      <div class="field">
        <label for="id_archivo">Archivo (.csv o .xlsx, hasta {MAX_IMPORT_BYTES / 1024 / 1024} MB y {fmt(MAX_IMPORT_ROWS)} filas)</label>
        <input id="id_archivo" type="file" name="archivo" accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" required />
      </div>
      <div class="actions">
        <button type="submit" class="button primary">
          Revisar el archivo
        </button>
      </div>
      <p id="import-progress" class="muted" role="status" hidden>
        <progress></progress> Subiendo y revisando el archivo… Un archivo grande puede tardar unos segundos.
      </p>
    </form>
  );
}

/** Why a row is left out or needs a look, in its result cell: each problem, and links to the records it names. */
function Reasons({ row, read }: { row: RowAnalysis; read: FileColumns }) {
  const problems = rowProblems(row, read);
  const d = row.documentoDuplicate;
  const ids = [...(d && 'patientId' in d ? [d.patientId] : []), ...row.similar.patientIds];
  if (problems.length === 0 && ids.length === 0) return null;
  return (
    <ul class="import-notes">
      {problems.map((p) => (
        <li class={row.status === 'omitir' ? 'error' : undefined}>{problemText(p)}</li>
      ))}
      {ids.map((id) => (
        <li>
          <a href={`/patients/${id}/`}>Ver la ficha n.º {id}</a>
        </li>
      ))}
    </ul>
  );
}

/** Every problem of the rows shown, each linked to its row: "Fila 12 · Valor cápita: Ingrese un número válido." */
function ProblemList({ preview }: { preview: ImportPreview }) {
  const items = preview.shown.filter((r) => r.status !== 'crear').flatMap((row) => rowProblems(row, preview.read).map((p) => ({ row, p })));
  if (items.length === 0) return null;
  return (
    <section class="card import-problems" aria-labelledby="import-problems-title" data-import-problems="">
      <h3 id="import-problems-title">
        {items.length === 1 ? 'Un problema encontrado' : `${fmt(items.length)} problemas encontrados`}
      </h3>
      <ul>
        {items.map(({ row, p }) => (
          <li data-problem-line={String(row.line)} data-import-status={row.status}>
            <a href={`#fila-${row.line}`}>Fila {row.line}</a> · {problemText(p)}
          </li>
        ))}
      </ul>
    </section>
  );
}

function PreviewTable({ preview }: { preview: ImportPreview }) {
  const { shown, counts, read } = preview;
  const problems = counts.revisar + counts.omitir;
  return (
    <>
      {shown.length < counts.total && (
        <p class="muted">
          Se muestran {fmt(shown.length)} de {fmt(counts.total)} filas: {problems > PREVIEW_PROBLEM_ROWS ? `las primeras ${fmt(PREVIEW_PROBLEM_ROWS)} que necesitan atención` : 'todas las que necesitan atención'}
          {' '}y {counts.crear > PREVIEW_VALID_ROWS ? `las primeras ${fmt(PREVIEW_VALID_ROWS)}` : 'todas las'} válidas.
        </p>
      )}
      {problems > 0 && counts.crear > 0 && (
        <p class="field check import-filter">
          <label>
            <input type="checkbox" id="solo-problemas" data-only-problems="" /> Mostrar solo las filas con problemas
          </label>
        </p>
      )}
      {/* A scroll area is reached by keyboard, and named (issue 29, point 9: axe, scrollable-region-focusable). */}
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Vista previa de las filas del archivo">
        <table class="table import-preview">
          <thead>
            <tr>
              <th scope="col">Fila</th>
              <th scope="col">Resultado</th>
              {read.headings.map((h) => (
                <th scope="col">{h}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((row) => (
              <tr id={`fila-${row.line}`} data-import-line={String(row.line)} data-import-status={row.status}>
                <th scope="row" data-label="Fila">
                  {row.line}
                </th>
                <td data-label="Resultado" class="import-result">
                  <span class={`import-status import-${row.status}`}>{STATUS_LABEL[row.status]}</span>
                  <Reasons row={row} read={read} />
                </td>
                {read.fields.map((field, i) => {
                  const error = row.errors[field];
                  return (
                    <td class={error ? 'cell-invalid' : undefined} data-field={field} data-label={read.headings[i]} aria-invalid={error ? 'true' : undefined}>
                      {displayCell(read, i, row.raw[i] ?? '')}
                      {error && <span class="field-error error">{error}</span>}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** The confirm form of a preview: the checkbox for possible duplicates until the first confirm has decided. */
function ConfirmForm(p: { uploadId: number; digest: string; counts: ImportAnalysis['counts']; includeSimilar: boolean | null; label: string; cancel?: boolean }) {
  const c = p.counts;
  return (
    <form method="post" action="/patients/import/confirm/" class="import-confirm">
      <CsrfField />
      <input type="hidden" name="upload_id" value={String(p.uploadId)} />
      <input type="hidden" name="digest" value={p.digest} />
      {c.revisar > 0 && p.includeSimilar === null && (
        <p class="field check">
          <label>
            <input type="checkbox" name="incluir_posibles_duplicados" value="1" /> Revisé los {fmt(c.revisar)} posibles duplicados: son otras personas,
            impórtelos también
          </label>
        </p>
      )}
      <div class="actions">
        <button type="submit" class="button primary" disabled={c.crear + c.revisar === 0}>
          {p.label}
        </button>
        {p.cancel && (
          <a href="/patients/import/" class="button">
            Cancelar
          </a>
        )}
      </div>
    </form>
  );
}

/** The person's previews not yet confirmed, or confirmed part-way (decisions 0058 and 0059). */
function Pending({ pending, timeZone }: { pending: PendingUpload[]; timeZone: string }) {
  if (pending.length === 0) return null;
  return (
    <section class="import-pending" data-import-pending="">
      <h2>Sus vistas previas sin confirmar</h2>
      <p class="muted">Se guardan un día, hasta {UPLOADS_PER_USER} por persona; una nueva reemplaza a la más antigua.</p>
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Vistas previas sin confirmar">
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Archivo</th>
              <th scope="col">Revisado</th>
              <th scope="col">Filas</th>
              <th scope="col">Estado</th>
              <th scope="col">Acciones</th>
            </tr>
          </thead>
          <tbody>
            {pending.map((u) => (
              <tr data-pending-upload={String(u.id)}>
                <td data-label="Archivo">{u.fileName}</td>
                <td data-label="Revisado">{formatDateTimeEs(u.createdAt, timeZone)}</td>
                <td data-label="Filas">
                  {fmt(u.counts.total)} ({fmt(u.counts.crear)} se crearán, {fmt(u.counts.revisar)} posibles duplicados)
                </td>
                <td data-label="Estado">
                  {u.running
                    ? `Importándose ahora: ${fmt(u.created)} de ${fmt(u.counts.crear + (u.includeSimilar ? u.counts.revisar : 0))} pacientes creados`
                    : u.state === 'importando'
                      ? `Importación a medias: ${fmt(u.created)} pacientes creados`
                      : 'Sin confirmar'}
                </td>
                <td data-label="Acciones">
                  {u.running ? (
                    <a class="button" href="/patients/import/" data-import-refresh="">
                      Ver el avance
                    </a>
                  ) : (
                    <ConfirmForm
                      uploadId={u.id}
                      digest={u.digest}
                      counts={u.counts}
                      includeSimilar={u.includeSimilar}
                      label={u.state === 'importando' ? 'Continuar la importación' : 'Confirmar la importación'}
                    />
                  )}
                  {!u.running && u.state !== 'importando' && (
                    <form method="post" action="/patients/import/discard/">
                      <CsrfField />
                      <input type="hidden" name="upload_id" value={String(u.id)} />
                      <button type="submit" class="button">
                        Descartar
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Preview({ preview }: { preview: ImportPreview }) {
  const c = preview.counts;
  return (
    <section class="import-summary" data-import-preview="">
      <h2>Vista previa de «{preview.fileName}»</h2>
      {preview.replaced.length > 0 && (
        <p class="message message-info" role="status" data-import-replaced="">
          Se descartó {preview.replaced.length === 1 ? 'su vista previa más antigua' : `sus ${preview.replaced.length} vistas previas más antiguas`} sin
          confirmar ({preview.replaced.map((r) => `«${r.file_name}»`).join(', ')}): cada persona guarda hasta {UPLOADS_PER_USER} vistas previas.
        </p>
      )}
      <p class="muted">Todavía no se ha guardado nada. Huella SHA-256 del archivo: <code>{preview.digest}</code></p>
      <ul class="import-counts">
        <li>
          Filas leídas: <strong data-count="total">{fmt(c.total)}</strong>
        </li>
        <li>
          Se crearán: <strong data-count="crear">{fmt(c.crear)}</strong>
        </li>
        <li>
          Posibles duplicados (misma fecha de nacimiento y nombre parecido): <strong data-count="revisar">{fmt(c.revisar)}</strong>
        </li>
        <li>
          Se omitirán: <strong data-count="omitir">{fmt(c.omitir)}</strong> ({fmt(c.conErrores)} con errores, {fmt(c.duplicados)} con un documento ya registrado o
          repetido)
        </li>
      </ul>
      {preview.ignored.length > 0 && (
        <p class="message message-info" data-import-ignored="">
          Columnas que no se importan (se ignoran): {preview.ignored.map((h) => `«${h}»`).join(', ')}.
          {preview.formulaIgnored.length > 0 &&
            ` ${preview.formulaIgnored.length === 1 ? 'La columna' : 'Las columnas'} ${preview.formulaIgnored.map((h) => `«${h}»`).join(', ')} ${preview.formulaIgnored.length === 1 ? 'tiene' : 'tienen'} fórmulas: no se leen, así que no impiden la importación.`}
        </p>
      )}
      {c.omitir + c.revisar > 0 && (
        <p class="muted">
          Las filas que se omitan podrá descargarlas en un CSV después de confirmar, con su motivo, para corregirlas e importarlas de nuevo.
        </p>
      )}
      <ConfirmForm uploadId={preview.uploadId} digest={preview.digest} counts={c} includeSimilar={null} label="Confirmar la importación" cancel />
      <ProblemList preview={preview} />
      <PreviewTable preview={preview} />
    </section>
  );
}

/** The name of a report's download: 'filas-omitidas-pacientes.csv' for «pacientes.xlsx». */
export function reportFileName(fileName: string): string {
  const base = fileName.replace(/\.(csv|xlsx)$/i, '');
  return `filas-omitidas-${base}.csv`;
}

/** The rows the person's recent imports left out, each report a download (decision 0117). */
function Reports({ reports, timeZone }: { reports: ReportListed[]; timeZone: string }) {
  if (reports.length === 0) return null;
  return (
    <section class="card import-reports" id="filas-omitidas" aria-labelledby="filas-omitidas-title" data-import-reports="">
      <h2 id="filas-omitidas-title">Filas omitidas de sus importaciones recientes</h2>
      <p class="muted">
        Cada archivo trae las filas como estaban en el suyo y una columna «motivo». Corríjalas, borre esa columna si quiere (se ignora) y súbalo de
        nuevo. Se guardan un día.
      </p>
      <ul>
        {reports.map((r) => (
          <li data-import-report={String(r.id)}>
            <a href={`/patients/import/omitidas/${r.id}/`} download={reportFileName(r.file_name)}>
              Descargar {r.filas === 1 ? 'la fila omitida' : `las ${fmt(r.filas)} filas omitidas`} de «{r.file_name}» (CSV)
            </a>{' '}
            <span class="muted">· importado el {formatDateTimeEs(r.created_at, timeZone)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function ImportPage(props: {
  ctx: PageContext;
  error?: string | null;
  preview?: ImportPreview | null;
  pending?: PendingUpload[];
  reports?: ReportListed[];
  timeZone: string;
}) {
  const { ctx, error, preview } = props;
  return (
    <Layout ctx={ctx} title="Importar pacientes">
      <p>
        <a href="/patients/">← Pacientes</a>
      </p>
      <h1>Importar pacientes desde una hoja de cálculo</h1>
      {error && (
        <div class="message message-error" role="alert" data-message-level="error" data-import-error="">
          {error} No se guardó nada.
        </div>
      )}
      {preview ? (
        <Preview preview={preview} />
      ) : (
        <>
          <p>
            Suba un archivo .csv (UTF-8 o Windows-1252, separado por «;» o «,», como lo guarda Excel) o .xlsx. La primera fila lleva los nombres de las
            columnas: los del formulario de paciente (<code>nombre</code>, <code>fecha_nacimiento</code>…) o sus títulos en español («Fecha de
            nacimiento»). Las columnas opcionales <code>fecha_inicio_programa</code> y <code>estado</code> (ACTIVO o SUSPENDIDO) abren el primer ciclo
            como lo hace el formulario. Primero verá una vista previa; nada se guarda hasta que la confirme.
          </p>
          <p>
            Plantillas: <a href="/patients/import/plantilla.csv">plantilla.csv</a> · <a href="/patients/import/plantilla.xlsx">plantilla.xlsx</a>
          </p>
          <Reports reports={props.reports ?? []} timeZone={props.timeZone} />
          <UploadForm />
          <Pending pending={props.pending ?? []} timeZone={props.timeZone} />
        </>
      )}
    </Layout>
  );
}
