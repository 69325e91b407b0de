import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ExpiredSession } from '../web/deps.js';
import {
  deleteSession,
  findActiveSession,
  insertSession,
  touchSession,
} from './session.repository.js';
import { needsTouch, sessionState } from './session.rules.js';
import { savePendingForm, takePendingForm } from './pending-form.repository.js';
import { keepsForm, keptFormFields, pendingFormNotBefore, safePage } from './pending-form.rules.js';
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
  app.decorateRequest('expiredSession', null);
  app.decorateRequest('restoredForm', null);

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
      const path = request.url.split('?')[0] ?? '/';
      // The idle warning's renewal comes too late: the session stays as it is, so that the form the page may still
      // post is kept for its user (below); the guard answers the renewal with the login.
      if (path === RENEW_PATH) {
        request.expiredSession = { idHash, userId: session.user.id, keepsForm: false };
        return;
      }
      await inTransaction(db, (trx) => deleteSession(trx, idHash));
      clearSessionCookie(reply);
      // A form it posts is kept for this user once its body is read (below); the guard sends the rest to the login.
      const keeps = keepsForm(request.method, request.headers['content-type'], request.routeOptions.url, path);
      request.expiredSession = { idHash, userId: session.user.id, keepsForm: keeps };
      if (!keeps) reply.flash('info', SESSION_ENDED_TEXT);
      return;
    }
    // Writes go through inTransaction, which waits for the file's write turn as a promise (decision 0052).
    if (needsTouch(session.lastSeenAt, now)) await inTransaction(db, (trx) => touchSession(trx, idHash, now.toISOString()));
    request.user = session.user;
    request.sessionIdHash = idHash;
    // The page a kept form comes back on, once, right after its user logged in again (decision 0110).
    if (request.method === 'GET' && request.cookies[RESTORE_COOKIE] !== undefined) {
      const notBefore = pendingFormNotBefore(now).toISOString();
      const form = await inTransaction(db, (trx) => takePendingForm(trx, session.user.id, request.url, notBefore));
      if (form) {
        request.restoredForm = { action: form.action, fields: form.fields };
        reply.clearCookie(RESTORE_COOKIE, restoreCookieOptions(config.isProduction));
      }
    }
  });

  // A form posted with a session that had just ended (its CSRF token checked, bound to that session: app.ts) is kept
  // for that user, and the person is sent to the login; nothing of it is saved until they send it again.
  // A callback hook (every request passes it; an async one would cost each a promise): the rare kept form goes on
  // in keepForm, which answers the request itself.
  app.addHook('preHandler', (request, reply, done) => {
    const expired = request.expiredSession;
    if (request.user || !expired?.keepsForm) return done();
    keepForm(request, reply, expired).catch(done);
  });

  async function keepForm(request: FastifyRequest, reply: FastifyReply, expired: ExpiredSession): Promise<void> {
    const fields = keptFormFields(request.body);
    const page = safePage(request.headers.referer, request.headers.host) ?? request.url;
    if (fields.length > 0) {
      const now = clock.now().toISOString();
      await inTransaction(db, (trx) => savePendingForm(trx, { userId: expired.userId, page, action: request.url.split('?')[0]!, fields, now }));
      reply.flash('warning', FORM_KEPT_TEXT);
    } else {
      reply.flash('info', SESSION_ENDED_TEXT);
    }
    reply.redirect(`/users/login/?next=${encodeURIComponent(page).replace(/%2F/g, '/')}`, 302);
  }
});

/** Where «Seguir trabajando» posts (users/auth.routes.tsx). */
export const RENEW_PATH = '/users/session/renew/';

export const SESSION_ENDED_TEXT = 'Su sesión terminó por inactividad o por tiempo. Inicie sesión de nuevo.';
export const FORM_KEPT_TEXT =
  'Su sesión terminó antes de enviar el formulario. No se guardó nada: inicie sesión de nuevo y el formulario volverá con lo que escribió.';
export const FORM_RESTORED_TEXT =
  'Recuperamos el formulario que envió cuando su sesión ya había terminado. Aún no se ha guardado: revíselo y envíelo de nuevo.';

/** Set at login when the user has a kept form: its page reads it back (only then is the table read). */
export const RESTORE_COOKIE = 'restoreform';
export const restoreCookieOptions = (secure: boolean) => ({ path: '/', httpOnly: true, sameSite: 'lax' as const, secure, signed: false });

/** Marks the browser that logged in as a user with a kept form: the form's page brings it back. */
export function giveRestoreCookie(reply: FastifyReply): void {
  reply.setCookie(RESTORE_COOKIE, '1', { ...restoreCookieOptions(reply.server.deps.config.isProduction), maxAge: 30 * 60 });
}

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
