/**
 * The admin lists' pages (the plugin's own lists in admin-views.repo.ts, the fleet's in
 * fleet/view.ts): what a request may ask for, made safe, and the page it gets back.
 */

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export interface PageRequest {
  /** 1-based; default 1. */
  page?: number;
  /** Default 50, at most 200. */
  pageSize?: number;
}

export interface Page<T> {
  rows: T[];
  total: number;
  page: number;
  pageSize: number;
  /** At least 1, so "page 1 of 1" reads right for an empty list. */
  pages: number;
}

/** The page and size asked for, made safe: whole numbers, 1-based, size within 1..200. */
export function pageWindow(request: PageRequest): { page: number; pageSize: number; offset: number } {
  const page = Math.max(1, Math.trunc(request.page ?? 1) || 1);
  const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.trunc(request.pageSize ?? DEFAULT_PAGE_SIZE) || DEFAULT_PAGE_SIZE));
  return { page, pageSize, offset: (page - 1) * pageSize };
}

export const pageOf = <T>(rows: T[], total: number, window: { page: number; pageSize: number }): Page<T> => ({
  rows,
  total,
  page: window.page,
  pageSize: window.pageSize,
  pages: Math.max(1, Math.ceil(total / window.pageSize)),
});
