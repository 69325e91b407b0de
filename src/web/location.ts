// Redirect targets as a Location header can carry them (issue 25, point 7). Node refuses a header with a character
// outside Latin-1 (a 500 with ERR_INVALID_CHAR, after the handler had done its work), and sends Latin-1 letters as
// single bytes no browser reads as UTF-8: every target is percent-encoded as UTF-8 instead, as browsers write URLs.

/** RFC 3986's unreserved and reserved characters, and '%' starting an escape (`%XX`): kept as they are. */
const ENCODED_AS_TEXT = /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]%]+/g;

/**
 * `target` with every character a URL does not carry as it is percent-encoded as UTF-8 (spaces, control characters,
 * accents, '€', '"', '<', a '%' that starts no escape); escapes already there are kept, so encoding twice changes
 * nothing. Null for text that is not well-formed UTF-16 (a lone surrogate has no UTF-8).
 */
export function encodeLocation(target: string): string | null {
  try {
    return target.replace(ENCODED_AS_TEXT, (run) => encodeURIComponent(run));
  } catch {
    return null;
  }
}

/** A request's URL as the value of a query parameter (`?next=`), its slashes left readable; null if it has none. */
export function asQueryValue(url: string): string | null {
  try {
    return encodeURIComponent(url).replace(/%2F/g, '/');
  } catch {
    return null;
  }
}

/** A header value node accepts, and a browser reads as the same URL: visible ASCII only. */
export const isHeaderSafe = (location: string): boolean => /^[\x21-\x7E]*$/.test(location);
