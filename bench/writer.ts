// Bulk writes for the generator, below Kysely: rows as arrays in a fixed column order. On SQLite one prepared
// statement a table, run row by row inside an explicit transaction (better-sqlite3 is synchronous, so this is
// the fastest path). On PostgreSQL one statement a call, whatever the number of rows:
// `insert … select * from unnest($1::integer[], $2::text[], …)`, one array per column (the column types are read
// from the catalog), so a batch costs one round trip and one short statement to parse and plan instead of
// hundreds of 500-row VALUES lists with tens of thousands of parameters.

import SQLite from 'better-sqlite3';
import pg from 'pg';
import { engineOf } from '../src/db/connection.js';

export type Value = string | number | null;

export interface Writer {
  begin(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  insert(table: string, columns: readonly string[], rows: readonly Value[][]): Promise<void>;
  /** `update <table> set <column> = <value> where id in (…)` */
  setWhereIdIn(table: string, column: string, value: Value, ids: readonly number[]): Promise<void>;
  /**
   * Whether `triggers(false)` is available: PostgreSQL, as a role allowed to set `session_replication_role`
   * (a superuser). Never on SQLite.
   */
  readonly canSkipTriggers: boolean;
  /**
   * Inside a transaction: `false` makes the following statements skip triggers, foreign-key checks included
   * (`set local session_replication_role = replica`); `true` restores them. The setting ends with the transaction
   * in any case (commit or rollback), so the connection never stays in that mode.
   */
  triggers(on: boolean): Promise<void>;
  close(): Promise<void>;
}

export async function openWriter(url: string): Promise<Writer> {
  return engineOf(url) === 'sqlite' ? sqliteWriter(url.slice('sqlite:'.length)) : postgresWriter(url);
}

function sqliteWriter(file: string): Writer {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Bulk load of synthetic data: a crash loses nothing of value, so commits need not be synced.
  db.pragma('synchronous = OFF');
  // Index inserts land all over the B-trees (documentos, names in random order): keep the pages in memory.
  db.pragma('cache_size = -262144');
  const statements = new Map<string, SQLite.Statement>();
  const prepared = (sqlText: string) => {
    let st = statements.get(sqlText);
    if (!st) statements.set(sqlText, (st = db.prepare(sqlText)));
    return st;
  };
  return {
    begin: async () => void db.exec('begin'),
    commit: async () => void db.exec('commit'),
    rollback: async () => {
      if (db.inTransaction) db.exec('rollback');
    },
    insert: async (table, columns, rows) => {
      if (rows.length === 0) return;
      const st = prepared(`insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`);
      for (const row of rows) st.run(row);
    },
    setWhereIdIn: async (table, column, value, ids) => {
      const st = prepared(`update ${table} set ${column} = ? where id = ?`);
      for (const id of ids) st.run(value, id);
    },
    canSkipTriggers: false,
    triggers: async (on) => {
      if (!on) throw new Error('SQLite: triggers cannot be skipped');
    },
    close: async () => {
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}

async function postgresWriter(url: string): Promise<Writer> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // Bulk load of synthetic data: a crash loses at most the last batches, which a rerun with --force replaces;
  // commits need not wait for the WAL flush. This session only.
  await client.query('set synchronous_commit = off');
  let canSkipTriggers = true;
  try {
    await client.query('begin');
    await client.query('set local session_replication_role = replica');
  } catch {
    canSkipTriggers = false;
  } finally {
    await client.query('rollback');
  }
  const types = new Map<string, Map<string, string>>();
  const columnTypes = async (table: string) => {
    let t = types.get(table);
    if (!t) {
      const r = await client.query<{ name: string; type: string }>(
        `select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute
          where attrelid = $1::regclass and attnum > 0 and not attisdropped`,
        [table],
      );
      types.set(table, (t = new Map(r.rows.map((row) => [row.name, row.type]))));
    }
    return t;
  };
  return {
    begin: async () => void (await client.query('begin')),
    commit: async () => void (await client.query('commit')),
    rollback: async () => void (await client.query('rollback').catch(() => undefined)),
    insert: async (table, columns, rows) => {
      if (rows.length === 0) return;
      const t = await columnTypes(table);
      const casts = columns.map((c, i) => {
        const type = t.get(c);
        if (!type) throw new Error(`${table}.${c} does not exist`);
        return `$${i + 1}::${type}[]`;
      });
      const arrays = columns.map((_, c) => rows.map((row) => row[c]));
      await client.query(`insert into ${table} (${columns.join(', ')}) select * from unnest(${casts.join(', ')})`, arrays);
    },
    setWhereIdIn: async (table, column, value, ids) => {
      if (ids.length === 0) return;
      await client.query(`update ${table} set ${column} = $1 where id = any($2::int[])`, [value, ids]);
    },
    canSkipTriggers,
    triggers: async (on) => void (await client.query(`set local session_replication_role = ${on ? 'origin' : 'replica'}`)),
    close: async () => void (await client.end()),
  };
}
