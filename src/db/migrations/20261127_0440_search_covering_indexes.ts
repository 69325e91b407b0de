import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// SQLite: searches of the active list read index entries, not patient rows (issue 30, decision 0170).
// - The walk of the list order that filters each entry by the search text: the text in the order index's entries
//   (covering), so walking 3,000 entries costs ~0.4 ms instead of ~11 (a row read per entry).
// - A search's matches (FTS5 rowids) looked up by id in an index that holds their order columns, for the count and
//   the sort (covering), instead of the rows; it replaces patients_active_ids_idx (migration 0090), which only the
//   count used.
// PostgreSQL reads the matched rows to recheck the trigram LIKE (a bitmap heap scan) and is left as it is.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`create index patients_active_order_text_idx on patients (apellido_norm, nombre_norm, id, activo_desde, search_text)
    where activo_desde is not null`.execute(db);
  await sql`create index patients_active_id_order_idx on patients (id, apellido_norm, nombre_norm, activo_desde)
    where activo_desde is not null`.execute(db);
  await sql`drop index patients_active_ids_idx`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`drop index patients_active_order_text_idx`.execute(db);
  await sql`drop index patients_active_id_order_idx`.execute(db);
  await sql`create index patients_active_ids_idx on patients (id, activo_desde) where activo_desde is not null`.execute(db);
}
