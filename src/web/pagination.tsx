// The page links of a paged list (the patients', the exams', the enrolment report's, the agenda's).
import { listUrl } from './form.js';

export interface PaginationProps {
  /** The list's path, e.g. '/patients/'. */
  base: string;
  /** Filters every page link keeps (empty ones are left out), e.g. { query_search, mes_filtro }. */
  params: Record<string, string | number | null | undefined>;
  page: number;
  /** null: the list's length is not known (a worklist longer than its counts go); `hasNext` says whether a page follows. */
  pageCount: number | null;
  hasNext?: boolean;
  /** The query parameter of the page number, when a page has two lists ('page' by default). */
  pageParam?: string;
}

/** Page links that keep the list's filters: first, previous, "Página X de Y", next, last ("Página X" and no last when Y is not known). */
export function Pagination({ base, params, page, pageCount, hasNext = false, pageParam = 'page' }: PaginationProps) {
  const next = pageCount === null ? hasNext : page < pageCount;
  if (page <= 1 && !next) return null;
  const href = (n: number) => listUrl(base, { ...params, [pageParam]: n });
  return (
    <nav class="pagination" aria-label="Paginación">
      {page > 1 && (
        <>
          <a href={href(1)} data-page="1">
            « Primera
          </a>
          <a href={href(page - 1)} rel="prev" data-page={String(page - 1)}>
            ‹ Anterior
          </a>
        </>
      )}
      <span aria-current="page">
        Página {page}
        {pageCount === null ? '' : ` de ${pageCount}`}
      </span>
      {next && (
        <a href={href(page + 1)} rel="next" data-page={String(page + 1)}>
          Siguiente ›
        </a>
      )}
      {next && pageCount !== null && (
        <a href={href(pageCount)} data-page={String(pageCount)}>
          Última »
        </a>
      )}
    </nav>
  );
}
