import type { SessionUser } from '../web/deps.js';
import type { Executor } from '../db/database.js';
import { insertRow, precompiled } from '../platform/writes/prepared.js';

export type { SessionUser };

export interface SessionRecord {
  idHash: string;
  createdAt: string;
  lastSeenAt: string;
  user: SessionUser;
}

const selectActiveSession = precompiled((db: Executor, idHash: string) =>
  db
    .selectFrom('sessions')
    // Honoured only under the password it was opened with (migration 0150, decision 0061).
    .innerJoin('users', (join) =>
      join.onRef('users.id', '=', 'sessions.user_id').onRef('users.password_generation', '=', 'sessions.password_generation'),
    )
    .select([
      'sessions.id_hash',
      'sessions.created_at',
      'sessions.last_seen_at',
      'users.id as user_id',
      'users.username',
      'users.is_admin',
    ])
    .where('sessions.id_hash', '=', idHash)
    .where('users.is_active', '=', 1),
);

/**
 * One indexed read (every request makes it): the session and its user, only while the user is active and the
 * session was opened under the user's current password.
 */
export async function findActiveSession(db: Executor, idHash: string): Promise<SessionRecord | null> {
  const [row] = await selectActiveSession(db, idHash);
  if (!row) return null;
  return {
    idHash: row.id_hash,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    user: { id: row.user_id, username: row.username, isAdmin: row.is_admin === 1 },
  };
}

export async function insertSession(
  db: Executor,
  session: { idHash: string; userId: number; generation: number; now: string; ip: string | null; userAgent: string | null },
): Promise<void> {
  // The database refuses a generation that is no longer the user's (migration 0150).
  await insertRow(db, 'sessions', {
    id_hash: session.idHash,
    user_id: session.userId,
    password_generation: session.generation,
    created_at: session.now,
    last_seen_at: session.now,
    ip: session.ip,
    user_agent: session.userAgent,
  });
}

export async function touchSession(db: Executor, idHash: string, now: string): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: now }).where('id_hash', '=', idHash).execute();
}

export async function deleteSession(db: Executor, idHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}

export async function deleteSessionsOfUser(db: Executor, userId: number, exceptIdHash?: string): Promise<void> {
  let q = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (exceptIdHash) q = q.where('id_hash', '!=', exceptIdHash);
  await q.execute();
}

/** The user's open sessions (those opened under their current password), the latest used first. */
export async function listSessionsOfUser(db: Executor, userId: number) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', (join) =>
      join.onRef('users.id', '=', 'sessions.user_id').onRef('users.password_generation', '=', 'sessions.password_generation'),
    )
    .select(['sessions.id_hash', 'sessions.created_at', 'sessions.last_seen_at', 'sessions.ip', 'sessions.user_agent'])
    .where('sessions.user_id', '=', userId)
    .orderBy('sessions.last_seen_at', 'desc')
    .execute();
}

/** Removes sessions that can no longer be used, so the table does not grow without bound. */
export async function deleteExpiredSessions(db: Executor, idleBefore: string, createdBefore: string): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('last_seen_at', '<', idleBefore), eb('created_at', '<', createdBefore)]))
    .execute();
}
