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
