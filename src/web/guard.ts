import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { sendErrorPage } from './errors.js';
import { asQueryValue, encodeLocation, isHeaderSafe } from './location.js';

const PUBLIC_PATHS = new Set(['/users/login/', '/users/login', '/users/setup/', '/users/setup', '/healthz', '/favicon.ico']);

/** The professionals' calendar feeds answer to their secret address alone (a phone's calendar app has no session). */
const PUBLIC_PREFIXES = ['/static/', '/agenda/ical/'];
export const isPublicPath = (path: string): boolean => PUBLIC_PATHS.has(path) || PUBLIC_PREFIXES.some((p) => path.startsWith(p));

/** Every page but the public ones needs a logged-in user; others go to the login page and come back. */
export const guardPlugin = fp(async (app: FastifyInstance) => {
  // A callback hook: every request passes it, and an async hook costs each one a promise.
  app.addHook('onRequest', (request, reply, done) => {
    const path = request.url.split('?')[0] ?? '/';
    if (request.user || isPublicPath(path)) return done();
    // A form posted just after its session ended: its body is read and kept for its user, who is then sent to the
    // login (users/session.plugin.ts); the backstop below keeps its route from ever running.
    if (request.expiredSession?.keepsForm) return done();
    if (path === '/') {
      reply.redirect('/users/login/', 302);
      return;
    }
    // Slashes stay readable, as Django writes it: /users/login/?next=/patients/
    const next = asQueryValue(request.url);
    reply.redirect(next === null ? '/users/login/' : `/users/login/?next=${next}`, 302);
  });
  // Registered after the session plugin's hook that keeps such a form: no route runs without a user.
  app.addHook('preHandler', (request, reply, done) => {
    const path = request.url.split('?')[0] ?? '/';
    if (request.user || isPublicPath(path) || reply.sent) return done();
    reply.redirect('/users/login/', 302);
  });
  // The last guard of every redirect: a Location header node would refuse (a character outside Latin-1, a line
  // break) or a browser would misread (Latin-1 sent as single bytes) is sent percent-encoded instead of answering
  // 500 after the work is done (issue 25, point 7). Targets are built safe; this catches the one that is not.
  app.addHook('onSend', (_request, reply, payload, done) => {
    const location = reply.getHeader('location');
    if (typeof location === 'string' && !isHeaderSafe(location)) reply.header('location', encodeLocation(location) ?? '/');
    done(null, payload);
  });
});

export const ADMIN_ONLY_TEXT = 'Esta sección es solo para administradores.';

/** True when the logged-in user is an administrator. */
export const isAdmin = (request: FastifyRequest): boolean => request.user?.isAdmin === true;

/**
 * preHandler for administrator pages: anyone else gets 403 in the site's layout. Use it per route
 * (`{ preHandler: requireAdmin }`) or for a whole plugin (`app.addHook('preHandler', requireAdmin)`).
 */
export async function requireAdmin(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (!isAdmin(request)) await sendErrorPage(request, reply, 403, { text: ADMIN_ONLY_TEXT });
}
