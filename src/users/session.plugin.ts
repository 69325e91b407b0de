import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import {
  deleteSession,
  findActiveSession,
  insertSession,
  touchSession,
} from './session.repository.js';
import { needsTouch, sessionState } from './session.rules.js';
import { inTransaction } from '../platform/writes/transaction.js';
import type { Trx } from '../db/database.js';
import { clearSessionCookie, SESSION_COOKIE, sessionCookieOptions } from '../web/session-cookie.js';

const hashId = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Server-side sessions kept in the database: the cookie holds 256 random bits, the table only their hash.
 * Any instance can serve any request, and ending a session (logout, deactivation) takes effect at once.
 */
export const sessionPlugin = fp(async (app: FastifyInstance) => {
  const { db, config, clock } = app.deps;
  app.decorateRequest('user', null);
  app.decorateRequest('sessionIdHash', null);

  app.addHook('onRequest', async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (!token || token.length > 100) return;
    const idHash = hashId(token);
    const session = await findActiveSession(db, idHash);
    if (!session) {
      clearSessionCookie(reply);
      return;
    }
    const now = clock.now();
    const state = sessionState(session, now, config.sessionIdleMinutes, config.sessionAbsoluteHours);
    if (state !== 'valid') {
      await inTransaction(db, (trx) => deleteSession(trx, idHash));
      clearSessionCookie(reply);
      reply.flash('info', 'Su sesión terminó por inactividad o por tiempo. Inicie sesión de nuevo.');
      return;
    }
    // Writes go through inTransaction, which waits for the file's write turn as a promise (decision 0052).
    if (needsTouch(session.lastSeenAt, now)) await inTransaction(db, (trx) => touchSession(trx, idHash, now.toISOString()));
    request.user = session.user;
    request.sessionIdHash = idHash;
  });
});

/**
 * Opens a fresh session for the user in the caller's transaction, ending the one the request came with (no
 * fixation), under the password generation the login checked (the database refuses another). Resolves to the new
 * cookie value, which `giveSessionCookie` hands to the browser once the transaction has committed: a login that
 * fails before its answer leaves no session behind (issue 25, point 7).
 */
export async function openSession(trx: Trx, request: FastifyRequest, user: { id: number; generation: number }, now: Date): Promise<string> {
  const old = request.cookies[SESSION_COOKIE];
  const token = randomBytes(32).toString('base64url');
  if (old) await deleteSession(trx, hashId(old));
  await insertSession(trx, {
    idHash: hashId(token),
    userId: user.id,
    generation: user.generation,
    now: now.toISOString(),
    ip: request.ip ?? null,
    userAgent: (request.headers['user-agent'] ?? '').slice(0, 300) || null,
  });
  return token;
}

/** Sets the cookie of a session opened by `openSession` (after its transaction committed). */
export function giveSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, sessionCookieOptions(request.server.deps.config.isProduction));
  // The tokens of the pages seen before login stop working: a new CSRF secret, bound to the new session.
  request.sessionIdHash = hashId(token);
  reply.renewCsrfSecret();
}

export async function endSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const idHash = request.sessionIdHash;
  if (idHash) await inTransaction(request.server.deps.db, (trx) => deleteSession(trx, idHash));
  request.user = null;
  request.sessionIdHash = null;
  clearSessionCookie(reply);
  reply.renewCsrfSecret();
}
