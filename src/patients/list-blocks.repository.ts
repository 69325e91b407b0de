// The blocks of the list order cut again by the server when the clinic has grown past them (decision 0172).

import { sql } from 'kysely';
import { isPostgres, type Db } from '../db/database.js';
import { BLOCK_PATIENTS, fillListBlocks } from '../db/migrations/20261127_0441_patient_list_blocks.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { blocksDrifted } from './list-blocks.rules.js';

/** Patients of each block, in list order: the one read the check costs (~100 small rows at 100,000 patients). */
export async function listBlockCounts(db: Db): Promise<number[]> {
  const { rows } = await sql<{ n: number }>`select n_all as n from patient_list_blocks order by start_key`.execute(db);
  return rows.map((r) => Number(r.n));
}

/**
 * Cuts the blocks again from the patients, in one transaction. On PostgreSQL the table is locked first (EXCLUSIVE:
 * reads go on, the triggers' updates wait): a write whose trigger counted its patient in a block row the re-cut
 * deletes would otherwise be lost; a write already in flight holds its block row, so the lock waits for its commit
 * and the count, a statement after the lock, sees it. On SQLite the write transaction holds every writer off.
 * Returns the patients counted.
 */
export async function recutListBlocks(db: Db, target: number = BLOCK_PATIENTS): Promise<number> {
  return inTransaction(db, async (trx) => {
    if (isPostgres(trx)) await sql`lock table patient_list_blocks in exclusive mode`.execute(trx);
    await fillListBlocks(trx, target);
    return (await listBlockCounts(trx)).reduce((a, b) => a + b, 0);
  });
}

/**
 * A check the server runs at start and with its periodic cleanup: one read of the blocks, and a re-cut only when
 * they have drifted (blocksDrifted). Resolves to whether it cut them again.
 */
export function listBlocksUpkeep(db: Db, target: number = BLOCK_PATIENTS): () => Promise<boolean> {
  let lastCutTotal: number | null = null;
  return async () => {
    if (!blocksDrifted(await listBlockCounts(db), target, lastCutTotal)) return false;
    lastCutTotal = await recutListBlocks(db, target);
    return true;
  };
}
