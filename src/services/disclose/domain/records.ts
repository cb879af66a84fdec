/**
 * The register's records as the API answers them (ours, in the register's vocabulary; the README's
 * "Answers" section): version identifiers, the 10-item cut of arrays in main answers with a link to all
 * of them, the paginated lists, and the fund updates' limits. Pure: the caller passes what it read.
 */
import { RuleError } from '../../../platform/errors.ts';
import type { PageRules } from '../../../platform/http/pagination.ts';

/** Arrays of objects in a main answer hold this many items; a link leads to all of them. */
export const MAIN_ARRAY_ITEMS = 10;
/** Paging (ours): `page` from 1, `page-size` 1 to 100, 20 by default. */
export const PAGE_RULES: PageRules = {
  pageParam: 'page',
  sizeParam: 'page-size',
  defaultSize: 20,
  maxSize: 100,
  firstPage: 1,
};

export type SubjectKind = 'offer' | 'scheme' | 'fund';

export const OFFER_NUMBER = /^OFR[0-9]{5,9}$/;
export const SCHEME_NUMBER = /^SCH[0-9]{5,9}$/;
export const FUND_NUMBER = /^FND[0-9]{5,9}$/;
export const DOCUMENT_REC_ID = /^DOC[0-9]{6,9}$/;

/** The type of the regulator's notices' documents (published: the last segment of their list's path). */
export const NOTICE_DOCUMENTS = 'financial-markets-authority-notice-documents';

/** A signed document URL (platform/signed-url.ts) lives this many seconds (ours). */
export const SIGNED_URL_SECONDS = 300;

/** A version identifier: the record's number, `-v` and the version's ordinal (`OFR10001-v3`). */
export const versionId = (number: string, version: number): string => `${number}-v${version}`;

/**
 * The ordinal a `version` parameter names for this record: undefined when absent (the current version);
 * a RuleError for one of another record or not a version identifier at all.
 */
export function parseVersion(raw: unknown, number: string, parameter = 'version'): number | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw);
  const match = /^([A-Z]{3}[0-9]{5,9})-v([1-9][0-9]{0,5})$/.exec(text);
  if (!match) {
    throw new RuleError(parameter, `must be a version identifier such as ${number}-v1`);
  }
  if (match[1] !== number) {
    throw new RuleError(parameter, `must be a version identifier of ${number} (${number}-v<n>)`);
  }
  return Number(match[2]);
}

export interface Link {
  rel: string;
  href: string;
  /** For a link to all items of an array: how many there are. */
  count?: number;
}

/** The first 10 items of an array of a main answer, and the link to all of them. */
export function cut<T>(
  items: readonly T[],
  total: number,
  rel: string,
  href: string,
): { items: T[]; link: Link } {
  return { items: items.slice(0, MAIN_ARRAY_ITEMS), link: { rel, href, count: total } };
}

export interface PageRequestOf {
  page: number;
  pageSize: number;
}

/** A page of a paginated list: its items, counts, and links to itself and its neighbours. */
export function pageOf<T>(
  items: T[],
  total: number,
  page: PageRequestOf,
  href: string,
  extraQuery = '',
): { page: number; pageSize: number; totalItems: number; totalPages: number; items: T[]; links: Link[] } {
  const totalPages = Math.max(1, Math.ceil(total / page.pageSize));
  const at = (n: number) =>
    `${href}?${extraQuery}${extraQuery ? '&' : ''}page=${n}&page-size=${page.pageSize}`;
  const links: Link[] = [{ rel: 'self', href: at(page.page) }];
  if (page.page > 1) links.push({ rel: 'prev', href: at(page.page - 1) });
  if (page.page < totalPages) links.push({ rel: 'next', href: at(page.page + 1) });
  return { page: page.page, pageSize: page.pageSize, totalItems: total, totalPages, items, links };
}
