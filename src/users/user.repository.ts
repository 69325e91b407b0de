import type { Executor } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { insertRowReturningId } from '../platform/writes/prepared.js';
import { conflict } from '../shared/domain-error.js';
import { isLocked, LOCK_FAILURES, LOCK_WINDOW_MS, usernameKey } from './user.rules.js';

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

/**
 * Replaces a user's password and bumps their password generation, in the caller's transaction: the database then
 * deletes every session of that user opened under the old password (migration 0150), all but `keepIdHash`'s,
 * which is moved to the new generation first (a user changing their own password stays logged in where they did).
 */
export async function replacePassword(trx: Executor, userId: number, passwordHash: string, keepIdHash?: string): Promise<void> {
  if (keepIdHash !== undefined) {
    await trx
      .updateTable('sessions')
      .set((eb) => ({ password_generation: eb('password_generation', '+', 1) }))
      .where('id_hash', '=', keepIdHash)
      .where('user_id', '=', userId)
      .execute();
  }
  await trx
    .updateTable('users')
    .set((eb) => ({ password_hash: passwordHash, password_generation: eb('password_generation', '+', 1) }))
    .where('id', '=', userId)
    .execute();
}

/**
 * Records a login on the user's row, only while the user is active and the password checked is still theirs
 * (`generation`, read with its hash). False when either changed meanwhile: no session may be opened. On PostgreSQL
 * the update waits for a password change in progress and then finds the new generation; once made, it holds the
 * row until the login commits, so a change that comes after it waits, and then ends the new session.
 */
export async function claimLogin(trx: Executor, userId: number, generation: number, now: string): Promise<boolean> {
  const result = await trx
    .updateTable('users')
    .set({ last_login_at: now })
    .where('id', '=', userId)
    .where('password_generation', '=', generation)
    .where('is_active', '=', 1)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
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

/**
 * Counts a login attempt on `username` before its password is checked (decision 0060), in the caller's transaction:
 * takes the name's turn (the upsert of its login_throttle row, whose lock PostgreSQL holds until the commit), reads
 * its recent failures and, unless they lock the name, records this attempt as a failure at once. Resolves to that
 * failure's id (the attempt may check one password), or null while the name is locked. A successful login removes
 * its own failure and the earlier ones (releaseLoginFailures); an attempt that never finishes stays counted.
 */
export async function reserveLoginAttempt(trx: Executor, username: string, now: Date): Promise<number | null> {
  const key = usernameKey(username);
  const at = now.toISOString();
  await trx
    .insertInto('login_throttle')
    .values({ username_key: key, attempts: 1, last_attempt_at: at })
    .onConflict((oc) =>
      oc.column('username_key').doUpdateSet((eb) => ({ attempts: eb('login_throttle.attempts', '+', 1), last_attempt_at: at })),
    )
    .execute();
  if (isLocked(await recentLoginFailures(trx, username, now), now)) return null;
  return insertRowReturningId(trx, 'login_failures', { username_key: key, at });
}

/**
 * After a successful login: its own counted attempt (`upToId`) and the failures before it are forgotten. Attempts
 * counted after it (still being checked) stay counted.
 */
export async function releaseLoginFailures(trx: Executor, username: string, upToId: number): Promise<void> {
  const key = usernameKey(username);
  await trx.deleteFrom('login_failures').where('username_key', '=', key).where('id', '<=', upToId).execute();
  await trx.updateTable('login_throttle').set({ attempts: 0 }).where('username_key', '=', key).execute();
}

/** Forgets failures and tried names older than `before` (they can no longer lock anything). */
export async function deleteStaleLoginRecords(trx: Executor, before: string): Promise<void> {
  await trx.deleteFrom('login_failures').where('at', '<', before).execute();
  await trx.deleteFrom('login_throttle').where('last_attempt_at', '<', before).execute();
}
