// What the generator and the runner share: the database they default to, the bench user, table discovery.

import { sql, type Kysely } from 'kysely';
import type { Engine } from '../src/db/connection.js';

export const DEFAULT_DATABASE_URL = 'sqlite:data/bench.sqlite';
export const BENCH_USERNAME = 'bench';
/** Known on purpose: a benchmark database holds synthetic people only. */
export const BENCH_PASSWORD = 'bench-somno-2026';

export function databaseUrlFrom(flag: string | undefined): string {
  return flag ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
}

/** The URL with any password hidden, for printing. */
export function displayUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+):[^@]*@/, '$1:***@');
}

export async function tableNames(db: Kysely<any>, engine: Engine): Promise<Set<string>> {
  const rows =
    engine === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db);
  return new Set(rows.rows.map((r) => r.name));
}

export async function columnNames(db: Kysely<any>, engine: Engine, table: string): Promise<Set<string>> {
  const rows =
    engine === 'sqlite'
      ? await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)
      : await sql<{ name: string }>`select column_name as name from information_schema.columns
          where table_schema = current_schema() and table_name = ${table}`.execute(db);
  return new Set(rows.rows.map((r) => r.name));
}

export async function countRows(db: Kysely<any>, table: string): Promise<number> {
  const r = await sql<{ n: number }>`select cast(count(*) as integer) as n from ${sql.table(table)}`.execute(db);
  return Number(r.rows[0]!.n);
}

export function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

export const formatInt = (n: number): string => n.toLocaleString('en-US');
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
