// The list pages' search and page parameters (`?query_search=…&page=…`). Read by patient.schema.ts's parseListQuery
// and by the follow page of ingresos/, so it imports nothing of ingresos/ (test/import-graph.test.ts).

import { queryValue } from '../web/form.js';
import { parsePageNumber } from '../shared/paging.js';

/** Longest search text kept; anything longer is cut (no name plus documento is this long). */
export const QUERY_SEARCH_MAX = 200;

export interface SearchQuery {
  /** query_search as typed (trimmed, cut to QUERY_SEARCH_MAX); '' for none. */
  query: string;
  /** The requested page, ≥ 1 (a non-number means 1); the list's search clamps it to the last page. */
  page: number;
}

/** `?query_search=…&page=…`; repeated or odd parameters count as absent. */
export function parseSearchQuery(query: unknown): SearchQuery {
  // Control characters cannot be part of a name or a documento (and PostgreSQL refuses NUL in text): dropped.
  const q = (queryValue(query, 'query_search') ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, QUERY_SEARCH_MAX);
  return { query: q, page: parsePageNumber(queryValue(query, 'page')) };
}
