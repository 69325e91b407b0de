// SQL of the user administration pages (/users/): listing, activation and password resets. Each change
// runs in the caller's transaction, which also writes the audit entry.

import type { Executor } from '../db/database.js';
import { deleteSessionsOfUser } from './session.repository.js';

export interface UserListRow {
  id: number;
  username: string;
  is_admin: number;
  is_active: number;
  created_at: string;
  last_login_at: string | null;
}

/** Every user, by name (the team is small; the page shows them all). */
export async function listUsers(db: Executor): Promise<UserListRow[]> {
  return db
    .selectFrom('users')
    .select(['id', 'username', 'is_admin', 'is_active', 'created_at', 'last_login_at'])
    .orderBy('username_key')
    .orderBy('id')
    .execute();
}

/** One page of users for the CSV export, by id after `afterId`. */
export async function listUsersPage(db: Executor, afterId: number, limit: number): Promise<UserListRow[]> {
  return db
    .selectFrom('users')
    .select(['id', 'username', 'is_admin', 'is_active', 'created_at', 'last_login_at'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Sets is_active; deactivation also ends every session of the user at once (same transaction). */
export async function setUserActive(trx: Executor, userId: number, active: boolean): Promise<void> {
  await trx.updateTable('users').set({ is_active: active ? 1 : 0 }).where('id', '=', userId).execute();
  if (!active) await deleteSessionsOfUser(trx, userId);
}

/**
 * A new password typed by an administrator; every session of that user ends (but `keepIdHash`, the
 * administrator's own session when resetting their own password).
 */
export async function resetPassword(trx: Executor, userId: number, passwordHash: string, keepIdHash?: string): Promise<void> {
  await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
  await deleteSessionsOfUser(trx, userId, keepIdHash);
}
