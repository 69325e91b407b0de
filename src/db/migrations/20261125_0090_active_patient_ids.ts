import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// SQLite: the active patients' ids, with activo_desde, in an index of their own (a few bytes an entry, so it stays
// in the page cache). A search's count checks each match of the search index against it instead of against the
// table's rows: 7,876 matches of a common surname at 100,000 patients counted in ~3 ms instead of ~20, the count
// every write of a patient makes a kept search page run again (decision 0049). PostgreSQL counts a search on its
// trigram index and does not use it.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`create index patients_active_ids_idx on patients (id, activo_desde) where activo_desde is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`drop index patients_active_ids_idx`.execute(db);
}
