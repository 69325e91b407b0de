import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import type { FragmentCache } from './fragment-cache.js';
import { Layout } from './layout.js';
import { FragmentSlot, pageContext, renderFragment, sendPage, type Fragment } from './render.js';

/** Bytes of rendered list contents kept per list route (a page of ten patients is 6 to 30 KB). */
export const LIST_CACHE_BYTES = 2 * 1024 * 1024;

/** Bytes of rendered record pages kept per route (a clinical view is about 20 KB, a patient's record 13 KB). */
export const RECORD_CACHE_BYTES = 22 * 1024 * 1024;

/** Fragments of whole page contents. */
export type ContentCache = FragmentCache<{ fragment: Fragment }>;

/**
 * Sends a page whose content (everything inside the layout) depends only on the data and on `key`: rendered once
 * per data version and kept in `cache` (decision 0016). `version` must be read before anything the content shows.
 */
export async function sendCachedPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: { cache: ContentCache; version: string; key: string; title: string; content: () => Promise<VNode> },
): Promise<FastifyReply> {
  const { fragment } = await page.cache.get(page.version, page.key, async () => ({ fragment: renderFragment(await page.content()) }));
  return sendPage(
    reply,
    <Layout ctx={pageContext(request, reply)} title={page.title}>
      <FragmentSlot fragment={fragment} />
    </Layout>,
  );
}
