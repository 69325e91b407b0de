import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// The trigger of migrations 0110 and 0130, which bumps a patient's counter for every entry of the trail that is not
// a view, is generated from now on with the others at every start, from the table registry and VIEW_ACTIONS
// (decision 0067). It is renamed here to the name the start gives it, which then owns it: the start replaces it
// only if its definition differs, so no entry goes uncounted in between, and no list is copied here. The start's
// step also owns migration 0050/0130's index of a patient's changes (same name, nothing to do here).

const OLD = 'audit_log_changes_bump_patient';
const NEW = 'audit_log_patient_version';

async function rename(db: Kysely<unknown>, from: { pg: string; sqlite: string }, to: { pg: string; sqlite: string }): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw(`alter trigger ${from.pg} on audit_log rename to ${to.pg}`).execute(db);
    await sql.raw(`alter function ${from.pg}() rename to ${to.pg}`).execute(db);
    return;
  }
  // SQLite renames no trigger: the same statement under the new name, then the old one dropped.
  const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'trigger' and name = ${from.sqlite}`.execute(db);
  const text = rows[0]?.sql;
  if (text === undefined) throw new Error(`trigger ${from.sqlite} not found`);
  await sql.raw(text.replace(new RegExp(`^CREATE TRIGGER ${from.sqlite}\\b`, 'i'), `CREATE TRIGGER ${to.sqlite}`)).execute(db);
  await sql.raw(`drop trigger ${from.sqlite}`).execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await rename(db, { pg: OLD, sqlite: OLD }, { pg: NEW, sqlite: `${NEW}_insert` });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await rename(db, { pg: NEW, sqlite: `${NEW}_insert` }, { pg: OLD, sqlite: OLD });
}
