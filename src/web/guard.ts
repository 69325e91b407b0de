import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const PUBLIC_PATHS = new Set(['/users/login/', '/users/login', '/users/setup/', '/users/setup', '/healthz', '/favicon.ico']);

export const isPublicPath = (path: string): boolean => PUBLIC_PATHS.has(path) || path.startsWith('/static/');

/** Every page but the public ones needs a logged-in user; others go to the login page and come back. */
export const guardPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (request.user || isPublicPath(path)) return;
    if (path === '/') return reply.redirect('/users/login/', 302);
    // Slashes stay readable, as Django writes it: /users/login/?next=/patients/
    const next = encodeURIComponent(request.url).replace(/%2F/g, '/');
    return reply.redirect(`/users/login/?next=${next}`, 302);
  });
});
