import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendErrorPage } from '../web/errors.js';

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
