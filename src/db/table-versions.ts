import { sql, type Kysely } from 'kysely';
import { isPatientTable, PATIENT_TABLES, VERSIONED_TABLES, type VersionedTable } from '../platform/tables.js';
import { isPostgres, type Executor } from './database.js';
import { precompiled } from './prepared.js';

// The versions kept pages are keyed by (decision 0023), read here, and the triggers that bump them, installed from
// the table registry (src/platform/tables.ts) at every start.

/**
 * PostgreSQL: writers of one table bump one of 16 rows (the backend's slot), so concurrent writers rarely wait
 * on each other; the version is the sum of the slots. SQLite has one writer at a time: one row per table.
 */
export const PG_SLOTS = 16;

/** Every table's version as text, read in one statement (at most 16 rows a table). */
export type TableVersions = ReadonlyMap<string, string>;

const selectVersions = precompiled((db: Executor) =>
  db
    .selectFrom('table_versions')
    .select(['table_name', sql<number | string>`sum(n)`.as('n')])
    .groupBy('table_name'),
);

export async function readTableVersions(db: Executor): Promise<TableVersions> {
  const rows = await selectVersions(db);
  return new Map(rows.map((r) => [r.table_name, String(r.n)]));
}

/**
 * The table_name column, for a version read. On SQLite it is written `+table_name`, which keeps SQLite from probing
 * the primary key's index: every request reads versions, and in the server the probe (an index page, then a table
 * page per table) cost ~20 µs a read against ~13 for the scan of the table's one page of five rows (decision 0055).
 */
const tableNameOf = (db: Executor) => (isPostgres(db) ? sql.ref('table_name') : sql`+table_name`);

/**
 * A reader of one version covering `tables`: the sum of their counters. Counters only grow, so the sum grows
 * with every change of any of them, and an unchanged sum means none changed. One statement, compiled once.
 */
export function versionReader(tables: readonly VersionedTable[]): (db: Executor) => Promise<string> {
  const select = precompiled((db: Executor) =>
    db
      .selectFrom('table_versions')
      .select(sql<number | string>`coalesce(sum(n), 0)`.as('v'))
      .where(tableNameOf(db), 'in', [...tables]),
  );
  return async (db) => String((await select(db))[0]?.v ?? 0);
}

/**
 * A reader of one patient's version of a page declared with `tables`: that patient's counter (covering the tables
 * of PATIENT_TABLES, src/platform/tables.ts) plus the versions of the other tables. Both only grow, so the sum changes with every change
 * of either and never comes back to a value it had.
 */
export function patientVersionReader(tables: readonly VersionedTable[]): (db: Executor, patientId: number) => Promise<string> {
  const others = tables.filter((t) => !isPatientTable(t));
  const select = precompiled((db: Executor, patientId: number) =>
    db
      .selectNoFrom((eb) => [
        sql<number | string>`coalesce((${eb.selectFrom('patient_versions').select('n').where('paciente_id', '=', patientId)}), 0)
          + ${others.length === 0 ? sql`0` : sql`coalesce((${eb.selectFrom('table_versions').select(sql`sum(n)`.as('s')).where(tableNameOf(db), 'in', others)}), 0)`}`.as('v'),
      ]),
  );
  return async (db, patientId) => String((await select(db, patientId))[0]?.v ?? 0);
}

const triggerName = (table: string) => `${table}_table_version`;
const patientTriggerName = (table: string) => `${table}_patient_version`;

/**
 * The SQL that bumps the counter of the patient a row (`old` or `new`) belongs to, when `condition` holds (none
 * when the row names no patient).
 */
function bumpPatientOf(table: string, row: 'old' | 'new', condition = 'true'): string {
  const patient = PATIENT_TABLES[table as VersionedTable]!;
  const { column } = patient;
  const via = 'via' in patient ? patient.via : undefined;
  const owner = via ? `(select paciente_id from ${via} where id = ${row}.${column})` : `${row}.${column}`;
  return `insert into patient_versions (paciente_id, n) select o.id, 1 from (select ${owner} as id) as o
    where o.id is not null and ${condition} on conflict (paciente_id) do update set n = patient_versions.n + 1`;
}

/**
 * Installs, for every table of VERSIONED_TABLES, its version rows and the trigger that bumps them in the same
 * transaction as the change; drops those of tables no longer listed. Idempotent: runs after every migration.
 * On PostgreSQL a statement bumps its table's row of the backend's slot once (statement-level trigger), after
 * taking the slot's transaction lock, so two transactions that bump several tables always take the rows of one
 * slot in the same order: they queue, never deadlock.
 */
export async function syncTableVersionTriggers(db: Kysely<any>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Instances starting together against one PostgreSQL database install the triggers one after another.
    if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(1936613741, -1)`.execute(trx);
    await installTriggers(trx);
  });
}

async function installTriggers(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  const slots = pg ? PG_SLOTS : 1;
  for (const table of VERSIONED_TABLES) {
    for (let slot = 0; slot < slots; slot++) {
      await sql`insert into table_versions (table_name, slot, n) values (${table}, ${slot}, 0) on conflict do nothing`.execute(db);
    }
    if (pg) {
      await sql
        .raw(`create or replace trigger ${triggerName(table)} after insert or update or delete on ${table}
          for each statement execute function table_version_bump('${table}')`)
        .execute(db);
    } else {
      for (const op of ['insert', 'update', 'delete']) {
        await sql
          .raw(`create trigger if not exists ${triggerName(table)}_${op} after ${op} on ${table}
            begin update table_versions set n = n + 1 where table_name = '${table}'; end`)
          .execute(db);
      }
    }
  }
  for (const table of Object.keys(PATIENT_TABLES)) await installPatientTrigger(db, table, pg);
  const listed = new Set<string>(VERSIONED_TABLES);
  const stale = (await installedTriggers(db)).filter((t) => !listed.has(t.table));
  for (const t of stale) await dropTrigger(db, t);
  for (const t of (await installedTriggers(db, 'patient')).filter((t) => !isPatientTable(t.table))) {
    await dropTrigger(db, t);
    // Each patient trigger has a function of its own on PostgreSQL (the table versions' one is shared).
    if (pg) await sql.raw(`drop function if exists ${t.name}()`).execute(db);
  }
  if (stale.length > 0) {
    await db.deleteFrom('table_versions').where('table_name', 'not in', [...VERSIONED_TABLES]).execute();
  }
}

async function dropTrigger(db: Kysely<any>, t: { name: string; table: string }): Promise<void> {
  await sql.raw(isPostgres(db) ? `drop trigger if exists ${t.name} on ${t.table}` : `drop trigger if exists ${t.name}`).execute(db);
}

/**
 * A row-level trigger per table of PATIENT_TABLES: the new row's patient on insert and update, the old row's on
 * delete and when an update moves the row to another patient.
 */
async function installPatientTrigger(db: Kysely<any>, table: string, pg: boolean): Promise<void> {
  const { column } = PATIENT_TABLES[table as VersionedTable]!;
  const name = patientTriggerName(table);
  if (pg) {
    await sql
      .raw(`create or replace function ${name}() returns trigger language plpgsql as $$
        begin
          if tg_op <> 'DELETE' then ${bumpPatientOf(table, 'new')}; end if;
          if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.${column} is distinct from new.${column}) then ${bumpPatientOf(table, 'old')}; end if;
          return null;
        end $$`)
      .execute(db);
    await sql.raw(`create or replace trigger ${name} after insert or update or delete on ${table} for each row execute function ${name}()`).execute(db);
    return;
  }
  const bodies = {
    insert: `${bumpPatientOf(table, 'new')};`,
    update: `${bumpPatientOf(table, 'new')}; ${bumpPatientOf(table, 'old', `old.${column} is not new.${column}`)};`,
    delete: `${bumpPatientOf(table, 'old')};`,
  };
  for (const [op, body] of Object.entries(bodies)) {
    await sql.raw(`create trigger if not exists ${name}_${op} after ${op} on ${table} begin ${body} end`).execute(db);
  }
}

/** The version triggers the database holds (of the tables' versions, or of the patients'), with their tables. */
export async function installedTriggers(db: Kysely<any>, kind: 'table' | 'patient' = 'table'): Promise<{ name: string; table: string }[]> {
  const suffix = kind === 'table' ? '\\_table\\_version' : '\\_patient\\_version';
  const rows = isPostgres(db)
    ? await sql<{ name: string; table: string }>`select t.tgname as name, c.relname as table from pg_trigger t
        join pg_class c on c.oid = t.tgrelid where not t.tgisinternal and t.tgname like ${`%${suffix}`}
        and c.relnamespace = current_schema()::regnamespace`.execute(db)
    : await sql<{ name: string; table: string }>`select name, tbl_name as "table" from sqlite_master
        where type = 'trigger' and name like ${`%${suffix}\\_%`} escape '\\'`.execute(db);
  return rows.rows;
}
