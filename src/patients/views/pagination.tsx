// The lists' page links live with the web plumbing (the agenda's day pages them too).
export { Pagination, type PaginationProps } from '../../web/pagination.js';
