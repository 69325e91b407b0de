// How a list search's words match a patient (decision 0070), as SQL fragments: FTS5 and LIKE on SQLite, LIKE served
// by pg_trgm on PostgreSQL. The list pages (patient.list.repository.ts) and the exports (patient.export.repository.ts)
// build on them. Nothing here imports ingresos/: the follow page there reads the lists through these modules.

import { expressionBuilder, PostgresAdapter, sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { Database, Executor } from '../db/database.js';
import { searchWords } from './patient.rules.js';

/**
 * The dates an active list keeps its patients' ACTIVO Ingreso start (activo_desde) between, `to` excluded: a month
 * of the program (mes_filtro, whose dates the Ingreso's rules give: mesFiltroRange). null on a side: no bound.
 */
export interface ActiveRange {
  from: string | null;
  to: string | null;
}

/** `%`, `_` and the escape character itself, escaped for `LIKE … ESCAPE '\'`. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A literal FTS5 phrase: the text in double quotes, inner quotes doubled. */
export function ftsPhrase(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** The FTS5 trigram tokenizer cannot match fewer than three characters; shorter words use LIKE. */
const FTS_MIN_CHARS = 3;

/**
 * How the words of a search are matched (decision 0070). Every word must be found in search_text, in any order.
 * SQLite: the words of three characters or more as one FTS5 query (quoted phrases ANDed), the shorter ones by LIKE
 * over its matches; when every word is shorter, LIKE alone. PostgreSQL: one LIKE a word, all served by the pg_trgm
 * index.
 */
export interface WordMatch {
  /** SQLite: the FTS5 query of the long words, or null when no word is long enough (and on PostgreSQL). */
  fts: string | null;
  /** The words matched by LIKE: every word without `fts`, else those FTS5 cannot match (checked over its matches). */
  likeWords: string[];
  /** Some word is long enough for a trigram index. */
  indexable: boolean;
}

export function wordMatch(db: Executor, words: readonly string[]): WordMatch {
  const long = words.filter((w) => [...w].length >= FTS_MIN_CHARS);
  const fts = isSqlite(db) && long.length > 0 ? long.map(ftsPhrase).join(' AND ') : null;
  return { fts, likeWords: fts === null ? [...words] : words.filter((w) => [...w].length < FTS_MIN_CHARS), indexable: long.length > 0 };
}

/** Each word a literal substring of `<alias>.search_text` (`%` and `_` escaped). */
export function likes(alias: string, words: readonly string[]): RawBuilder<SqlBool>[] {
  const column = sql.ref(`${alias}.search_text`);
  return words.map((w) => sql<SqlBool>`${column} like ${`%${escapeLike(w)}%`} escape '\\'`);
}

/** The patients among the FTS5 matches of `fts` (SQLite), as a condition on `<alias>.id`. */
export const ftsMatches = (alias: string, fts: string): RawBuilder<SqlBool> =>
  sql<SqlBool>`${sql.ref(`${alias}.id`)} in (select rowid from patients_fts where patients_fts match ${fts})`;

/**
 * The condition of the patient lists (and their exports) on `patients as p`: every word of the search in the
 * normalised search_text (wordMatch), "only active" and the active range on activo_desde (the ACTIVO Ingreso's
 * fecha_inicio). A range implies active.
 */
export function patientListFilter(db: Executor, s: { query?: string; onlyActive: boolean; activeRange?: ActiveRange | null }): Expression<SqlBool> {
  const eb = expressionBuilder<{ p: Database['patients'] }, 'p'>();
  const conditions: Expression<SqlBool>[] = [];
  const match = wordMatch(db, searchWords(s.query ?? ''));
  if (match.fts !== null) conditions.push(ftsMatches('p', match.fts));
  conditions.push(...likes('p', match.likeWords));
  const range = s.activeRange ?? null;
  if (s.onlyActive || range !== null) conditions.push(eb('p.activo_desde', 'is not', null));
  if (range?.from) conditions.push(eb('p.activo_desde', '>=', range.from));
  if (range?.to) conditions.push(eb('p.activo_desde', '<', range.to));
  return eb.and(conditions);
}

export function isSqlite(db: Executor): boolean {
  return !(db.getExecutor().adapter instanceof PostgresAdapter);
}
