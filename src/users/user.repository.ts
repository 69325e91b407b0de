import type { Executor } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { insertRow, insertRowReturningId } from '../platform/writes/prepared.js';
import { conflict } from '../shared/domain-error.js';
import { LOCK_FAILURES, LOCK_WINDOW_MS, usernameKey } from './user.rules.js';

/** The domain error raised when a user name is already taken (also when two requests race for it). */
export const USERNAME_TAKEN = 'user.username_taken';

export async function findUserByUsername(db: Executor, username: string) {
  return db.selectFrom('users').selectAll().where('username_key', '=', usernameKey(username)).executeTakeFirst();
}

export async function findUserById(db: Executor, id: number) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countUsers(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertUser(
  db: Executor,
  user: { username: string; passwordHash: string; isAdmin: boolean; now: string },
): Promise<number> {
  if (await findUserByUsername(db, user.username)) throw conflict(USERNAME_TAKEN, { username: user.username });
  try {
    return await insertRowReturningId(db, 'users', {
      username: user.username.trim(),
      username_key: usernameKey(user.username),
      password_hash: user.passwordHash,
      is_admin: user.isAdmin ? 1 : 0,
      is_active: 1,
      created_at: user.now,
      last_login_at: null,
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(USERNAME_TAKEN, { username: user.username });
    throw err;
  }
}

export async function updatePasswordHash(db: Executor, userId: number, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}

export async function recordLogin(db: Executor, userId: number, now: string): Promise<void> {
  await db.updateTable('users').set({ last_login_at: now }).where('id', '=', userId).execute();
}

export async function recentLoginFailures(db: Executor, username: string, now: Date): Promise<string[]> {
  const rows = await db
    .selectFrom('login_failures')
    .select('at')
    .where('username_key', '=', usernameKey(username))
    .where('at', '>', new Date(now.getTime() - 2 * LOCK_WINDOW_MS).toISOString())
    .orderBy('at', 'desc')
    .limit(LOCK_FAILURES)
    .execute();
  return rows.map((r) => r.at);
}

export async function recordLoginFailure(db: Executor, username: string, now: Date): Promise<void> {
  await insertRow(db, 'login_failures', { username_key: usernameKey(username), at: now.toISOString() });
}

export async function clearLoginFailures(db: Executor, username: string): Promise<void> {
  await db.deleteFrom('login_failures').where('username_key', '=', usernameKey(username)).execute();
}
