import type { ControlledTransaction } from 'kysely';
import { isPostgres, type Database, type Db, type Trx } from '../../db/database.js';
import { isTransientConflict } from '../../db/errors.js';
import { isStalePreparedStatement } from '../../db/pg-statements.js';
import { writeTurnOf } from './write-turn.js';

/** Attempts in all before a conflict is reported as an error (it then answers 503, nothing half-done). */
export const TRANSACTION_ATTEMPTS = 4;

/**
 * Transactions one SQLite commit carries at most. The group holds the connection until its commit, so reads that
 * arrive meanwhile wait for the whole group: the bound keeps that wait to a few milliseconds.
 */
export const GROUP_COMMIT_MAX = 32;

/**
 * Runs `work` in one transaction and resolves once it is committed (durable). When PostgreSQL aborts it for a
 * deadlock or a serialization failure, the transaction has been rolled back whole, so it is run again from the
 * start (after a short random pause, so the two contenders do not meet again), as when a prepared statement's
 * tables changed under it. `work` must only touch the database: whatever it returns comes from the attempt that
 * committed.
 *
 * On SQLite, transactions that arrive while another is running are committed together (decision 0018): each runs
 * in a savepoint of one transaction, one after another as before, and the group's single commit (one WAL write and
 * fsync) makes all of them durable at once. A work that fails is rolled back to its savepoint and only its caller
 * sees the error; a commit that fails fails every transaction of the group, and none of them is kept.
 */
export async function inTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  if (isPostgres(db)) return retryingConflicts(() => db.transaction().execute(work));
  return groupCommitterOf(db).run(work);
}

/**
 * `attempt` (a transaction, or one statement committed by itself) run again from the start when PostgreSQL aborted
 * it for a deadlock or a serialization failure, or a prepared statement's tables changed under it.
 */
export async function retryingConflicts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      // A prepared statement whose tables a migration changed meanwhile (decision 0270) lost the transaction before
      // it changed anything: the connection has forgotten it, and the next attempt prepares it anew.
      if (!(isTransientConflict(err) || isStalePreparedStatement(err)) || n >= TRANSACTION_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * n));
    }
  }
}

interface Pending {
  work: (trx: Trx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** The enclosing transaction is gone (SQLite rolls it back itself after some errors): the whole group fails. */
class GroupLost extends Error {
  constructor(readonly reason: unknown) {
    super('the group transaction was lost', { cause: reason });
  }
}

const SAVEPOINT = 'somno_item';

class GroupCommitter {
  private queue: Pending[] = [];
  private draining = false;

  constructor(private readonly db: Db) {}

  run<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.draining) return;
      this.draining = true;
      // Started after the reads already queued for the connection: the requests they belong to usually open their
      // transactions next, and join this group instead of each waiting for a commit of its own.
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.commitGroup(this.queue.splice(0, GROUP_COMMIT_MAX));
    } finally {
      this.draining = false;
    }
  }

  /**
   * The group waits for the file's write turn (decision 0052) before it takes the connection and begins: while a
   * group of views is being committed by the audit writer's thread, this thread waits as a promise (reads go on),
   * not asleep inside BEGIN IMMEDIATE with every request in flight held behind it.
   */
  private async commitGroup(group: Pending[]): Promise<void> {
    const turn = writeTurnOf(this.db);
    const held = turn !== undefined && (await turn.takeForServer());
    try {
      await this.commitGroupInTurn(group);
    } finally {
      if (held) turn.release();
    }
  }

  private async commitGroupInTurn(group: Pending[]): Promise<void> {
    let trx: ControlledTransaction<Database>;
    try {
      trx = await this.db.startTransaction().execute();
    } catch (err) {
      for (const p of group) p.reject(err);
      return;
    }
    const ran: { pending: Pending; value: unknown }[] = [];
    let next = 0;
    try {
      for (; next < group.length; next++) {
        const pending = group[next]!;
        try {
          ran.push({ pending, value: await retryingConflicts(() => this.inSavepoint(trx, pending.work)) });
        } catch (err) {
          if (err instanceof GroupLost) throw err;
          pending.reject(err);
        }
      }
      await trx.commit().execute();
    } catch (err) {
      const reason = err instanceof GroupLost ? err.reason : err;
      await trx.rollback().execute().catch(() => undefined);
      for (const { pending } of ran) pending.reject(reason);
      if (err instanceof GroupLost) group[next]!.reject(reason);
      // Those never started go first in the next group.
      this.queue.unshift(...group.slice(err instanceof GroupLost ? next + 1 : group.length));
      return;
    }
    for (const { pending, value } of ran) pending.resolve(value);
  }

  private async inSavepoint(trx: ControlledTransaction<Database>, work: (trx: Trx) => Promise<unknown>): Promise<unknown> {
    const item = await trx.savepoint(SAVEPOINT).execute();
    let value: unknown;
    try {
      value = await work(item);
    } catch (err) {
      try {
        await item.rollbackToSavepoint(SAVEPOINT).execute();
        await item.releaseSavepoint(SAVEPOINT).execute();
      } catch (lost) {
        throw new GroupLost(lost);
      }
      throw err;
    }
    try {
      await item.releaseSavepoint(SAVEPOINT).execute();
    } catch (lost) {
      throw new GroupLost(lost);
    }
    return value;
  }
}

const committers = new WeakMap<Db, GroupCommitter>();

function groupCommitterOf(db: Db): GroupCommitter {
  let committer = committers.get(db);
  if (!committer) {
    committer = new GroupCommitter(db);
    committers.set(db, committer);
  }
  return committer;
}
