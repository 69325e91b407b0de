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

/** Starts a fresh session for the user, ending the one the request came with (no fixation). */
export async function startSession(request: FastifyRequest, reply: FastifyReply, userId: number): Promise<void> {
  const { db, clock, config } = request.server.deps;
  const old = request.cookies[SESSION_COOKIE];
  const token = randomBytes(32).toString('base64url');
  await inTransaction(db, async (trx) => {
    if (old) await deleteSession(trx, hashId(old));
    await insertSession(trx, {
      idHash: hashId(token),
      userId,
      now: clock.now().toISOString(),
      ip: request.ip ?? null,
      userAgent: (request.headers['user-agent'] ?? '').slice(0, 300) || null,
    });
  });
  reply.setCookie(SESSION_COOKIE, token, sessionCookieOptions(config.isProduction));
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
