// The list pages' search: one page of the patients matching a search, in list order, and how many match
// (/patients/, /exams/ and the follow page of ingresos/ share it). Nothing here imports ingresos/: the month of the
// program and each row's mes_capita are added by patient.capita-list.repository.ts.

import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import { pageOf } from '../shared/paging.js';
import { searchWords } from './patient.rules.js';
import { ftsMatches, isSqlite, likes, wordMatch, type ActiveRange } from './patient.search.repository.js';

/** Patients per list page (spec: 10 patients per page). */
export const PAGE_SIZE = 10;

export interface ListSearch {
  query?: string;
  onlyActive: boolean;
  /** Only the patients whose ACTIVO Ingreso started in this range (a mes_filtro); implies active. */
  activeRange?: ActiveRange | null;
  page: number;
  /** Tests only: the most entries the order index may be walked (default WALK_FACTOR × the matches), to force one page plan or the other. */
  walkBudget?: number;
  /** Tests only: the most matches read at once in list order (default FEW_MATCHES; 0 counts and pages apart). */
  fewMatches?: number;
}

export interface ListedPatient {
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
}

export interface ListPage<Row = ListedPatient> {
  rows: Row[];
  total: number;
  /** The page actually shown: 1..pageCount. */
  page: number;
  /** At least 1, also when nothing matches. */
  pageCount: number;
}

// ---------------------------------------------------------------------------------------------------------
// findListPage: the count first (from the counters of migration 0020, or counted), then one statement for
// the page, whose plan is chosen from the count (decision 0011). The list pages that show it are kept whole
// (src/platform/pages/page-cache.ts), so a search is computed once per version of the patients.

/**
 * Walk the order index when the entries to walk are at most WALK_FACTOR × the matches. Where the walk reads a
 * row per entry (every patient, a calendar month), an entry costs about what a match of the search index does.
 * The active list's walk reads the text from its index's entries (migration 0440): on SQLite an entry costs about
 * a fifth of a match looked up and sorted (0.14 against 0.5–0.8 µs at 100,000 patients, decision 0170).
 */
const WALK_FACTOR = 1;
const WALK_FACTOR_COVERED_SQLITE = 4;
/**
 * An active list's search with at most this many matches returns them all, in list order, with its count
 * (the page a slice of them); past it the count alone comes back and the page is read apart.
 */
const FEW_MATCHES = 1000;
/** Active patients per month range, from patient_active_counts ('YYYY-MM' keys compare as the dates do). */
async function countActive(db: Executor, month: { eq?: string; from?: string; to?: string }): Promise<number> {
  let q = db.selectFrom('patient_active_counts').select(sql<number>`cast(coalesce(sum(n), 0) as integer)`.as('n'));
  if (month.eq !== undefined) q = q.where('mes', '=', month.eq);
  if (month.from !== undefined) q = q.where('mes', '>=', month.from);
  if (month.to !== undefined) q = q.where('mes', '<', month.to);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** Every patient, from patient_total (kept by triggers, migration 0340) instead of a scan of an index of them all. */
async function countAll(db: Executor): Promise<number> {
  const row = await db.selectFrom('patient_total').select(sql<number>`cast(coalesce(sum(n), 0) as integer)`.as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

const monthOf = (date: string) => date.slice(0, 7);

/**
 * Active (or all) patients matching the search, ordered by apellido, nombre (accents and case ignored), id;
 * one page of PAGE_SIZE and the total.
 *
 * The total: without a search, the active patients (all months or one mes_filtro) are summed from
 * patient_active_counts (kept by triggers); with a search it is counted on the search index (FTS5 trigram on
 * SQLite, pg_trgm on PostgreSQL). The page: when the matches are
 * dense enough that walking the list-order index and filtering the text reaches the page within WALK_FACTOR ×
 * the matches, that walk (from the nearer end); otherwise the matches come from the search index and only they are
 * sorted. mes_filtro 2..17 is one calendar month: its own index in list order (patients_active_month_order_idx).
 */
export async function findListPage(db: Executor, s: ListSearch): Promise<ListPage> {
  const sqlite = isSqlite(db);
  const words = searchWords(s.query ?? '');
  const searching = words.length > 0;
  const range = s.activeRange ?? null;
  const active = s.onlyActive || range !== null;
  // One calendar month (mes_filtro 2..17): both bounds, one month apart.
  const month = range?.from && range.to ? monthOf(range.from) : null;
  const monthRange = month !== null ? { eq: month } : { from: range?.from ? monthOf(range.from) : undefined, to: range?.to ? monthOf(range.to) : undefined };

  // Conditions on `q` (patients), shared by the count and the page.
  const conditions: RawBuilder<unknown>[] = [];
  if (active) conditions.push(sql`q.activo_desde is not null`);
  if (month !== null) conditions.push(sql`substr(q.activo_desde, 1, 7) = ${month}`);
  else {
    if (range?.from) conditions.push(sql`q.activo_desde >= ${range.from}`);
    if (range?.to) conditions.push(sql`q.activo_desde < ${range.to}`);
  }
  const match = wordMatch(db, words);
  const { fts, indexable } = match;
  // Every word, for a walk of the order index and where no FTS5 query serves (PostgreSQL, or only short words).
  const like = sql.join(likes('q', words), sql` and `);
  // SQLite: the matches from the FTS5 index, then the short words checked over them.
  const indexMatch = fts !== null ? sql.join([ftsMatches('q', fts), ...likes('q', match.likeWords)], sql` and `) : like;
  const whereOf = (extra: RawBuilder<unknown> | null) => {
    const all = extra ? [...conditions, extra] : conditions;
    return all.length ? sql`where ${sql.join(all, sql` and `)}` : sql``;
  };

  // No search, no month: the list of every active patient (or every patient) starts from its nearest block.
  if (!searching && range === null) return blockPage(db, active, s.page);

  // A search of the active patients: its matches read once from the search index (in a materialized CTE)
  // give the count and, when they are few (most searches of a name and a surname, or of a documento), every
  // match's id in list order, of which the page is a slice: one pass over the search index instead of two (the
  // count, then the page). Past FEW_MATCHES only the count comes back, and the page is read below.
  let counted: number | null = null;
  const few = s.fewMatches ?? FEW_MATCHES;
  if (indexable && active) {
    const byId = match.likeWords.length === 0 ? sql` indexed by patients_active_id_order_idx` : sql``;
    // SQLite: from the FTS5 matches (the short words checked over them); PostgreSQL: every word's LIKE, which the
    // planner serves from the trigram index.
    const matches =
      fts !== null
        ? sql`from patients_fts as f cross join patients as q${byId}
          where patients_fts match ${fts} and q.id = f.rowid and ${sql.join([...conditions, ...likes('q', match.likeWords)], sql` and `)}`
        : sql`from patients as q where ${sql.join([...conditions, ...likes('q', words)], sql` and `)}`;
    const { rows: matched } = await sql<{ n: number | string | null; id: number | null }>`with m as materialized (
        select q.id, q.apellido_norm as a, q.nombre_norm as b ${matches}),
      c as (select count(*) as n from m)
      select 0 as k, c.n as n, null as id, null as a, null as b from c
      union all select 1, null, m.id, m.a, m.b from m where (select n from c) <= ${few}
      order by k, a, b, id`.execute(db);
    counted = Number(matched[0]?.n ?? 0);
    if (counted <= few) {
      const total = counted;
      const { page, pageCount, offset } = pageOf(s.page, total, PAGE_SIZE);
      const ids = matched.slice(1 + offset, 1 + offset + PAGE_SIZE).map((r) => Number(r.id));
      if (ids.length === 0) return { rows: [], total, page, pageCount };
      return { rows: await pageRows(db, sql`select q.id from patients as q where q.id in (${sql.join(ids)})`), total, page, pageCount };
    }
  }

  // How many patients the list walks through without a search (the scope), and how many match.
  const scope = active ? await countActive(db, monthRange) : await countAll(db);
  // The matches counted where the read above did not (the lists of every patient, or only words too short for
  // the trigram index): on SQLite from FTS5 alone when every word is in its query, else each FTS5 match's row
  // checked for the short words; by LIKE where no FTS5 query serves.
  const ftsCount = (extra: RawBuilder<unknown>[]) =>
    sql`select cast(count(*) as integer) as n from patients_fts as f cross join patients as q
      where patients_fts match ${fts} and q.id = f.rowid and ${sql.join(extra, sql` and `)}`;
  const countQuery =
    fts === null
      ? sql`select cast(count(*) as integer) as n from patients as q ${whereOf(like)}`
      : match.likeWords.length > 0 || conditions.length > 0
        ? ftsCount([...conditions, ...likes('q', match.likeWords)])
        : sql`select cast(count(*) as integer) as n from patients_fts where patients_fts match ${fts}`;
  const total = !searching ? scope : (counted ?? Number((await sql<{ n: number }>`${countQuery}`.execute(db)).rows[0]?.n ?? 0));

  const { page, pageCount, offset, size } = pageOf(s.page, total, PAGE_SIZE);
  if (size <= 0) return { rows: [], total, page, pageCount };

  // Past the middle, read from the end: no page reads more than half of the list.
  const fromEnd = offset > total / 2;
  const dir = sql.raw(fromEnd ? 'desc' : 'asc');
  const skip = fromEnd ? total - offset - size : offset;
  // Entries of the order index walked to reach the page when the matches are spread evenly over it.
  const walked = !searching ? skip + size : ((skip + size) * Math.max(scope, 1)) / Math.max(total, 1);
  // The active list's walk of a search reads the text from its index (migration 0440), not from the rows.
  const covered = searching && active && month === null;
  const factor = covered && sqlite ? WALK_FACTOR_COVERED_SQLITE : WALK_FACTOR;
  const walk = !searching || !indexable || walked <= (s.walkBudget ?? factor * total);

  const orderIndex = !active
    ? 'patients_order_idx'
    : month !== null
      ? 'patients_active_month_order_idx'
      : covered
        ? 'patients_active_order_text_idx'
        : 'patients_active_order_idx';
  let pageIds: RawBuilder<unknown>;
  if (walk) {
    const forced = sqlite ? sql.raw(` indexed by ${orderIndex}`) : sql``;
    pageIds = sql`select q.id from patients as q${forced} ${whereOf(searching ? like : null)}
      order by q.apellido_norm ${dir}, q.nombre_norm ${dir}, q.id ${dir} limit ${size} offset ${skip}`;
  } else if (sqlite) {
    // The matches' order columns from an index by id (migration 0440) when no short word needs the row's text.
    const byId = active && match.likeWords.length === 0 ? sql` indexed by patients_active_id_order_idx` : sql``;
    pageIds = sql`select q.id from patients as q${byId} ${whereOf(indexMatch)}
      order by q.apellido_norm ${dir}, q.nombre_norm ${dir}, q.id ${dir} limit ${size} offset ${skip}`;
  } else {
    // Few matches: take them from the trigram index first, so the planner cannot walk the order index instead.
    pageIds = sql`select q.id from patients as q
      where q.id in (select m.id from matched as m) ${conditions.length ? sql`and ${sql.join(conditions, sql` and `)}` : sql``}
      order by q.apellido_norm ${dir}, q.nombre_norm ${dir}, q.id ${dir} limit ${size} offset ${skip}`;
    pageIds = sql`with matched as materialized (select q.id from patients as q where ${like}) ${pageIds}`;
  }
  return { rows: await pageRows(db, pageIds), total, page, pageCount };
}

/**
 * A page of the list of every active patient (or every patient) without a search, from patient_list_blocks
 * (migration 0441, decision 0171): the blocks' counts give the total and the patients before each block's start;
 * the page's ids are walked from the nearest start, forwards from the block the page begins in, or backwards from
 * the start of the block after its end (or the list's end). The walk is at most half a block (~500 entries) on any
 * page, the first or the last, instead of up to half the list.
 */
async function blockPage(db: Executor, active: boolean, requested: number): Promise<ListPage> {
  const { rows: blocks } = await sql<{ start_key: string; n: number }>`
    select start_key, ${sql.raw(active ? 'n_active' : 'n_all')} as n from patient_list_blocks order by start_key`.execute(db);
  let total = 0;
  for (const b of blocks) total += Number(b.n);
  const { page, pageCount, offset, size } = pageOf(requested, total, PAGE_SIZE);
  if (size <= 0) return { rows: [], total, page, pageCount };
  // The last block start at or before the page's first row, and the first at or after its end (null: the end).
  let from = { key: '', before: 0 };
  let to: { key: string | null; before: number } = { key: null, before: total };
  let before = 0;
  for (const b of blocks) {
    if (before <= offset) from = { key: b.start_key, before };
    if (before >= offset + size) {
      to = { key: b.start_key, before };
      break;
    }
    before += Number(b.n);
  }
  const forwards = offset - from.before <= to.before - offset - size;
  const conditions: RawBuilder<unknown>[] = [];
  if (active) conditions.push(sql`q.activo_desde is not null`);
  if (forwards && from.key !== '') conditions.push(sql`q.apellido_norm >= ${from.key}`);
  if (!forwards && to.key !== null) conditions.push(sql`q.apellido_norm < ${to.key}`);
  const dir = sql.raw(forwards ? 'asc' : 'desc');
  const skip = forwards ? offset - from.before : to.before - offset - size;
  const forced = isSqlite(db) ? sql.raw(` indexed by ${active ? 'patients_active_order_idx' : 'patients_order_idx'}`) : sql``;
  const pageIds = sql`select q.id from patients as q${forced} ${conditions.length ? sql`where ${sql.join(conditions, sql` and `)}` : sql``}
    order by q.apellido_norm ${dir}, q.nombre_norm ${dir}, q.id ${dir} limit ${size} offset ${skip}`;
  return { rows: await pageRows(db, pageIds), total, page, pageCount };
}

/** The list's rows of the page's ids (a subquery of `id`s), with their ACTIVO Ingreso, in list order. */
async function pageRows(db: Executor, pageIds: RawBuilder<unknown>): Promise<ListedPatient[]> {
  // "cross join": SQLite must start from the ten ids (it would otherwise walk the whole order index of the
  // outer query to spare sorting ten rows); PostgreSQL plans it as any inner join.
  const details = await sql<ListedPatient>`
    select p.id, p.nombre, p.apellido, p.tipo_documento, p.documento, p.programa, p.entidad_salud, p.ciudad,
      p.departamento, a.id as ingreso_id, a.fecha_inicio
    from (${pageIds}) as page_ids
    cross join patients as p
    left join ingresos as a on a.paciente_id = p.id and a.estado = 'ACTIVO'
    where p.id = page_ids.id
    order by p.apellido_norm, p.nombre_norm, p.id`.execute(db);
  return details.rows.map((r) => ({
    ...r,
    ingreso_id: r.ingreso_id ?? null,
    fecha_inicio: r.fecha_inicio ?? null,
  }));
}

/**
 * A search of an active list that found nobody active: how many patients without an ACTIVO cycle (suspended,
 * finished) it matches, which Seguimiento lists (issue 29, point 8). 0 without a search or with active matches.
 */
export async function countMatchesNotActive(db: Executor, s: { query: string; found: { total: number }; mesFiltro?: number | null }): Promise<number> {
  if (s.found.total > 0 || s.query === '') return 0;
  const all = (await findListPage(db, { query: s.query, onlyActive: false, page: 1 })).total;
  // A month filter may have left out active patients of other months: they are not «sin ciclo activo».
  const active = s.mesFiltro == null ? 0 : (await findListPage(db, { query: s.query, onlyActive: true, page: 1 })).total;
  return all - active;
}
