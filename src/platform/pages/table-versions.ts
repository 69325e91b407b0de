import { sql, type Kysely } from 'kysely';
import { isPatientTable, noneOf, type PatientOwner, type TableEntry, type VersionedTable } from '../tables.js';
import { isPostgres, type Executor } from '../../db/database.js';
import { precompiled } from '../writes/prepared.js';
import { TABLES } from '../../db/tables.js';

// The versions kept pages are keyed by (decision 0023), read here, and the triggers that bump them, generated
// from the table registry (src/platform/tables.ts) at every start: a versioned table's changes bump its version,
// a patient's rows' changes bump the patient's counter (decision 0049), the audit trail's entries that are not
// views bump it too (decision 0051), and the trail's index of a patient's changes follows the same list.

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
 * A reader of the versions of several sets of tables in one statement (a page shown with another kept part, such
 * as the dashboard and the agenda's counts: decision 0220): each set's sum, in order, as versionReader gives it.
 */
export function versionsReader(sets: readonly (readonly VersionedTable[])[]): (db: Executor) => Promise<string[]> {
  const all = [...new Set(sets.flat())];
  const select = precompiled((db: Executor) =>
    db
      .selectFrom('table_versions')
      .select(sets.map((tables, i) => sql<number | string>`coalesce(sum(case when ${tableNameOf(db)} in (${sql.join([...tables])}) then n end), 0)`.as(`v${i}`)))
      .where(tableNameOf(db), 'in', all),
  );
  return async (db) => {
    const row = ((await select(db))[0] ?? {}) as Record<string, number | string | undefined>;
    return sets.map((_, i) => String(row[`v${i}`] ?? 0));
  };
}

/** A patient's version of a page: `version`, what the page is kept under; `patient`, the patient's counter alone. */
export interface PatientVersion {
  version: string;
  patient: string;
}

/**
 * A reader of one patient's version of a page declared with `tables`: that patient's counter (covering the tables
 * of PATIENT_TABLES, src/platform/tables.ts) plus the versions of the other tables. Both only grow, so the sum changes with every change
 * of either and never comes back to a value it had. The counter is given apart too: what else a request shows of the
 * patient from the same counter (the record's history) reads none of its own (decision 0370).
 */
export function patientVersionReader(tables: readonly VersionedTable[]): (db: Executor, patientId: number) => Promise<PatientVersion> {
  const others = tables.filter((t) => !isPatientTable(t));
  const select = precompiled((db: Executor, patientId: number) =>
    db
      .selectNoFrom((eb) => [
        sql<number | string>`coalesce((${eb.selectFrom('patient_versions').select('n').where('paciente_id', '=', patientId)}), 0)`.as('p'),
        (others.length === 0 ? sql<number | string>`0` : sql<number | string>`coalesce((${eb.selectFrom('table_versions').select(sql`sum(n)`.as('s')).where(tableNameOf(db), 'in', others)}), 0)`).as('o'),
      ]),
  );
  return async (db, patientId) => {
    const row = (await select(db, patientId))[0];
    const patient = Number(row?.p ?? 0);
    return { version: String(patient + Number(row?.o ?? 0)), patient: String(patient) };
  };
}

const triggerName = (table: string) => `${table}_table_version`;
const patientTriggerName = (table: string) => `${table}_patient_version`;
const changesIndexName = (table: string) => `${table}_patient_changes_idx`;

/**
 * The SQL that bumps the counter of the patient a row (`old` or `new`) belongs to, when `condition` holds (none
 * when the row names no patient).
 */
function bumpPatientOf(owner: PatientOwner, row: 'old' | 'new', condition = 'true'): string {
  const via = 'via' in owner ? owner.via : undefined;
  const id = via ? `(select paciente_id from ${via} where id = ${row}.${owner.column})` : `${row}.${owner.column}`;
  return `insert into patient_versions (paciente_id, n) select o.id, 1 from (select ${id} as id) as o
    where o.id is not null and ${condition} on conflict (paciente_id) do update set n = patient_versions.n + 1`;
}

/** What the registry generates in the database: triggers (SQLite: one per event), and indexes. */
interface Generated {
  name: string;
  table: string;
  /** SQLite: the create statement, compared with the one the database holds. PostgreSQL: statements run each start. */
  create: string[];
}

/** Version triggers of a versioned table. */
function tableVersionTriggers(table: string, pg: boolean): Generated[] {
  if (pg) {
    const create = `create or replace trigger ${triggerName(table)} after insert or update or delete on ${table}
          for each statement execute function table_version_bump('${table}')`;
    return [{ name: triggerName(table), table, create: [create] }];
  }
  return ['insert', 'update', 'delete'].map((op) => ({
    name: `${triggerName(table)}_${op}`,
    table,
    create: [`create trigger ${triggerName(table)}_${op} after ${op} on ${table}
            begin update table_versions set n = n + 1 where table_name = '${table}'; end`],
  }));
}

/**
 * Patient-version triggers of a table whose rows belong to a patient: the new row's patient on insert and update,
 * the old row's on delete and when an update moves the row to another patient. Append-only rows bump on insert
 * only, when the row names a patient and is not one `unless` leaves out: a trigger's condition, so those rows
 * (the views of records, most of the trail) never run its body; PostgreSQL gives each trigger a function.
 */
function patientTriggers(table: string, owner: PatientOwner, pg: boolean): Generated[] {
  const name = patientTriggerName(table);
  const { column } = owner;
  if ('appendOnly' in owner) {
    const when = `new.${column} is not null${owner.unless ? ` and ${noneOf(`new.${owner.unless.column}`, owner.unless.values)}` : ''}`;
    if (pg) {
      return [
        {
          name,
          table,
          create: [
            `create or replace function ${name}() returns trigger language plpgsql as $$
        begin
          insert into patient_versions (paciente_id, n) values (new.${column}, 1) on conflict (paciente_id) do update set n = patient_versions.n + 1;
          return null;
        end $$`,
            `create or replace trigger ${name} after insert on ${table} for each row when (${when}) execute function ${name}()`,
          ],
        },
      ];
    }
    return [
      {
        name: `${name}_insert`,
        table,
        create: [`create trigger ${name}_insert after insert on ${table} when ${when}
    begin insert into patient_versions (paciente_id, n) values (new.${column}, 1) on conflict (paciente_id) do update set n = n + 1; end`],
      },
    ];
  }
  if (pg) {
    return [
      {
        name,
        table,
        create: [
          `create or replace function ${name}() returns trigger language plpgsql as $$
        begin
          if tg_op <> 'DELETE' then ${bumpPatientOf(owner, 'new')}; end if;
          if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.${column} is distinct from new.${column}) then ${bumpPatientOf(owner, 'old')}; end if;
          return null;
        end $$`,
          `create or replace trigger ${name} after insert or update or delete on ${table} for each row execute function ${name}()`,
        ],
      },
    ];
  }
  const bodies = {
    insert: `${bumpPatientOf(owner, 'new')};`,
    update: `${bumpPatientOf(owner, 'new')}; ${bumpPatientOf(owner, 'old', `old.${column} is not new.${column}`)};`,
    delete: `${bumpPatientOf(owner, 'old')};`,
  };
  return Object.entries(bodies).map(([op, body]) => ({
    name: `${name}_${op}`,
    table,
    create: [`create trigger ${name}_${op} after ${op} on ${table} begin ${body} end`],
  }));
}

/** The index of the rows that bump their patient, by (patient, id): a patient's changes, read without the views. */
function changesIndex(table: string, owner: PatientOwner): Generated | null {
  if (!('appendOnly' in owner) || !owner.changesIndex) return null;
  const where = owner.unless ? ` where ${noneOf(owner.unless.column, owner.unless.values)}` : '';
  return { name: changesIndexName(table), table, create: [`create index ${changesIndexName(table)} on ${table} (${owner.column}, id)${where}`] };
}

/**
 * A definition as either engine prints it back, reduced to what it says: lower case, single spaces, no
 * parentheses, casts to text or schema. SQLite keeps the text it was given (IF NOT EXISTS removed); PostgreSQL
 * prints its own form (pg_get_indexdef).
 */
export function definitionOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/::text\b/g, '')
    .replace(/ using btree\b/g, '')
    .replace(/\bon \w+\.(\w+)/g, 'on $1')
    .replace(/\bif not exists\b/g, '')
    .replace(/[()]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The triggers the registry generates that fire on INSERT, with their table and the table they bump: what a
 * loader that writes rows without triggers (the benchmark's, bench/load-triggers.ts) must know it skips.
 */
export function registryInsertTriggers(
  engine: 'sqlite' | 'postgres',
  tables: Readonly<Record<string, TableEntry>> = TABLES,
): { table: string; name: string; effect: 'table_versions' | 'patient_versions' }[] {
  const pg = engine === 'postgres';
  const firesOnInsert = (g: Generated) => g.create.some((s) => /\bafter insert\b/i.test(s));
  const versioned = Object.keys(tables).filter((t) => tables[t]!.versioned);
  const owned = Object.entries(tables).flatMap(([t, e]) => (e.patient ? [[t, e.patient] as const] : []));
  return [
    ...versioned.flatMap((t) => tableVersionTriggers(t, pg)).filter(firesOnInsert).map((g) => ({ table: g.table, name: g.name, effect: 'table_versions' as const })),
    ...owned.flatMap(([t, owner]) => patientTriggers(t, owner, pg)).filter(firesOnInsert).map((g) => ({ table: g.table, name: g.name, effect: 'patient_versions' as const })),
  ];
}

/** What a sync changed (tests: a start with nothing changed changes nothing). */
export interface SyncReport {
  /** The indexes it built, each over its whole table. */
  builtIndexes: string[];
  /** SQLite: the triggers it created or replaced (PostgreSQL replaces its own in place at every start). */
  sqliteTriggers: string[];
}

/**
 * Installs what the registry generates: for every versioned table its version rows and the trigger that bumps
 * them in the same transaction as the change; for every table whose rows belong to a patient, the trigger that
 * bumps the patient's counter; the indexes of a patient's changes. Drops the triggers of tables no longer listed.
 * Idempotent, and quick when nothing changed: runs after every migration. SQLite's triggers and either engine's
 * indexes are replaced only when their definition changed (an index is rebuilt over the whole table).
 * On PostgreSQL a statement bumps its table's row of the backend's slot once (statement-level trigger), after
 * taking the slot's transaction lock, so two transactions that bump several tables always take the rows of one
 * slot in the same order: they queue, never deadlock.
 * `tables`: the registry (another only in tests).
 */
export async function syncTableVersionTriggers(db: Kysely<any>, tables: Readonly<Record<string, TableEntry>> = TABLES): Promise<SyncReport> {
  return db.transaction().execute(async (trx) => {
    // Instances starting together against one PostgreSQL database install the triggers one after another.
    if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(1936613741, -1)`.execute(trx);
    return install(trx, tables);
  });
}

async function install(db: Kysely<any>, tables: Readonly<Record<string, TableEntry>>): Promise<SyncReport> {
  const pg = isPostgres(db);
  const versioned = Object.keys(tables).filter((t) => tables[t]!.versioned);
  const owned = Object.entries(tables).flatMap(([t, e]) => (e.patient ? [[t, e.patient] as const] : []));
  const slots = pg ? PG_SLOTS : 1;
  for (const table of versioned) {
    for (let slot = 0; slot < slots; slot++) {
      await sql`insert into table_versions (table_name, slot, n) values (${table}, ${slot}, 0) on conflict do nothing`.execute(db);
    }
  }
  const triggers = [...versioned.flatMap((t) => tableVersionTriggers(t, pg)), ...owned.flatMap(([t, owner]) => patientTriggers(t, owner, pg))];
  const installed = pg ? new Map<string, string>() : await sqliteDefinitions(db, 'trigger');
  const sqliteTriggers: string[] = [];
  for (const trigger of triggers) {
    // PostgreSQL replaces in place (create or replace); SQLite only creates, so a changed one is dropped first.
    if (!pg && installed.get(trigger.name) === definitionOf(trigger.create[0]!)) continue;
    if (!pg && installed.has(trigger.name)) await sql.raw(`drop trigger ${trigger.name}`).execute(db);
    for (const statement of trigger.create) await sql.raw(statement).execute(db);
    if (!pg) sqliteTriggers.push(trigger.name);
  }
  const wanted = new Set(triggers.map((t) => `${t.table}.${t.name}`));
  for (const kind of ['table', 'patient'] as const) {
    for (const t of await installedTriggers(db, kind)) {
      if (wanted.has(`${t.table}.${t.name}`)) continue;
      await sql.raw(pg ? `drop trigger if exists ${t.name} on ${t.table}` : `drop trigger if exists ${t.name}`).execute(db);
      // Each patient trigger has a function of its own on PostgreSQL (the table versions' one is shared).
      if (pg && kind === 'patient') await sql.raw(`drop function if exists ${t.name}()`).execute(db);
    }
  }
  if (versioned.length > 0) await db.deleteFrom('table_versions').where('table_name', 'not in', versioned).execute();
  return { builtIndexes: await installIndexes(db, owned), sqliteTriggers };
}

/** The indexes of a patient's changes, built only when missing or different (over the whole table: slow). */
async function installIndexes(db: Kysely<any>, owned: readonly (readonly [string, PatientOwner])[]): Promise<string[]> {
  const built: string[] = [];
  const installed = await indexDefinitions(db);
  for (const [table, owner] of owned) {
    const index = changesIndex(table, owner);
    const existing = installed.get(changesIndexName(table));
    if (index === null) {
      if (existing !== undefined) await sql.raw(`drop index ${changesIndexName(table)}`).execute(db);
      continue;
    }
    if (existing === definitionOf(index.create[0]!)) continue;
    if (existing !== undefined) await sql.raw(`drop index ${index.name}`).execute(db);
    await sql.raw(index.create[0]!).execute(db);
    built.push(index.name);
  }
  return built;
}

/** SQLite: the definitions of the database's triggers or indexes, by name. */
async function sqliteDefinitions(db: Kysely<any>, type: 'trigger' | 'index'): Promise<Map<string, string>> {
  const rows = await sql<{ name: string; sql: string | null }>`select name, sql from sqlite_master where type = ${type}`.execute(db);
  return new Map(rows.rows.map((r) => [r.name, definitionOf(r.sql ?? '')]));
}

/** The definitions of the indexes of a patient's changes the database holds, by name. */
async function indexDefinitions(db: Kysely<any>): Promise<Map<string, string>> {
  if (!isPostgres(db)) return sqliteDefinitions(db, 'index');
  const rows = await sql<{ name: string; def: string }>`select c.relname as name, pg_get_indexdef(c.oid) as def from pg_class c
    where c.relkind = 'i' and c.relname like '%\\_patient\\_changes\\_idx' and c.relnamespace = current_schema()::regnamespace`.execute(db);
  return new Map(rows.rows.map((r) => [r.name, definitionOf(r.def)]));
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
