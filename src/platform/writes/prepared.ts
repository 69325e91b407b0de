import { createQueryId, type CompiledQuery, type Compilable, type Insertable, type Kysely, type KyselyPlugin } from 'kysely';
import { isPostgres, type Database, type Executor } from '../../db/database.js';

/**
 * A statement Kysely builds and compiles once per SQL dialect, then runs with each call's arguments.
 *
 * Building and compiling a query with Kysely's builder costs more than running a simple indexed read (measured: a
 * third of a trivial request's time, decision 0016), so the statements every request runs (the session, the data
 * versions, the record pages) are compiled once. `build` is called once per dialect with placeholders in place of
 * the arguments; each placeholder must reach the statement as a parameter (a value compared or inserted), never
 * as an identifier or a list to expand. Each call substitutes the real arguments for the placeholders.
 *
 * A database with Kysely plugins (the query-plan tests record every statement with one) builds each call instead:
 * plugins see, and may rewrite, only queries that are built. A plugin that only checks queries (`checksOnly`: a
 * kept page's declared tables) sees the statement once, when it first runs under that plugin: its answer depends
 * on the statement alone (issue 30: a page's reads were built anew on every render).
 */
export function precompiled<Args extends readonly unknown[], Row>(
  build: (db: Executor, ...args: Args) => Compilable<Row>,
): (db: Executor, ...args: Args) => Promise<Row[]> {
  const compiled: { sqlite?: Compiled<Row>; postgres?: Compiled<Row> } = {};
  return async (db, ...args) => {
    const plugins = db.getExecutor().plugins;
    if (plugins.length > 0 && !plugins.every(checksOnly)) return (await db.executeQuery(build(db, ...args))).rows;
    const dialect = isPostgres(db) ? 'postgres' : 'sqlite';
    const c = (compiled[dialect] ??= compile(plugins.length > 0 ? db.withoutPlugins() : db, build, args.length));
    for (const plugin of plugins) {
      if (c.checkedBy.has(plugin)) continue;
      plugin.transformQuery({ node: c.query.query, queryId: createQueryId() });
      c.checkedBy.add(plugin);
    }
    const parameters = c.query.parameters.map((p, i) => {
      const slot = c.slots[i];
      return slot === undefined ? p : args[slot];
    });
    const result = await db.executeQuery<Row>({ ...c.query, parameters });
    return result.rows;
  };
}

/** A Kysely plugin that refuses some queries (by throwing) and never rewrites one. */
export interface CheckingPlugin extends KyselyPlugin {
  readonly checksOnly: true;
}

const checksOnly = (plugin: KyselyPlugin): plugin is CheckingPlugin => (plugin as Partial<CheckingPlugin>).checksOnly === true;

interface Compiled<Row> {
  query: CompiledQuery<Row>;
  /** the checking plugins that have seen the statement (and let it run) */
  checkedBy: WeakSet<KyselyPlugin>;
  /** For each parameter of the compiled statement: the index of the argument it stands for, or undefined. */
  slots: (number | undefined)[];
}

function compile<Args extends readonly unknown[], Row>(
  db: Executor,
  build: (db: Executor, ...args: Args) => Compilable<Row>,
  arity: number,
): Compiled<Row> {
  const placeholders = Array.from({ length: arity }, (_, i) => Symbol(`argument ${i}`));
  const query = build(db, ...(placeholders as unknown as Args)).compile();
  const slots = query.parameters.map((p) => {
    const i = placeholders.indexOf(p as symbol);
    return i < 0 ? undefined : i;
  });
  placeholders.forEach((_, i) => {
    if (!slots.includes(i)) throw new Error(`precompiled statement: argument ${i} is not a parameter of ${query.sql}`);
  });
  return { query, slots, checkedBy: new WeakSet() };
}

/**
 * Inserts one row through a statement compiled once per dialect and set of columns (the row's keys whose value is
 * not undefined, in their order), as `precompiled` does for reads: building and compiling a 30-column insert with
 * Kysely's builder costs more than SQLite's own work for it (decision 0056). The cache holds one statement per
 * (table, columns) a caller writes: a few dozen in the whole application.
 */
export async function insertRow<T extends keyof Database & string>(db: Executor, table: T, row: Insertable<Database[T]>): Promise<void> {
  await runInsert(db, table, row, false);
}

/** `insertRow`, resolving to the id the database gave the new row. */
export async function insertRowReturningId<T extends keyof Database & string>(db: Executor, table: T, row: Insertable<Database[T]>): Promise<number> {
  const rows = await runInsert(db, table, row, true);
  return rows[0]!.id;
}

const compiledInserts = { sqlite: new Map<string, CompiledQuery>(), postgres: new Map<string, CompiledQuery>() };

async function runInsert(db: Executor, table: string, row: object, returningId: boolean): Promise<{ id: number }[]> {
  const parameters: unknown[] = [];
  // A value that is an expression (sql`…`, a subquery) is part of the statement's text: built each time.
  let plain = true;
  let key = returningId ? `${table} returning id:` : `${table}:`;
  for (const [column, value] of Object.entries(row)) {
    if (value === undefined) continue;
    parameters.push(value);
    key += `${column},`;
    if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) plain = false;
  }
  // Built as Kysely builds any insert; only the statement's text and the order of its parameters are kept.
  const build = () => {
    const insert = (db as Kysely<any>).insertInto(table).values(row);
    return returningId ? insert.returning('id') : insert;
  };
  if (!plain || db.getExecutor().plugins.length > 0) return (await db.executeQuery<{ id: number }>(build().compile())).rows;
  const cache = compiledInserts[isPostgres(db) ? 'postgres' : 'sqlite'];
  let query = cache.get(key);
  if (query === undefined) {
    query = build().compile();
    // Each value is one parameter, in the row's order.
    if (query.parameters.length !== parameters.length || query.parameters.some((p, i) => p !== parameters[i])) {
      throw new Error(`insertRow: the statement's parameters are not the row's values in order: ${query.sql}`);
    }
    cache.set(key, query);
  }
  return (await db.executeQuery<{ id: number }>({ ...query, parameters })).rows;
}
