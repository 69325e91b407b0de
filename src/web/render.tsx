import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { render } from 'preact-render-to-string';
import type { SessionUser } from '../users/session.repository.js';
import type { Message } from './deps.js';

/** What every page needs from the request: who is logged in, the CSRF token, the messages to show. */
export interface PageContext {
  user: SessionUser | null;
  csrfToken: string;
  messages: Message[];
  path: string;
  idleMinutes: number;
  requestId: string;
}

export function pageContext(request: FastifyRequest, reply: FastifyReply): PageContext {
  return {
    user: request.user,
    csrfToken: reply.generateCsrf(),
    messages: reply.takeMessages(),
    path: request.url.split('?')[0] ?? '/',
    idleMinutes: request.server.deps.config.sessionIdleMinutes,
    requestId: String(request.id),
  };
}

/** Renders a page (preact escapes text and attributes) and sends it. */
export function sendPage(reply: FastifyReply, page: VNode, status = 200): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send('<!doctype html>' + render(page));
}

/** Redirect (302) after queuing a one-time message. */
export function redirectWith(
  reply: FastifyReply,
  location: string,
  level: Message['level'],
  text: string,
): FastifyReply {
  reply.flash(level, text);
  return reply.redirect(location, 302);
}
