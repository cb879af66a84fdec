import { badRequest } from './errors.ts';

/**
 * Page-number pagination shared by the services. Each API names its parameters (`page` and
 * `page-size` in the business number API) and its own default and maximum; pages are 0-based
 * unless the API says otherwise.
 */
export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

export interface PageRules {
  pageParam?: string;
  sizeParam?: string;
  defaultSize: number;
  maxSize: number;
  firstPage?: 0 | 1;
}

function wholeNumber(raw: unknown, field: string, min: number, max: number): number {
  const text = String(raw);
  if (!/^\d+$/.test(text)) throw badRequest(field, `must be a whole number from ${min} to ${max}`);
  const value = Number(text);
  if (value < min || value > max) throw badRequest(field, `must be a whole number from ${min} to ${max}`);
  return value;
}

export function parsePage(query: Record<string, unknown>, rules: PageRules): PageRequest {
  const pageParam = rules.pageParam ?? 'page';
  const sizeParam = rules.sizeParam ?? 'page-size';
  const first = rules.firstPage ?? 0;
  const rawPage = query[pageParam];
  const rawSize = query[sizeParam];
  const page =
    rawPage === undefined || rawPage === '' ? first : wholeNumber(rawPage, pageParam, first, 1_000_000);
  const pageSize =
    rawSize === undefined || rawSize === ''
      ? rules.defaultSize
      : wholeNumber(rawSize, sizeParam, 1, rules.maxSize);
  return { page, pageSize, offset: (page - first) * pageSize };
}
