// RIPS use cases: the administrator's settings, insurers and catalogue editions (each audited), the month's review
// (every patient, service and problem), and the file's generation, streamed and audited with its sha256 digest.

import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { recordAudit } from '../audit/audit.repository.js';
import { municipioCodigo } from '../patients/divipola.js';
import type { ActionContext, Actor } from '../platform/writes/action-context.js';
import { inTransaction } from '../platform/writes/transaction.js';
import type { Executor } from '../db/database.js';
import type { FieldErrors } from '../web/fields.js';
import {
  findCatalogueRow,
  findRipsSettings,
  insertCatalogueRow,
  listRipsCatalogue,
  ripsPatientsPage,
  ripsServicesOf,
  updateRipsEntidad,
  updateRipsSettings,
  type RipsPatientRow,
  type RipsPeriodQuery,
  type RipsServiceRow,
} from './rips.repository.js';
import {
  buildUsuario,
  catalogueIndex,
  DEFAULT_HORA,
  patientProblems,
  ripsOpening,
  RIPS_VERSION,
  servicioOf,
  serviceProblems,
  settingsProblems,
  type CatalogueEntry,
  type Operacion,
  type RipsPatient,
  type RipsProblem,
  type RipsSettings,
} from './rips.rules.js';
import { ripsUsuarioValidator, schemaComplaints } from './rips.schema-check.js';
import type { CatalogueEditionInput, RipsEntidadInput, RipsSettingsInput } from './rips.schema.js';

export type Message = { level: 'success' | 'info' | 'error'; text: string };

function actorOf(ctx: ActionContext): Actor {
  if (!ctx.actor) throw new Error('this action is taken by a logged-in user');
  return ctx.actor;
}

// ---------------------------------------------------------------------------------------------------------
// Settings (administrators; the routes guard them).

/** Saves the provider's settings with a `rips.settings` entry listing what changed. */
export async function saveRipsSettings(ctx: ActionContext, input: RipsSettingsInput): Promise<Message> {
  const me = actorOf(ctx);
  const now = ctx.clock.now();
  const changed = await inTransaction(ctx.db, async (trx) => {
    const before = await findRipsSettings(trx);
    const changes: Record<string, [unknown, unknown]> = {};
    for (const [k, v] of Object.entries(input)) if ((before as unknown as Record<string, unknown>)[k] !== v) changes[k] = [(before as unknown as Record<string, unknown>)[k], v];
    if (Object.keys(changes).length === 0) return false;
    await updateRipsSettings(trx, input, now.toISOString());
    await recordAudit(trx, { at: now, actor: me, action: 'rips.settings', entityType: 'rips', entityId: 1, changes, requestId: ctx.requestId });
    return true;
  });
  return changed ? { level: 'success', text: 'Se guardó la configuración del RIPS.' } : { level: 'info', text: 'La configuración no cambió.' };
}

/** Saves an insurer's name and code for the reports, with a `rips.entidad` entry. */
export async function saveRipsEntidad(ctx: ActionContext, input: RipsEntidadInput): Promise<Message> {
  const me = actorOf(ctx);
  const now = ctx.clock.now();
  await inTransaction(ctx.db, async (trx) => {
    await updateRipsEntidad(trx, input);
    await recordAudit(trx, {
      at: now,
      actor: me,
      action: 'rips.entidad',
      entityType: 'rips',
      changes: { entidad_salud: input.entidad_salud, nombre: [null, input.nombre], codigo: [null, input.codigo] },
      requestId: ctx.requestId,
    });
  });
  return { level: 'success', text: `Se guardaron los datos de ${input.entidad_salud}.` };
}

/**
 * Adds an edition of a service's codes from a date on (decision 0092): the rows before it keep answering for the
 * services given before that date. One edition per service and date: a second one is refused beside the date.
 */
export async function addCatalogueEdition(ctx: ActionContext, input: CatalogueEditionInput): Promise<{ ok: true; message: Message } | { ok: false; errors: FieldErrors }> {
  const me = actorOf(ctx);
  const now = ctx.clock.now();
  const taken: FieldErrors = { vigente_desde: 'Ese servicio ya tiene una vigencia que empieza en esa fecha: elija otra fecha.' };
  if (await findCatalogueRow(ctx.db, input.servicio, input.vigente_desde)) return { ok: false, errors: taken };
  try {
    await inTransaction(ctx.db, async (trx) => {
      const id = await insertCatalogueRow(trx, { ...input, created_at: now.toISOString(), created_by: me.id });
      await recordAudit(trx, {
        at: now,
        actor: me,
        action: 'rips.catalogue',
        entityType: 'rips',
        entityId: id,
        changes: Object.fromEntries(Object.entries(input).map(([k, v]) => [k, [null, v]])),
        requestId: ctx.requestId,
      });
    });
  } catch (err) {
    // Another administrator added the same edition meanwhile (the unique key holds it).
    if (await findCatalogueRow(ctx.db, input.servicio, input.vigente_desde)) return { ok: false, errors: taken };
    throw err;
  }
  return { ok: true, message: { level: 'success', text: `Se agregó la vigencia desde ${input.vigente_desde} de ${input.servicio}.` } };
}

// ---------------------------------------------------------------------------------------------------------
// The month: its patients, services and problems, in keyset pages.

/** Patients per page of the month's reading. */
export const RIPS_PAGE_SIZE = 500;

export interface RipsMonthInput {
  entidad: string;
  period: { start: string; end: string };
}

/** One patient of the month with its services (each with its catalogue row, if any) and its problems. */
export interface RipsPatientOfMonth {
  row: RipsPatientRow;
  patient: RipsPatient;
  services: { svc: RipsServiceRow; entry: CatalogueEntry | null }[];
  problems: RipsProblem[];
}

// Written out (not `{ ...row, cod_municipio }`): a spread copy with a key added is one of V8's slow objects.
function ripsPatientOf(row: RipsPatientRow): RipsPatient {
  return {
    id: row.id,
    tipo_documento: row.tipo_documento,
    documento: row.documento,
    tipo_usuario: row.tipo_usuario,
    fecha_nacimiento: row.fecha_nacimiento,
    genero: row.genero,
    zona: row.zona,
    cod_municipio: municipioCodigo(row.departamento, row.ciudad),
    programa: row.programa,
  };
}

/** Lets other requests in: on SQLite a keyset page would otherwise be read, checked and built in one turn. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function loadContext(db: Executor): Promise<{ settings: RipsSettings; catalogue: CatalogueEntry[] }> {
  const [settings, catalogue] = await Promise.all([findRipsSettings(db), listRipsCatalogue(db)]);
  return { settings, catalogue };
}

/** The month's patients in id order, a page at a time, each with its services and problems. */
async function* patientsOfMonth(
  db: Executor,
  input: RipsMonthInput,
  ctx: { settings: RipsSettings; catalogue: CatalogueEntry[] },
  withSchema = true,
): AsyncGenerator<RipsPatientOfMonth> {
  const q: RipsPeriodQuery = { entidad: input.entidad, ...input.period };
  const validate = await ripsUsuarioValidator();
  // With the provider's settings incomplete every usuario would fail the schema for the same reason, said once above.
  const settingsOk = withSchema && settingsProblems(ctx.settings).length === 0;
  const entryOn = catalogueIndex(ctx.catalogue);
  let after = 0;
  for (;;) {
    const rows = await ripsPatientsPage(db, q, after, RIPS_PAGE_SIZE);
    if (rows.length === 0) return;
    await nextTurn();
    const services = await ripsServicesOf(
      db,
      rows.map((r) => r.id),
      q,
      DEFAULT_HORA,
    );
    let i = 0;
    for (const [n, row] of rows.entries()) {
      // The checks and the consumer's work (the file's JSON) in turns of a hundred patients.
      if (n > 0 && n % 100 === 0) await nextTurn();
      const patient = ripsPatientOf(row);
      const mine: RipsPatientOfMonth['services'] = [];
      const problems = patientProblems(patient);
      while (i < services.length && services[i]!.paciente_id < row.id) i++;
      while (i < services.length && services[i]!.paciente_id === row.id) {
        const svc = services[i++]!;
        const entry = entryOn(servicioOf(svc), svc.fecha);
        mine.push({ svc, entry });
        problems.push(...serviceProblems(svc, patient, entry, input.period, ctx.settings));
      }
      // What the rules let through is checked against the JSON Schema too (decision 0093).
      if (settingsOk && problems.length === 0) {
        const usuario = buildUsuario(patient, mine as { svc: RipsServiceRow; entry: CatalogueEntry }[], 1, ctx.settings);
        for (const complaint of schemaComplaints(validate, usuario)) {
          problems.push({ kind: 'schema', message: `Paciente ${row.tipo_documento} ${row.documento}: el esquema del RIPS lo rechaza (${complaint}).`, href: `/patients/${row.id}/`, pacienteId: row.id });
        }
      }
      yield { row, patient, services: mine, problems };
    }
    if (rows.length < RIPS_PAGE_SIZE) return;
    after = rows[rows.length - 1]!.id;
    await nextTurn();
  }
}

/**
 * What the RIPS page shows: the first patients (all of a clinic's month: up to `shownLimit` patients and
 * `shownServices` services), counts, every problem.
 */
export interface RipsReview {
  settings: RipsSettings;
  patients: RipsPatientOfMonth[];
  patientCount: number;
  serviceCount: number;
  problems: RipsProblem[];
  /** more patients than shown */
  truncated: boolean;
}

/**
 * Reads the month for the page (nothing written). Problems are all kept; the patients shown up to `shownLimit` and
 * their services up to `shownServices` (at five services a patient, 2,000 patients made a 10,000-row table and
 * +60 MB of RSS: decision 0155).
 */
export async function reviewRipsMonth(db: Executor, input: RipsMonthInput, shownLimit = 2000, shownServices = 3000): Promise<RipsReview> {
  const context = await loadContext(db);
  const problems: RipsProblem[] = settingsProblems(context.settings);
  const patients: RipsPatientOfMonth[] = [];
  let patientCount = 0;
  let serviceCount = 0;
  let shownCount = 0;
  let shown = true;
  for await (const p of patientsOfMonth(db, input, context)) {
    patientCount++;
    serviceCount += p.services.length;
    problems.push(...p.problems);
    // The first patients only: once one does not fit, none after it is shown.
    if (shown && patients.length < shownLimit && shownCount + p.services.length <= shownServices) {
      patients.push(p);
      shownCount += p.services.length;
    } else {
      shown = false;
    }
  }
  return { settings: context.settings, patients, patientCount, serviceCount, problems, truncated: patientCount > patients.length };
}

/** A RIPS file being sent: its name and its bytes in chunks, read from disk as they are sent. */
export interface RipsDownload {
  fileName: string;
  chunks: AsyncIterable<Buffer>;
}

export interface GenerateRipsInput extends RipsMonthInput {
  mes: string;
  operacion: Operacion;
  factura: string | null;
}

/** Bytes of the file's JSON gathered before they are hashed and written out. */
const RIPS_WRITE_CHUNK = 64 * 1024;

/**
 * The file (decisions 0093, 0155): one pass over the month's keyset pages checks every patient (rules and schema)
 * and writes the file's JSON, hashed as it goes, to a temporary file, never holding the month in memory. A month
 * with any problem is refused (`{ ok: false }`, the file deleted); otherwise the file is sent from disk and its
 * `rips.generate` entry written once the last byte is out, with the digest, the counts and the query. One pass,
 * not one to check and one to write: the month is read once (half the CPU of the file at 100,000 patients).
 */
export async function generateRips(ctx: ActionContext, input: GenerateRipsInput): Promise<{ ok: true; download: RipsDownload } | { ok: false; problems: number }> {
  const { db } = ctx;
  const me = actorOf(ctx);
  const context = await loadContext(db);
  const dir = await mkdtemp(path.join(tmpdir(), 'somno-rips-'));
  const file = path.join(dir, 'rips.json');
  let sent = false;
  try {
    let problems = settingsProblems(context.settings).length;
    const hash = createHash('sha256');
    const ws = createWriteStream(file);
    const write = async (s: string) => {
      const bytes = Buffer.from(s, 'utf8');
      hash.update(bytes);
      if (!ws.write(bytes)) await once(ws, 'drain');
    };
    let usuarios = 0;
    let servicios = 0;
    let batch = ripsOpening(context.settings, input.operacion, input.factura);
    try {
      for await (const p of patientsOfMonth(db, input, context)) {
        problems += p.problems.length;
        // After the first problem the month is only counted: no file will be sent.
        if (problems > 0) continue;
        usuarios++;
        servicios += p.services.length;
        const usuario = buildUsuario(p.patient, p.services as { svc: RipsServiceRow; entry: CatalogueEntry }[], usuarios, context.settings);
        batch += (usuarios > 1 ? ',' : '') + JSON.stringify(usuario);
        if (batch.length >= RIPS_WRITE_CHUNK) {
          await write(batch);
          batch = '';
        }
      }
      if (problems === 0 && usuarios > 0) await write(`${batch}]}`);
    } finally {
      ws.end();
      await finished(ws);
    }
    if (problems > 0 || usuarios === 0) return { ok: false, problems };
    const sha256 = hash.digest('hex');
    const at = ctx.clock.now();
    const fileName = `RIPS_${context.settings.nit}_${input.factura ?? 'RS'}_${input.mes}.json`;
    async function* chunks(): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of createReadStream(file, { highWaterMark: RIPS_WRITE_CHUNK })) yield chunk as Buffer;
        await inTransaction(db, (trx) =>
          recordAudit(trx, {
            at,
            actor: me,
            action: 'rips.generate',
            entityType: 'rips',
            changes: {
              version: RIPS_VERSION,
              archivo: fileName,
              filtros: { mes: input.mes, entidad_salud: input.entidad, operacion: input.operacion, factura: input.factura },
              usuarios,
              servicios,
              sha256,
            },
            requestId: ctx.requestId ?? null,
          }),
        );
      } finally {
        // Sent, failed or abandoned by the client (the stream's destroy returns the generator): the copy goes.
        await rm(dir, { recursive: true, force: true });
      }
    }
    sent = true;
    return { ok: true, download: { fileName, chunks: chunks() } };
  } finally {
    if (!sent) await rm(dir, { recursive: true, force: true });
  }
}
