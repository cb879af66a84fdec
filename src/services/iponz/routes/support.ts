/** What the IP office's routes share: the not-found error, paging, the documented-only validator. */
import { RuleError } from '../../../platform/errors.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';

/** The domain's rules speak for themselves: Ajv neither rejects nor coerces these parameters first. */
export const documentedOnly = () => () => true;

export const notFound = (what: string): HttpError => new HttpError(PLATFORM_ERRORS.notFound, `No ${what}`);

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

function wholeNumber(field: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  if (typeof value !== 'string' || !/^[0-9]{1,6}$/.test(value))
    throw new RuleError(field, `must be a whole number from ${min} to ${max}`);
  const number = Number(value);
  if (number < min || number > max)
    throw new RuleError(field, `must be a whole number from ${min} to ${max}`);
  return number;
}

/** `page` (from 1) and `page-size` (1–100) checked. */
export function parsePaging(query: Record<string, unknown>): { page: number; pageSize: number } {
  return {
    page: wholeNumber('page', query.page, 1, 1, 100_000),
    pageSize: wholeNumber('page-size', query['page-size'], DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE),
  };
}
