// CSRF protection (@fastify/csrf-protection): tokens bound to the session (decision 0032), one page token per secret
// and session, and the check after the body is parsed.

import { createHash } from 'node:crypto';
import csrf from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const CSRF_COOKIE = 'csrftoken';
/** Secrets whose page token is kept (one per browser; emptied when full). */
const PAGE_TOKENS_MAX = 10_000;

/** The token from the form field `csrfmiddlewaretoken` or the header `X-CSRFToken`. */
function csrfTokenOf(request: FastifyRequest): string | undefined {
  const field = (request.body as Record<string, unknown> | undefined)?.csrfmiddlewaretoken;
  const header = request.headers['x-csrftoken'];
  return typeof field === 'string' ? field : typeof header === 'string' ? header : undefined;
}

/** What a CSRF token is bound to: the session's id hash (or the one just ended), or 'anonymous' before login (the plugin refuses ''). */
function csrfUserInfo(request: FastifyRequest): string {
  // A form posted just after its session ended carries a token of that session: it is checked against it before
  // the form is kept for its user (decision 0110).
  // Only for such a form: a page rendered for a request whose session just ended is bound to no session.
  const expired = request.expiredSession;
  return request.sessionIdHash ?? (expired?.keepsForm ? expired.idHash : 'anonymous');
}

/** The check of one request, for a scope that parses its body later (the uploads). */
export type CsrfCheck = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void;

/** Registers the plugin, the page token and the renewal on the replies, and the check of every unsafe request. */
export async function registerCsrf(app: FastifyInstance, config: Config): Promise<CsrfCheck> {
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: CSRF_COOKIE,
    cookieOpts: { path: '/', httpOnly: true, sameSite: 'lax', secure: config.isProduction, signed: true },
    getToken: csrfTokenOf,
    // Tokens are bound to the session they were made for (decision 0032): one made before login, or in another
    // session, fails in this one even with its own secret cookie.
    getUserInfo: csrfUserInfo,
    csrfOpts: { hmacKey: createHash('sha256').update(`csrf-session-binding:${config.signingSecret}`).digest() },
  });
  // The token a page's forms carry. The token of a secret stays valid as long as the secret (and the session), so
  // one token per (secret cookie, session) is made and reused: making it (and checking the cookie's signature) was
  // 6 % of a page's time. Pages are never compressed, so a constant token gives a BREACH-style attack nothing.
  const pageTokens = new Map<string, string>();
  app.decorateReply('pageCsrfToken', function (this: FastifyReply) {
    const cookie = this.request.cookies[CSRF_COOKIE];
    const key = cookie === undefined ? undefined : `${cookie}|${csrfUserInfo(this.request)}`;
    const known = key === undefined ? undefined : pageTokens.get(key);
    if (known !== undefined) return known;
    const token = this.generateCsrf({ userInfo: csrfUserInfo(this.request) });
    // Only a cookie this server signed names a secret; a missing or forged one was just replaced by a new secret.
    if (key !== undefined && cookie !== undefined && this.unsignCookie(cookie).valid) {
      if (pageTokens.size >= PAGE_TOKENS_MAX) pageTokens.clear();
      pageTokens.set(key, token);
    }
    return token;
  });
  // A new secret (login, logout): the request's secret cookie is forgotten, so the plugin makes and sets a new one.
  app.decorateReply('renewCsrfSecret', function (this: FastifyReply) {
    delete this.request.cookies[CSRF_COOKIE];
    this.generateCsrf({ userInfo: csrfUserInfo(this.request) });
  });
  // After the body is parsed, so the form field can be read (a check in onRequest would refuse every form). The
  // upload scope's routes are checked by that scope, after their multipart body is parsed (imports/upload-scope.ts).
  const checkCsrf: CsrfCheck = (request, reply, done) => {
    if (!UNSAFE.has(request.method)) return done();
    return app.csrfProtection(request, reply, done);
  };
  app.addHook('preValidation', (request, reply, done) => {
    if (request.routeOptions.config.uploadScope === true) return done();
    return checkCsrf(request, reply, done);
  });
  return checkCsrf;
}
