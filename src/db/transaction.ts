import type { Db, Trx } from './database.js';
import { isTransientConflict } from './errors.js';

/** Attempts in all before a conflict is reported as an error (it then answers 503, nothing half-done). */
export const TRANSACTION_ATTEMPTS = 4;

/**
 * Runs `work` in one transaction. When PostgreSQL aborts it for a deadlock or a serialization failure, the
 * transaction has been rolled back whole, so it is run again from the start (after a short random pause, so the
 * two contenders do not meet again). `work` must only touch the database: whatever it returns comes from the
 * attempt that committed.
 */
export async function inTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (err) {
      if (!isTransientConflict(err) || attempt >= TRANSACTION_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}
