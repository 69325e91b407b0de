// Bulk writes for the generator, below Kysely: rows as arrays in a fixed column order. On SQLite one prepared
// statement a table, run row by row inside an explicit transaction (better-sqlite3 is synchronous, so this is
// the fastest path); on PostgreSQL multi-row INSERTs of up to 500 rows, under its 65,535 parameter limit.

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
    close: async () => {
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}

async function postgresWriter(url: string): Promise<Writer> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const texts = new Map<string, string>();
  const insertText = (table: string, columns: readonly string[], n: number) => {
    const key = `${table}:${n}`;
    let text = texts.get(key);
    if (!text) {
      const tuples: string[] = [];
      for (let r = 0; r < n; r++) tuples.push(`(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
      text = `insert into ${table} (${columns.join(', ')}) values ${tuples.join(', ')}`;
      texts.set(key, text);
    }
    return text;
  };
  return {
    begin: async () => void (await client.query('begin')),
    commit: async () => void (await client.query('commit')),
    rollback: async () => void (await client.query('rollback').catch(() => undefined)),
    insert: async (table, columns, rows) => {
      const size = Math.max(1, Math.min(500, Math.floor(60000 / columns.length)));
      for (let i = 0; i < rows.length; i += size) {
        const batch = rows.slice(i, i + size);
        await client.query(insertText(table, columns, batch.length), batch.flat());
      }
    },
    setWhereIdIn: async (table, column, value, ids) => {
      if (ids.length === 0) return;
      await client.query(`update ${table} set ${column} = $1 where id = any($2::int[])`, [value, ids]);
    },
    close: async () => void (await client.end()),
  };
}
