import { sql, type Kysely, type RawBuilder } from 'kysely';
import { isPostgres } from './util.js';

// A documento stored as typed before keys became canonical (migration 0040: '88.123.4', '88 1234') is found by its
// key too: its search text gets the key, lower-cased, at the end, as patientDerivedColumns now writes it for such a
// row (decision 0050). The lists search a documento typed with separators by its canonical form, so without this
// such a row would be found neither by '881234' nor by '88.123.4'. Rows stored canonical (every row written since
// 0040) are left as they are. A key of a collision ('881234#17') is taken without its suffix.

/** The canonical documento of the row: its key without a collision's '#<id>' suffix. */
const canonicalOf = (db: Kysely<unknown>): RawBuilder<string> =>
  isPostgres(db)
    ? sql<string>`split_part(documento_key, '#', 1)`
    : sql<string>`(case when instr(documento_key, '#') > 0 then substr(documento_key, 1, instr(documento_key, '#') - 1) else documento_key end)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  const key = canonicalOf(db);
  const suffix = sql`(' ' || lower(${key}))`;
  await sql`update patients set search_text = search_text || ${suffix}
    where lower(documento) <> lower(${key}) and ${key} <> '' and substr(search_text, length(search_text) - length(${suffix}) + 1) <> ${suffix}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const key = canonicalOf(db);
  const suffix = sql`(' ' || lower(${key}))`;
  await sql`update patients set search_text = substr(search_text, 1, length(search_text) - length(${suffix}))
    where lower(documento) <> lower(${key}) and ${key} <> '' and substr(search_text, length(search_text) - length(${suffix}) + 1) = ${suffix}`.execute(db);
}
