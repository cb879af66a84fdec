import type { ServiceContext } from '../../../gateway/service-context.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { ENVIRONMENT_PREFIX } from '../../contract.ts';
import { OFFER_NUMBER, SCHEME_NUMBER } from '../domain/records.ts';

/** The two kinds of record with detail answers, versions and sub-resources. */
export type Subject = 'offer' | 'scheme';

/** Each kind's number pattern, its name in messages and its path parameter. */
export const SUBJECT = {
  offer: { pattern: OFFER_NUMBER, what: 'Offer', param: 'offerNumber' },
  scheme: { pattern: SCHEME_NUMBER, what: 'Scheme', param: 'schemeNumber' },
} as const;

/** A read's answer: its content, its Last-Modified, and its ETag when not the bytes' own. */
export interface ReadResult<Body = unknown> {
  body: Body;
  lastModified: Date;
  etag?: string | undefined;
}

/** Where the service's operations are, from the gateway root (`/sandbox/companies-office/disclose-register/v1`). */
export const apiBase = (context: ServiceContext): string =>
  `${ENVIRONMENT_PREFIX[context.environment]}${context.service.path}`;

/** The online register's public pages of this environment, from the gateway root. */
export const registerBase = (context: ServiceContext): string => `${apiBase(context)}/online-register`;

/** An absolute URL of the online register for a path under it (`/offer/OFR10001`). */
export function registerUrl(context: ServiceContext, path: string): string {
  return context.absoluteUrl(`${registerBase(context)}${path}`);
}

export const notFound = (what: string, field?: string, message?: string): HttpError =>
  new HttpError(
    PLATFORM_ERRORS.notFound,
    `${what} is not on the register.`,
    field ? [{ field, message: message ?? 'not found' }] : [],
  );

/** A record's number that must match its pattern; otherwise the record is not there (404). */
export function numberParam(value: string, pattern: RegExp, name: string, what: string): string {
  if (!pattern.test(value))
    throw notFound(`${what} ${JSON.stringify(value.slice(0, 40))}`, name, 'is not a number of this register');
  return value;
}

export const iso = (date: Date | string): string => (typeof date === 'string' ? date : date.toISOString());
