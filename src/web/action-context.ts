import type { FastifyRequest } from 'fastify';
import type { ActionContext } from '../platform/writes/action-context.js';

/** The context an action runs in for this request: the app's database and clock, the logged-in user, the request id. */
export function actionContext(request: FastifyRequest): ActionContext {
  const { db, clock, config } = request.server.deps;
  const user = request.user;
  return { db, clock, timeZone: config.timeZone, actor: user ? { id: user.id, username: user.username } : null, requestId: String(request.id) };
}
