// SQL of the user administration pages (/users/): listing, activation and password resets. Each change
// runs in the caller's transaction, which also writes the audit entry.

import type { Executor } from '../db/database.js';
import { replacePassword } from './user.repository.js';

export interface UserListRow {
  id: number;
  username: string;
  is_admin: number;
  is_active: number;
  created_at: string;
  last_login_at: string | null;
  /** the user's own document (RIPS: the attending professional), when read with the whole row */
  tipo_documento?: string;
  documento?: string;
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

/**
 * Sets is_active. A deactivation also bumps the user's password generation, so the database ends every session of
 * the user at once, in the same transaction (migration 0150), and none opened in the meantime outlives it.
 */
export async function setUserActive(trx: Executor, userId: number, active: boolean): Promise<void> {
  await trx
    .updateTable('users')
    .set((eb) => (active ? { is_active: 1 } : { is_active: 0, password_generation: eb('password_generation', '+', 1) }))
    .where('id', '=', userId)
    .execute();
}

/**
 * A new password typed by an administrator; every session of that user ends (but `keepIdHash`, the
 * administrator's own session when resetting their own password).
 */
export async function resetPassword(trx: Executor, userId: number, passwordHash: string, keepIdHash?: string): Promise<void> {
  await replacePassword(trx, userId, passwordHash, keepIdHash);
}

/** Sets a user's own document (tipo and canonical number; '' for none). */
export async function updateUserDocument(trx: Executor, userId: number, tipoDocumento: string, documento: string): Promise<void> {
  await trx.updateTable('users').set({ tipo_documento: tipoDocumento, documento }).where('id', '=', userId).execute();
}
