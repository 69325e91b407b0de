import type { FastifyReply } from 'fastify';

/** The session cookie (its value: 256 random bits; the sessions table keeps only their hash). */
export const SESSION_COOKIE = 'sessionid';

export function sessionCookieOptions(secure: boolean) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure };
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(reply.server.deps.config.isProduction));
}
