import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type Pg from 'pg';

/**
 * Named (prepared) statements on PostgreSQL (decision 0270). Kysely sends every statement unnamed, so PostgreSQL
 * parses, analyses and plans its text on every execution; a statement sent with a name is parsed once per
 * connection and its plan may be kept. Measured on the uncached pages' statements: the database's CPU a statement
 * 337–383 → 193–197 µs.
 *
 * Per connection, the statements prepared are bounded (`perConnection`, least recently used out, DEALLOCATEd), so
 * that texts that vary (IN lists of every length, searches of any number of words, ad-hoc SQL) cannot grow the
 * server's memory without end. A text is named from its second execution on the connection: a statement run once
 * (a migration's, a one-off report's, a list of a length seen once) is never prepared. A statement that matches a
 * pattern given as an argument (the searches' LIKE) stays unnamed: planned for its pattern every time.
 *
 * Names are never reused on a connection (a counter): a DEALLOCATE that could not run (the transaction had failed)
 * is retried later and can never meet a new statement of the same name.
 *
 * A prepared statement whose tables changed so that its rows' columns differ (a migration ran meanwhile, from
 * another server) fails with "cached plan must not change result type": it is forgotten, and outside a transaction
 * run again at once under a new name; inside one, the transaction is lost (`isStalePreparedStatement`:
 * inTransaction runs it again).
 */

export interface NamingOptions {
  /** Statements kept prepared on each connection at most. */
  perConnection: number;
}

export const PREPARED_PER_CONNECTION = 100;

/** The pool as Kysely's PostgresDialect sees it, whose clients name the statements they run. */
export function namingStatements(pool: Pg.Pool, options: NamingOptions): PostgresPool {
  const clients = new WeakMap<Pg.PoolClient, NamingClient>();
  return {
    connect: async () => {
      const client = await pool.connect();
      let named = clients.get(client);
      if (named === undefined) {
        named = new NamingClient(client, options.perConnection);
        clients.set(client, named);
      }
      return named;
    },
    end: () => pool.end(),
  };
}

/** pg keeps the names it has parsed on a connection and sends Parse only for the others. */
interface PgConnectionState {
  parsedStatements: Record<string, string>;
}

/** "cached plan must not change result type": the statement's tables changed under it (feature_not_supported). */
export function isStalePreparedStatement(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change result type');
}

const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;
/**
 * A pattern given as an argument: PostgreSQL's generic plan cannot see it, and after five executions it may keep one
 * that suits no pattern (a search's walk of the list order became a sort of every trigram match: 54 → 880 ms).
 */
const PATTERN_ARGUMENT = /\bi?like\s+\$\d/i;

class NamingClient implements PostgresPoolClient {
  /** Text → name of the statements prepared on this connection, least recently used first. */
  private readonly prepared = new Map<string, string>();
  /** Texts run once on this connection, unnamed (cleared when it reaches its bound). */
  private readonly seen = new Set<string>();
  /** Names to DEALLOCATE once the connection is out of a failed transaction. */
  private readonly pending: string[] = [];
  private counter = 0;

  constructor(
    private readonly client: Pg.PoolClient,
    private readonly cap: number,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(sqlOrCursor: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sqlOrCursor !== 'string') return this.client.query(sqlOrCursor as unknown as Pg.Submittable) as unknown as PostgresCursor<R>;
    return this.run<R>(sqlOrCursor, parameters ?? [], true);
  }

  release(): void {
    this.client.release();
  }

  private async run<R>(text: string, parameters: ReadonlyArray<unknown>, retry: boolean): Promise<PostgresQueryResult<R>> {
    if (this.pending.length > 0 && this.client.getTransactionStatus() !== 'E') this.flushPending();
    const name = this.nameOf(text);
    const values = parameters as unknown[];
    if (name === null) return (await this.client.query(text, values)) as unknown as PostgresQueryResult<R>;
    try {
      return (await this.client.query({ name, text, values })) as unknown as PostgresQueryResult<R>;
    } catch (err) {
      if (!isStalePreparedStatement(err)) throw err;
      this.forget(text, name);
      // Outside a transaction nothing ran: prepared again under a new name. Inside one, the transaction is lost.
      if (retry && this.client.getTransactionStatus() === 'I') return this.run<R>(text, parameters, false);
      throw err;
    }
  }

  /** The statement's name on this connection, or null to send it unnamed. */
  private nameOf(text: string): string | null {
    const known = this.prepared.get(text);
    if (known !== undefined) {
      // Most recently used last.
      this.prepared.delete(text);
      this.prepared.set(text, known);
      return known;
    }
    if (this.cap <= 0 || !NAMEABLE.test(text) || text.includes(';') || PATTERN_ARGUMENT.test(text)) return null;
    if (!this.seen.has(text)) {
      if (this.seen.size >= 2 * this.cap) this.seen.clear();
      this.seen.add(text);
      return null;
    }
    this.seen.delete(text);
    if (this.prepared.size >= this.cap) {
      const [oldText, oldName] = this.prepared.entries().next().value as [string, string];
      this.forget(oldText, oldName);
    }
    const name = `somno_${++this.counter}`;
    this.prepared.set(text, name);
    return name;
  }

  /** Drops a statement from this connection: pg forgets it was parsed, and the server's copy is deallocated. */
  private forget(text: string, name: string): void {
    this.prepared.delete(text);
    const state = (this.client as unknown as { connection: PgConnectionState }).connection;
    // Never parsed (its Parse failed): nothing on the server.
    if (state.parsedStatements[name] === undefined) return;
    delete state.parsedStatements[name];
    this.pending.push(name);
    if (this.client.getTransactionStatus() !== 'E') this.flushPending();
  }

  /** Sent ahead of the next statement, not awaited: the connection runs them in order. */
  private flushPending(): void {
    for (const name of this.pending.splice(0)) {
      this.client.query(`deallocate ${name}`).catch((err: unknown) => {
        // Refused in a failed transaction (a statement queued ahead of it failed): again later. Any other error
        // (the connection is gone, or the statement with it) leaves nothing to deallocate.
        if ((err as { code?: unknown }).code === '25P02') this.pending.push(name);
      });
    }
  }
}
