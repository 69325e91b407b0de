// What of a form posted after its session ended is kept, and for how long (decision 0110).

/** How long a kept form waits for its user to log in again. */
export const PENDING_FORM_MINUTES = 30;
/** At most this many fields and characters per value are kept (a form of this application has far fewer). */
const MAX_FIELDS = 200;
const MAX_VALUE = 10_000;

/** Forms kept since this moment are still brought back. */
export const pendingFormNotBefore = (now: Date): Date => new Date(now.getTime() - PENDING_FORM_MINUTES * 60_000);

/** The posted fields as [name, value] pairs, in order, without the CSRF token (it belonged to the ended session). */
export function keptFormFields(body: unknown): [string, string][] {
  if (typeof body !== 'object' || body === null) return [];
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (name === 'csrfmiddlewaretoken') continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === 'string' && pairs.length < MAX_FIELDS) pairs.push([name, v.slice(0, MAX_VALUE)]);
    }
  }
  return pairs;
}

/**
 * The page a form was posted from, from its Referer: a path of this site (same host), never the login page.
 * Null when it cannot tell; the form's own address is used then.
 */
export function safePage(referer: string | undefined, host: string | undefined): string | null {
  if (!referer || !host) return null;
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return null;
  }
  // The Host header may name the default port, which a URL leaves out.
  if (url.host !== host.replace(/:(80|443)$/, '') || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null;
  const page = url.pathname + url.search;
  if (!page.startsWith('/') || page.startsWith('//') || page.startsWith('/users/login') || page.length > 1000) return null;
  return page;
}

/** Whether a request with an ended session posts a form worth keeping: a plain form to a known route, not a logout. */
export function keepsForm(method: string, contentType: string | undefined, routeUrl: string | undefined, path: string): boolean {
  return (
    method === 'POST' &&
    /^application\/x-www-form-urlencoded/i.test(contentType ?? '') &&
    routeUrl !== undefined &&
    !path.startsWith('/users/logout') &&
    !path.startsWith('/users/session/')
  );
}
