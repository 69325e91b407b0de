// Helpers of the import tests: a multipart upload through the real app, and spreadsheets built in memory.
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import type { TestClient, TestContext, TestResponse } from '../helpers.js';

/** A multipart/form-data body with the given text fields and, optionally, one file. */
export function multipartBody(fields: Record<string, string>, file?: { field?: string; name: string; data: Buffer; type?: string }) {
  const boundary = `----somno${Math.random().toString(36).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'archivo'}"; filename="${file.name}"\r\nContent-Type: ${file.type ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      file.data,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Uploads a file to the import page as the browser's form does (CSRF token included unless `csrf: false`). */
export async function uploadFile(
  ctx: TestContext,
  client: TestClient,
  name: string,
  data: Buffer,
  options: { csrf?: boolean; url?: string } = {},
): Promise<TestResponse> {
  if (!client.csrfToken) await client.get('/patients/import/');
  const fields: Record<string, string> = options.csrf === false ? {} : { csrfmiddlewaretoken: client.csrfToken! };
  const { payload, contentType } = multipartBody(fields, { name, data });
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await ctx.app.inject({ method: 'POST', url: options.url ?? '/patients/import/', payload, headers: { cookie, 'content-type': contentType } });
  const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(res.body)?.[1];
  if (token) client.csrfToken = token;
  return { status: res.statusCode, headers: res.headers, body: res.body, location: res.headers.location };
}

/** The hidden fields of the preview's confirm form. */
export function confirmFields(html: string): { upload_id: string; digest: string } {
  const id = /name="upload_id" value="(\d+)"/.exec(html)?.[1];
  const digest = /name="digest" value="([0-9a-f]+)"/.exec(html)?.[1];
  if (!id || !digest) throw new Error('no confirm form in the page');
  return { upload_id: id, digest };
}

/** The count a preview shows for 'total', 'crear', 'revisar' or 'omitir'. */
export function countIn(html: string, what: 'total' | 'crear' | 'revisar' | 'omitir'): number {
  const m = new RegExp(`data-count="${what}">([\\d.]+)<`).exec(html);
  if (!m) throw new Error(`no count ${what}`);
  return Number(m[1]!.replace(/\./g, ''));
}

/** A valid row's cells by column name; override any. */
export function patientRow(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    nombre: 'Ana', apellido: 'Importada', tipo_documento: 'CC', documento: 'X1', fecha_nacimiento: '1960-01-01', genero: 'F',
    departamento: 'SANTANDER', ciudad: 'BUCARAMANGA', zona: 'URBANA', telefono: '6076000000', celular: '3001112233',
    estado_civil: 'CASADO', entidad_salud: 'ENTITY_A', estrato: '3', peso: '70,5', altura: '1,60', perimetro_abdominal: '',
    cuello: '', medico_remitente: 'Dra. Ortiz', especialidad: 'Neumología', diagnostico_clinico: 'G47.3', programa: 'PROGRAMA AOS',
    valor_capita: '', fecha_inicio_programa: '', estado: '', ...overrides,
  };
}

/** A CSV as Spanish-locale Excel writes it: ';' separated, CRLF, Windows-1252 (or UTF-8 when asked). */
export function csvFile(header: readonly string[], rows: readonly Record<string, string>[], options: { encoding?: 'win1252' | 'utf8'; keys?: readonly string[] } = {}): Buffer {
  const keys = options.keys ?? header;
  const quote = (s: string) => (/[;"\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const text = [header.map(quote).join(';'), ...rows.map((r) => keys.map((k) => quote(r[k] ?? '')).join(';'))].join('\r\n') + '\r\n';
  return options.encoding === 'utf8' ? Buffer.from(text, 'utf8') : iconv.encode(text, 'win1252');
}

/** An .xlsx with one sheet: the header, then the rows (cells may be strings, numbers or dates). */
export async function xlsxFile(header: readonly string[], rows: readonly (readonly (string | number | Date | { formula: string })[])[]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Pacientes');
  sheet.addRow([...header]);
  for (const r of rows) sheet.addRow([...r] as ExcelJS.CellValue[]);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/**
 * What a confirm's answer said, or, when the import went on in the background (decision 0135), what the import
 * page says once it has ended. `get` reads a page's HTML.
 */
export async function importOutcome(answer: string, get: (url: string) => Promise<string>): Promise<string> {
  let said = answer;
  while (said.includes('sigue en el servidor')) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const page = (await get('/patients/import/')).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    said = /Importación de «[^»]+»: .*?filas? omitidas?\.|La importación de «[^»]+» se interrumpió\./.exec(page)?.[0] ?? said;
  }
  return said;
}
