import type { CompiledQuery, Compilable } from 'kysely';
import { isPostgres, type Executor } from './database.js';

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
 * plugins see, and may rewrite, only queries that are built.
 */
export function precompiled<Args extends readonly unknown[], Row>(
  build: (db: Executor, ...args: Args) => Compilable<Row>,
): (db: Executor, ...args: Args) => Promise<Row[]> {
  const compiled: { sqlite?: Compiled<Row>; postgres?: Compiled<Row> } = {};
  return async (db, ...args) => {
    if (db.getExecutor().plugins.length > 0) return (await db.executeQuery(build(db, ...args))).rows;
    const dialect = isPostgres(db) ? 'postgres' : 'sqlite';
    const c = (compiled[dialect] ??= compile(db, build, args.length));
    const parameters = c.query.parameters.map((p, i) => {
      const slot = c.slots[i];
      return slot === undefined ? p : args[slot];
    });
    const result = await db.executeQuery<Row>({ ...c.query, parameters });
    return result.rows;
  };
}

interface Compiled<Row> {
  query: CompiledQuery<Row>;
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
  return { query, slots };
}
