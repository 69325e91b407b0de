import type { FastifyReply, FastifyRequest } from 'fastify';
import { h, type VNode } from 'preact';
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

// ---------------------------------------------------------------------------------------------------------
// Fragments: parts of a page rendered once, kept as UTF-8 bytes, and placed in later pages as they are.
//
// Encoding a rendered page to UTF-8 is a large part of its cost (accented text takes V8's slow path), so a part
// of a page that depends only on the data (a list's results, a record's forms) is rendered and encoded once and
// kept, keyed by a data version (decision 0016). Each request's own CSRF token cannot be kept: inside a fragment
// CsrfField renders a marker element, and the token's field takes its place when the page is sent. Markers are
// elements, and preact escapes '<' in every text and attribute it renders, so no data can forge one.

const CSRF_MARKER = '<somno-csrf></somno-csrf>';
const SLOT_MARKER = '<somno-fragment></somno-fragment>';

/** Rendered HTML as UTF-8 bytes, cut where each request's CSRF field goes. */
export interface Fragment {
  readonly pieces: readonly Buffer[];
  /** the bytes held, for cache bounds */
  readonly size: number;
}

/** What the render in progress collects: whether it renders a fragment, and the fragments a page places. */
let renderState: { fragment: boolean; slots: Fragment[] } | null = null;

function renderWith(node: VNode, fragment: boolean): { html: string; slots: Fragment[] } {
  const outer = renderState;
  const state = { fragment, slots: [] as Fragment[] };
  renderState = state;
  try {
    return { html: render(node), slots: state.slots };
  } finally {
    renderState = outer;
  }
}

/** Renders a part of a page once; CSRF fields inside it are filled in per request by sendPage. */
export function renderFragment(node: VNode): Fragment {
  const { html, slots } = renderWith(node, true);
  if (slots.length > 0) throw new Error('a fragment cannot place other fragments');
  const pieces = html.split(CSRF_MARKER).map((part) => Buffer.from(part));
  return { pieces, size: pieces.reduce((n, b) => n + b.length, 0) };
}

/** True while a fragment is rendered: CsrfField then leaves the marker. */
export const renderingFragment = (): boolean => renderState?.fragment === true;

/** The element that stands for the CSRF field in a fragment. */
export const CsrfMarker = () => h('somno-csrf', null);

/** Places a fragment in the page being rendered by sendPage. */
export function FragmentSlot({ fragment }: { fragment: Fragment }) {
  if (renderState === null || renderState.fragment) throw new Error('FragmentSlot is only for pages rendered by sendPage');
  renderState.slots.push(fragment);
  return h('somno-fragment', null);
}

/**
 * Renders a page (preact escapes text and attributes) and sends it as bytes, with its fragments in place. Sent
 * as bytes: given a string, Fastify would measure its UTF-8 length and the socket encode it again.
 */
export function sendPage(reply: FastifyReply, page: VNode, status = 200, ctx?: PageContext): FastifyReply {
  const { html, slots } = renderWith(page, false);
  let body: Buffer;
  if (slots.length === 0) body = Buffer.from('<!doctype html>' + html);
  else {
    const token = ctx?.csrfToken ?? reply.generateCsrf();
    const field = Buffer.from(`<input type="hidden" name="csrfmiddlewaretoken" value="${escapeAttribute(token)}"/>`);
    const parts = html.split(SLOT_MARKER);
    const buffers: Buffer[] = [Buffer.from('<!doctype html>' + parts[0])];
    slots.forEach((fragment, i) => {
      fragment.pieces.forEach((piece, j) => {
        if (j > 0) buffers.push(field);
        buffers.push(piece);
      });
      buffers.push(Buffer.from(parts[i + 1] ?? ''));
    });
    body = Buffer.concat(buffers);
  }
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

const escapeAttribute = (s: string): string =>
  s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));

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
