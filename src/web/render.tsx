import type { FastifyReply, FastifyRequest } from 'fastify';
import { Fragment as PreactFragment, h, type ComponentChildren, type VNode } from 'preact';
import { jsxTemplate } from 'preact/jsx-runtime';
import { render } from 'preact-render-to-string';
import type { RestoredForm, SessionUser } from './deps.js';
import type { Message } from './deps.js';

/** What every page needs from the request: who is logged in, the messages to show, where it is. */
export interface PageContext {
  user: SessionUser | null;
  messages: Message[];
  path: string;
  idleMinutes: number;
  requestId: string;
  /** a form posted after its session ended, to fill on this page (decision 0110) */
  restoredForm?: RestoredForm | null;
}

export function pageContext(request: FastifyRequest, reply: FastifyReply): PageContext {
  return {
    user: request.user,
    messages: reply.takeMessages(),
    path: request.url.split('?')[0] ?? '/',
    idleMinutes: request.server.deps.config.sessionIdleMinutes,
    requestId: String(request.id),
    restoredForm: request.restoredForm ?? reply.takeFlashForm(),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Pages are rendered by preact (which escapes every text and attribute) and sent as UTF-8 bytes. Parts of a page
// that depend only on the data (a list's results, a record's forms) can be rendered once, kept as bytes, and
// placed in later pages as they are: encoding accented text to UTF-8 takes V8's slow path, and was a large part
// of a page's cost (decision 0016).
//
// Each request's CSRF token is never rendered into the HTML: CsrfField renders a marker element, and sendPage puts
// the token's field in its place, in the page and in every kept fragment alike. Markers are elements, and preact
// escapes '<' in every text and attribute it renders, so no data can forge one.

const CSRF_MARKER = '<somno-csrf></somno-csrf>';
const SLOT_MARKER = '<somno-fragment></somno-fragment>';

/** A piece of a fragment: bytes, or null where each request's CSRF field goes. */
export type FragmentPart = Buffer | null;

/** Rendered HTML as UTF-8 bytes. Fragments placed inside it are shared, not copied. */
export interface Fragment {
  readonly parts: readonly FragmentPart[];
  /** the bytes it holds itself (fragments placed inside it not counted), for cache bounds */
  readonly size: number;
}

/** The fragments placed by the render in progress (rendering is synchronous); null outside any render. */
let placed: Fragment[] | null = null;

/** Renders a node, then splices the fragments it placed and cuts at the CSRF markers. */
function renderParts(node: VNode, prefix: string, kept: boolean): { parts: FragmentPart[]; size: number } {
  const outer = placed;
  const slots: Fragment[] = [];
  placed = slots;
  let html: string;
  try {
    html = prefix + render(node);
  } finally {
    placed = outer;
  }
  const parts: FragmentPart[] = [];
  let size = 0;
  const pushHtml = (text: string) =>
    text.split(CSRF_MARKER).forEach((piece, i) => {
      if (i > 0) parts.push(null);
      if (piece === '') return;
      const bytes = kept ? unpooled(piece) : Buffer.from(piece);
      size += bytes.length;
      parts.push(bytes);
    });
  const segments = slots.length === 0 ? [html] : html.split(SLOT_MARKER);
  pushHtml(segments[0]!);
  slots.forEach((fragment, i) => {
    for (const part of fragment.parts) parts.push(part);
    pushHtml(segments[i + 1] ?? '');
  });
  return { parts, size };
}

/** Renders a part of a page once, to be placed in pages (or in other fragments) by FragmentSlot. */
export function renderFragment(node: VNode): Fragment {
  return renderParts(node, '', true);
}

/**
 * The text's bytes in memory of their own. Node hands out short buffers as slices of shared 8 KB blocks, and one
 * kept slice keeps its whole block alive (with many kept rows, most of the memory held was such blocks).
 */
function unpooled(text: string): Buffer {
  const bytes = Buffer.from(text);
  if (bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}

/** Renders a frame once, cut where its `markers` ContentMarkers stand: the fragments between them, in order. */
export function renderFrame(node: VNode, markers: number): Fragment[] {
  const frame = renderFragment(node);
  const pieces: FragmentPart[][] = [[]];
  for (const part of frame.parts) {
    if (part === null) {
      pieces[pieces.length - 1]!.push(part);
      continue;
    }
    let rest = part;
    for (let at = rest.indexOf(CONTENT_MARKER_BYTES); at >= 0; at = rest.indexOf(CONTENT_MARKER_BYTES)) {
      pieces[pieces.length - 1]!.push(rest.subarray(0, at));
      pieces.push([]);
      rest = rest.subarray(at + CONTENT_MARKER_BYTES.length);
    }
    pieces[pieces.length - 1]!.push(rest);
  }
  if (pieces.length !== markers + 1) throw new Error(`renderFrame expected ${markers} ContentMarkers, found ${pieces.length - 1}`);
  return pieces.map(fragmentOfParts);
}

/** Parts as a fragment, with the bytes they hold. */
export function fragmentOfParts(parts: readonly FragmentPart[]): Fragment {
  return { parts, size: parts.reduce((n, b) => n + (b?.length ?? 0), 0) };
}

/** Where renderFrame cuts a frame. */
export const ContentMarker = () => h('somno-content', null);
const CONTENT_MARKER_BYTES = Buffer.from('<somno-content></somno-content>');

/** The element CsrfField renders: sendPage replaces it with the request's token field. */
export const CsrfMarker = () => h('somno-csrf', null);

/** Places a kept fragment in the page or fragment being rendered. */
export function FragmentSlot({ fragment }: { fragment: Fragment }) {
  if (placed === null) throw new Error('FragmentSlot is only for pages rendered by sendPage or renderFragment');
  placed.push(fragment);
  return h('somno-fragment', null);
}

/**
 * Renders a page, fills in the CSRF fields and the fragments, and sends it as bytes (given a string, Fastify would
 * measure its UTF-8 length and the socket encode it again).
 */
export function sendPage(reply: FastifyReply, page: VNode, status = 200): FastifyReply {
  return sendParts(reply, renderParts(page, DOCTYPE, false).parts, status);
}

/**
 * Sends a page made of pieces in order, the same bytes as rendering them as the children of one fragment with
 * sendPage: a kept fragment placed as it is, text escaped as preact escapes a text child, anything else rendered. A
 * kept page is mostly fragments: it is put together without a render of the whole.
 */
export function sendPieces(reply: FastifyReply, pieces: readonly (Fragment | string | ComponentChildren)[], status = 200): FastifyReply {
  const parts: FragmentPart[] = [DOCTYPE_BYTES];
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      if (piece !== '') parts.push(Buffer.from(escapeAsPreact(piece)));
    } else if (isFragment(piece)) {
      for (const part of piece.parts) parts.push(part);
    } else {
      pushPartsOf(parts, piece);
    }
  }
  return sendParts(reply, parts, status);
}

/**
 * The parts of nodes as their render gives them, into `parts`: a kept fragment's slot placed without a render, an
 * array piece by piece, nothing for what preact renders as nothing, anything else rendered.
 */
function pushPartsOf(parts: FragmentPart[], children: ComponentChildren): void {
  if (children === null || children === undefined || typeof children === 'boolean') return;
  if (Array.isArray(children)) {
    for (const child of children) pushPartsOf(parts, child as ComponentChildren);
  } else if (typeof children === 'object' && 'type' in children && children.type === FragmentSlot) {
    for (const part of (children.props as { fragment: Fragment }).fragment.parts) parts.push(part);
  } else {
    for (const part of renderParts(h(PreactFragment, null, children), '', false).parts) parts.push(part);
  }
}

/** The parts of nodes, the same bytes as their render (kept fragments' slots placed without one). */
export function partsOf(children: ComponentChildren): FragmentPart[] {
  const parts: FragmentPart[] = [];
  pushPartsOf(parts, children);
  return parts;
}

const DOCTYPE = '<!doctype html>';
const DOCTYPE_BYTES = Buffer.from(DOCTYPE);

const isFragment = (piece: unknown): piece is Fragment =>
  typeof piece === 'object' && piece !== null && Array.isArray((piece as Fragment).parts) && typeof (piece as Fragment).size === 'number';

/** Sends the parts as one body, the request's CSRF field where each null stands. */
function sendParts(reply: FastifyReply, parts: readonly FragmentPart[], status: number): FastifyReply {
  let field: Buffer | null = null;
  const body = parts.map(
    (part) => part ?? (field ??= Buffer.from(`<input type="hidden" name="csrfmiddlewaretoken" value="${escapeAttribute(csrfToken(reply))}"/>`)),
  );
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(body.length === 1 ? body[0] : Buffer.concat(body));
}

/** The request's CSRF token; none (forms then fail their check) when the request never reached the CSRF plugin. */
function csrfToken(reply: FastifyReply): string {
  try {
    return reply.pageCsrfToken();
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------------------
// Markup rendered once (issue 30). Constant parts of a page (a form's fields, labels and option lists) cost more
// to render than anything a record page reads: they are rendered by preact once, escaped as everything it renders,
// and placed as text afterwards. `Markup` is only made here: from a render, or from escaped text.

/** HTML that preact rendered (so escaped), or text escaped as preact escapes it; never anything else. */
export type Markup = string & { readonly __markup: unique symbol };

/** A node rendered once, as markup to place later with Prerendered. */
export const markupOf = (node: VNode): Markup => render(node) as Markup;

/** Text (typed by someone, read from the database) as markup: escaped. */
export const escapedMarkup = (text: string): Markup => escapeAsPreact(text) as Markup;

/** Text escaped as preact escapes every text and attribute it renders (", & and <): the same bytes as its render. */
const escapeAsPreact = (s: string): string =>
  /["&<]/.test(s) ? s.replace(/["&<]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&quot;')) : s;

/** Pieces of markup one after the other. */
export const joinMarkup = (pieces: readonly Markup[]): Markup => pieces.join('') as Markup;

/** Places markup as it is, without a wrapping element (preact's own node for precompiled templates). */
export const Prerendered = ({ markup }: { markup: Markup }): VNode => jsxTemplate([markup]);

/** Markup cut at each occurrence of a text that preact rendered in it (an attribute's value, an element's text). */
export const splitMarkup = (markup: Markup, at: string): Markup[] => markup.split(at) as Markup[];

/** A node rendered once with `hole` standing in it exactly once, cut there: the markup before and after. */
export function cutMarkup(node: VNode, hole: string): [before: Markup, after: Markup] {
  const pieces = splitMarkup(markupOf(node), hole);
  if (pieces.length !== 2) throw new Error(`cutMarkup: the hole appears ${pieces.length - 1} times`);
  return pieces as [Markup, Markup];
}

/**
 * A node rendered once with `hole` standing for a text value (an attribute's or an element's text), cut there:
 * the returned function gives the node's markup with a value escaped where the hole was, the same bytes as
 * rendering the node with that value. The empty value is rendered on its own (preact writes `value=""` as
 * `value`).
 */
export function markupTemplate(renderWith: (value: string) => VNode, hole: string): (value: string) => Markup {
  const [before, after] = cutMarkup(renderWith(hole), hole);
  const empty = markupOf(renderWith(''));
  return (value) => (value === '' ? empty : ((before + escapeAsPreact(value) + after) as Markup));
}

/**
 * A select's markup for each of its known values, from one render of it with none chosen: choosing a value only
 * adds `selected` to its option, so each value keeps where and what its render adds (one render per value ever
 * chosen, bounded by the known values). An unknown value (a posted or imported one outside the list) is rendered
 * each time.
 */
export function markupByChoice(renderWith: (value: string) => VNode, known: (value: string) => boolean): (value: string) => Markup {
  let none: Markup | null = null;
  const added = new Map<string, { at: number; text: string } | Markup>();
  return (value) => {
    if (!known(value)) return markupOf(renderWith(value));
    none ??= markupOf(renderWith(''));
    let found = added.get(value);
    if (found === undefined) {
      const full = markupOf(renderWith(value));
      let at = 0;
      while (at < none.length && none.charCodeAt(at) === full.charCodeAt(at)) at++;
      const text = full.slice(at, at + full.length - none.length);
      // Kept whole if the render differs in more than one insertion.
      found = none.slice(0, at) + text + none.slice(at) === full ? { at, text } : full;
      added.set(value, found);
    }
    return typeof found === 'string' ? found : ((none.slice(0, found.at) + found.text + none.slice(found.at)) as Markup);
  };
}

/** Text for a double-quoted attribute (or an element's text): &, <, > and " escaped. */
export const escapeAttribute = (s: string): string =>
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
