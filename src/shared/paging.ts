// A list's page as the specification reads the `page` parameter: not a number is the first page, past the last the
// last. One rule for every paged list (the patients, the agenda's days).

export interface PageWindow {
  page: number;
  pageCount: number;
  /** Rows before the page. */
  offset: number;
  /** Rows on the page (0 when the list is empty). */
  size: number;
}

export function pageOf(requested: number, total: number, pageSize: number): PageWindow {
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  const page = Math.min(Math.max(1, Math.trunc(Number.isFinite(requested) ? requested : 1)), pageCount);
  const offset = (page - 1) * pageSize;
  return { page, pageCount, offset, size: Math.max(0, Math.min(pageSize, total - offset)) };
}

/** Where a page number of more digits than this stands: past any list's last page, which `pageOf` then shows. */
const PAST_EVERY_PAGE = 1_000_000_000;

/**
 * A page parameter as the specification reads it: digits are that page (0 the first; so many digits that they pass any
 * list the last page, as `pageOf` clamps them), anything else the first page. The patients' lists, the enrolment
 * report's two lists and the agenda's days read it so.
 */
export function parsePageNumber(raw: string | undefined): number {
  const digits = (raw ?? '').trim();
  if (!/^\d+$/.test(digits)) return 1;
  return digits.length > 9 ? PAST_EVERY_PAGE : Math.max(1, Number(digits));
}
