/**
 * The admin lists' query strings: parsed with zod (a value a page does not understand is a
 * 400 page naming it, never a 500), and written back into links (sorting, pages) keeping every
 * other filter as it was.
 */
import { z } from 'zod';
import type { Translate } from '../../core/i18n.js';
import { AppError } from '../../errors.js';

/** A form's empty field ("any state") means no filter. */
export const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

export const pageField = optional(z.coerce.number().int('page must be a whole number').min(1, 'page must be 1 or more').max(1_000_000));

/**
 * The query of a request by `schema`, or a BAD_REQUEST naming what is wrong: in the page's
 * language with `t` (zod's own words for each problem stay as zod writes them).
 */
export function parseQuery<T extends z.ZodType>(schema: T, query: unknown, t?: Translate): z.output<T> {
  const result = schema.safeParse(query);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`).join('; ');
  throw new AppError(
    'BAD_REQUEST',
    t
      ? t('adminCommon.badQuery', { problems })
      : `This page's address has a value it cannot use (${problems}). Change the filters on the page, or start again from its menu link.`,
    result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
  );
}

type QueryValues = Record<string, string | number | undefined | null>;

/** `path?query` with the given values (empty ones left out). */
export function hrefWith(path: string, values: QueryValues): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values))
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

export interface PagerLink {
  label: string;
  href: string | null;
  current?: boolean;
  /** The previous and next links: the pager writes their words in the page's language. */
  rel?: 'prev' | 'next';
}

/** Prev, the first, the pages around this one, the last, next: "…" between gaps. `param`: the page's query name. */
export function pagerLinks(path: string, query: QueryValues, page: number, pages: number, param = 'page'): PagerLink[] {
  const to = (n: number) => hrefWith(path, { ...query, [param]: n === 1 ? undefined : n });
  const numbers = [...new Set([1, page - 2, page - 1, page, page + 1, page + 2, pages])]
    .filter((n) => n >= 1 && n <= pages)
    .sort((a, b) => a - b);
  const links: PagerLink[] = [{ label: 'Previous', href: page > 1 ? to(page - 1) : null, rel: 'prev' }];
  let last = 0;
  for (const n of numbers) {
    if (n > last + 1) links.push({ label: '…', href: null });
    links.push({ label: String(n), href: to(n), current: n === page });
    last = n;
  }
  links.push({ label: 'Next', href: page < pages ? to(page + 1) : null, rel: 'next' });
  return links;
}
