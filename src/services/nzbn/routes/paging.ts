/**
 * Paging of the register's listings (entity search, change events, organisation parts, watchlists): the
 * published `page` (0-based) and `page-size` (10 by default, at most 50) through the platform's
 * `pagingProperties` and `parsePage`, and the published envelope `{pageSize, page, totalItems, sortBy,
 * sortOrder, items, links}` made in one place.
 */
import { type PageRequest, parsePage } from '../../../platform/http/pagination.ts';
import { baseUrl, link, type NzbnContext } from '../operations/support.ts';
import { PAGE_RULES } from '../schemas/operations.ts';

/** The page a listing's validated query asks for. */
export const pageOf = (query: { page?: number; 'page-size'?: number }): PageRequest =>
  parsePage(query, PAGE_RULES);

export interface Listing {
  /** The listing's path under the API's base address, say `/entities/changes`. */
  path: string;
  query: Record<string, unknown>;
  /** The query parameters its links carry over (never a subscription key given in the query). */
  carried: readonly string[];
}

/**
 * `self`, `next` and `prev` links of a paged listing. Only the listing's own parameters are carried
 * over — never a subscription key given in the query.
 */
export function pageLinks(href: string, listing: Listing, page: PageRequest, total: number) {
  const self = new URL(href);
  for (const name of listing.carried) {
    const value = listing.query[name];
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      self.searchParams.append(name, String(one));
    }
  }
  const at = (n: number) => {
    const url = new URL(self);
    url.searchParams.set('page', String(n));
    url.searchParams.set('page-size', String(page.pageSize));
    return url.href;
  };
  const links = [link('self', at(page.page))];
  if ((page.page + 1) * page.pageSize < total) links.push(link('next', at(page.page + 1)));
  if (page.page > 0) links.push(link('prev', at(page.page - 1)));
  return links;
}

/** The published envelope of one page of a listing. */
export function pagedEnvelope<T>(
  context: NzbnContext,
  listing: Listing,
  page: PageRequest,
  found: { total: number; items: T[] },
  sort: { sortBy: string | null; sortOrder: string | null },
) {
  return {
    pageSize: page.pageSize,
    page: page.page,
    totalItems: found.total,
    sortBy: sort.sortBy,
    sortOrder: sort.sortOrder,
    items: found.items,
    links: pageLinks(`${baseUrl(context)}${listing.path}`, listing, page, found.total),
  };
}
