// Every SQL statement of the patient record: lookups, the shared list/search query, insert and update.

import { expressionBuilder, PostgresAdapter, sql, type Expression, type SqlBool } from 'kysely';
import type { Database, Executor } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { mesCapita, mesFiltroRange } from '../ingresos/ingreso.rules.js';
import { normalizeForSearch } from '../shared/text.js';
import type { NewPatientRow, PatientRow, PatientUpdate } from './patient.table.js';

/** Patients per list page (spec: 10 patients per page). */
export const PAGE_SIZE = 10;

/** Another patient already holds this documento (case ignored); also raised when the database refuses a race. */
export class DocumentoTakenError extends Error {
  override name = 'DocumentoTakenError';
}

export async function findPatientById(db: Executor, id: number): Promise<PatientRow | undefined> {
  return db.selectFrom('patients').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Whether another patient (not `exceptId`) already has this documento_key. */
export async function isDocumentoKeyTaken(db: Executor, documentoKey: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom('patients').select('id').where('documento_key', '=', documentoKey);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Inserts a patient (derived columns included by the caller); DocumentoTakenError on a duplicate key. */
export async function insertPatient(db: Executor, row: NewPatientRow): Promise<number> {
  try {
    const inserted = await db.insertInto('patients').values(row).returning('id').executeTakeFirstOrThrow();
    return inserted.id;
  } catch (err) {
    if (isUniqueViolation(err)) throw new DocumentoTakenError();
    throw err;
  }
}

/** Updates a patient; DocumentoTakenError when the new documento_key belongs to someone else. */
export async function updatePatient(db: Executor, id: number, changes: PatientUpdate): Promise<void> {
  try {
    await db.updateTable('patients').set(changes).where('id', '=', id).execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw new DocumentoTakenError();
    throw err;
  }
}

/** Moves the start date of the patient's ACTIVO Ingreso; returns its id and previous date, or null when none. */
export async function setActiveIngresoFechaInicio(
  db: Executor,
  pacienteId: number,
  fechaInicio: string,
  now: string,
): Promise<{ id: number; before: string } | null> {
  const current = await db
    .selectFrom('ingresos')
    .select(['id', 'fecha_inicio'])
    .where('paciente_id', '=', pacienteId)
    .where('estado', '=', 'ACTIVO')
    .executeTakeFirst();
  if (!current) return null;
  if (current.fecha_inicio !== fechaInicio) {
    await db
      .updateTable('ingresos')
      .set({ fecha_inicio: fechaInicio, updated_at: now })
      .where('id', '=', current.id)
      .where('estado', '=', 'ACTIVO')
      .execute();
  }
  return { id: current.id, before: current.fecha_inicio };
}

// ---------------------------------------------------------------------------------------------------------
// Lists: /patients/ (active only), /patients/follow (all), /exams/ (active only) share this one query.

export interface PatientSearch {
  query?: string;
  mesFiltro?: number | null;
  onlyActive: boolean;
  page: number;
  today: string;
}

export interface PatientListRow {
  id: number;
  nombre: string;
  apellido: string;
  tipo_documento: string;
  documento: string;
  programa: string;
  entidad_salud: string;
  ciudad: string;
  departamento: string;
  /** The ACTIVO Ingreso's id, or null when the patient has none. */
  ingreso_id: number | null;
  /** The ACTIVO Ingreso's fecha_inicio, or null. */
  fecha_inicio: string | null;
  /** mes_capita of the ACTIVO Ingreso (1..18), or null when there is none. */
  mes_capita: number | null;
}

export interface PatientSearchResult {
  rows: PatientListRow[];
  total: number;
  /** The page actually shown: 1..pageCount. */
  page: number;
  /** At least 1, also when nothing matches. */
  pageCount: number;
}

/** `%`, `_` and the escape character itself, escaped for `LIKE … ESCAPE '\'`. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A literal FTS5 phrase: the text in double quotes, inner quotes doubled. */
export function ftsPhrase(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** The FTS5 trigram tokenizer cannot match fewer than three characters; shorter queries use LIKE. */
const FTS_MIN_CHARS = 3;

/**
 * The condition of the patient lists (and their exports) on `patients as p`: the search on the normalised
 * search_text (FTS5 trigram on SQLite for 3+ characters, LIKE otherwise, pg_trgm on PostgreSQL), "only active"
 * and mes_filtro as ranges on activo_desde (the ACTIVO Ingreso's fecha_inicio). A mes_filtro implies active.
 */
export function patientListFilter(
  db: Executor,
  s: { query?: string; mesFiltro?: number | null; onlyActive: boolean; today: string },
): Expression<SqlBool> {
  const eb = expressionBuilder<{ p: Database['patients'] }, 'p'>();
  const conditions: Expression<SqlBool>[] = [];
  const needle = normalizeForSearch(s.query ?? '');
  if (needle !== '') {
    conditions.push(
      isSqlite(db) && [...needle].length >= FTS_MIN_CHARS
        ? sql<SqlBool>`p.id in (select rowid from patients_fts where patients_fts match ${ftsPhrase(needle)})`
        : sql<SqlBool>`p.search_text like ${`%${escapeLike(needle)}%`} escape '\\'`,
    );
  }
  const range = s.mesFiltro != null ? mesFiltroRange(s.mesFiltro, s.today) : null;
  if (s.onlyActive || range !== null) conditions.push(eb('p.activo_desde', 'is not', null));
  if (range?.from) conditions.push(eb('p.activo_desde', '>=', range.from));
  if (range?.to) conditions.push(eb('p.activo_desde', '<', range.to));
  return eb.and(conditions);
}

/**
 * Active (or all) patients matching the search, ordered by apellido, nombre (accents and case ignored), id;
 * one page of PAGE_SIZE and the total. Everything runs in SQL on indexes: the normalized search_text (FTS5
 * trigram on SQLite, pg_trgm on PostgreSQL), and patients.activo_desde (the ACTIVO Ingreso's fecha_inicio,
 * kept by triggers) with its partial indexes for "only active", mes_filtro and the order. The page is read as
 * ids from the order index first (walked from the nearer end), then those ten rows with their Ingreso.
 */
export async function searchPatients(db: Executor, s: PatientSearch): Promise<PatientSearchResult> {
  const filtered = () => db.selectFrom('patients as p').where(patientListFilter(db, s));

  const counted = await filtered().select(sql<number>`cast(count(*) as integer)`.as('n')).executeTakeFirstOrThrow();
  const total = Number(counted.n);
  const pageCount = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const page = Math.min(Math.max(1, Math.trunc(Number.isFinite(s.page) ? s.page : 1)), pageCount);
  const offset = (page - 1) * PAGE_SIZE;
  const size = Math.min(PAGE_SIZE, total - offset);
  if (size <= 0) return { rows: [], total, page, pageCount };

  // Past the middle, walk the index from the end: no page reads more than half of the list.
  const fromEnd = offset > total / 2;
  const dir = fromEnd ? 'desc' : 'asc';
  const idRows = await filtered()
    .select('p.id')
    .orderBy('p.apellido_norm', dir)
    .orderBy('p.nombre_norm', dir)
    .orderBy('p.id', dir)
    .limit(size)
    .offset(fromEnd ? total - offset - size : offset)
    .execute();
  const ids = idRows.map((r) => r.id);
  if (fromEnd) ids.reverse();
  if (ids.length === 0) return { rows: [], total, page, pageCount };

  const details = await db
    .selectFrom('patients as p')
    .leftJoin('ingresos as a', (join) => join.onRef('a.paciente_id', '=', 'p.id').on('a.estado', '=', 'ACTIVO'))
    .select([
      'p.id',
      'p.nombre',
      'p.apellido',
      'p.tipo_documento',
      'p.documento',
      'p.programa',
      'p.entidad_salud',
      'p.ciudad',
      'p.departamento',
      'a.id as ingreso_id',
      'a.fecha_inicio',
    ])
    .where('p.id', 'in', ids)
    .execute();
  const byId = new Map(details.map((r) => [r.id, r]));
  const rows: PatientListRow[] = [];
  for (const id of ids) {
    const r = byId.get(id);
    if (!r) continue; // deleted between the two reads
    rows.push({
      ...r,
      ingreso_id: r.ingreso_id ?? null,
      fecha_inicio: r.fecha_inicio ?? null,
      mes_capita: r.fecha_inicio ? mesCapita(r.fecha_inicio, s.today) : null,
    });
  }
  return { rows, total, page, pageCount };
}

function isSqlite(db: Executor): boolean {
  return !(db.getExecutor().adapter instanceof PostgresAdapter);
}
