import { Type } from '@sinclair/typebox';
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

/**
 * The paging parameters of an operation's query schema, under the API's own names, with their bounds
 * and defaults: spread into the operation's `querystring` object so the kit validates them and the
 * OpenAPI document shows them; `parsePage` then reads the validated values.
 */
export function pagingProperties(rules: PageRules) {
  const first = rules.firstPage ?? 0;
  return {
    [rules.pageParam ?? 'page']: Type.Optional(
      Type.Integer({ minimum: first, maximum: 1_000_000, description: `The page, from ${first}.` }),
    ),
    [rules.sizeParam ?? 'page-size']: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: rules.maxSize,
        description: `Items a page, 1 to ${rules.maxSize}; ${rules.defaultSize} by default.`,
      }),
    ),
  };
}
