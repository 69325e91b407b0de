import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import { fullTitle, keptShell, Layout } from '../../web/layout.js';
import type { KeptPage } from './page-cache.js';
import { FragmentSlot, pageContext, sendPage, sendPieces, type Fragment } from '../../web/render.js';

/** Bytes of rendered list contents kept per list page (a page of ten patients is 6 to 30 KB). */
export const LIST_PAGE_BYTES = 2 * 1024 * 1024;

/** Bytes of rendered record pages kept per page (a clinical view is about 20 KB, a patient's record 13 KB). */
export const RECORD_PAGE_BYTES = 22 * 1024 * 1024;

/**
 * Sends a kept page's content inside the layout; `fill` goes in its holes, in order, and `after` below it. Without
 * messages the layout is kept too, and the page is put together from the fragments (the same bytes as the render
 * below, which a page with messages takes).
 */
export function sendKeptPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: KeptPage<unknown>,
  options: { fill?: ComponentChildren[]; after?: ComponentChildren; status?: number } = {},
): FastifyReply {
  const fill = options.fill ?? [];
  const ctx = pageContext(request, reply);
  const shell = keptShell(ctx);
  if (shell !== null) {
    const pieces: (Fragment | string | ComponentChildren)[] = [shell[0], fullTitle(page.title), shell[1]];
    page.fragments.forEach((fragment, i) => pieces.push(fragment, i < fill.length ? fill[i] : null));
    pieces.push(options.after, shell[2]);
    return sendPieces(reply, pieces, options.status);
  }
  return sendPage(
    reply,
    <Layout ctx={ctx} title={page.title}>
      {page.fragments.map((fragment, i) => (
        <>
          <FragmentSlot fragment={fragment} />
          {i < fill.length ? fill[i] : null}
        </>
      ))}
      {options.after}
    </Layout>,
    options.status,
  );
}
