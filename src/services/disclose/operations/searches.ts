import type { ServiceContext } from '../../../gateway/service-context.ts';
import { isDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import { pageOf, versionId } from '../domain/records.ts';
import { latestChange, newOrChanged, type SummaryRow, search } from '../store/searches.ts';
import { apiBase, iso, type ReadResult, registerUrl, type Subject } from './common.ts';

/**
 * The searches and new-or-changed. Their answers change whenever any record of their kind changes, so
 * their Last-Modified is the kind's latest change (store/searches.ts, `latestChange`).
 */

/** The search criteria's published names, in the order an answer's links repeat them. */
export const searchCriteria = (subject: Subject): readonly string[] =>
  subject === 'offer'
    ? ['name-or-number', 'status', kindParameter(subject), 'issuer', 'offer-or-issuer-name-or-number', 'type']
    : ['name-or-number', 'status', kindParameter(subject), 'issuer'];

/** The published name of the kind criterion: `product-type` (offers) or `scheme-type` (schemes). */
export const kindParameter = (subject: Subject) => (subject === 'offer' ? 'product-type' : 'scheme-type');

export interface SearchInput {
  subject: Subject;
  /** Name or number contains (case ignored): 1 to 100 characters, not only spaces. */
  nameOrNumber?: string | undefined;
  status?: string | undefined;
  /** Product type (offers) or scheme type (schemes). */
  kind?: string | undefined;
  /** Issuer's (offers) or manager's (schemes) name contains. */
  issuer?: string | undefined;
  /** Offers: the offer's name or number, or its issuer's name, contains (case ignored). */
  anyName?: string | undefined;
  /** Offers: `type`, the public client's name of `product-type` (the same value when both are given). */
  type?: string | undefined;
  page: PageRequest;
}

/** A summary item of a search or new-or-changed answer (and of a scheme's offers). */
export function summary(context: ServiceContext, subject: Subject, row: SummaryRow) {
  return {
    number: row.number,
    name: row.name,
    status: row.status,
    type: row.kind,
    issuer: row.issuer,
    versionId: versionId(row.number, row.version),
    lastChanged: iso(row.lastChanged),
    href: `${apiBase(context)}/${subject}/${row.number}`,
    registerUrl: registerUrl(context, `/${subject}/${row.number}`),
  };
}

/** One page of offers or schemes matching every criterion given; Last-Modified: the kind's latest change. */
export async function searchRecords(context: ServiceContext, input: SearchInput): Promise<ReadResult> {
  const { subject, page } = input;
  const text = input.nameOrNumber;
  if (text !== undefined && text.trim() === '') {
    throw new RuleError('name-or-number', 'must be 1 to 100 characters');
  }
  if (input.anyName !== undefined && input.anyName.trim() === '') {
    throw new RuleError('offer-or-issuer-name-or-number', 'must be 1 to 100 characters');
  }
  if (
    input.type !== undefined &&
    input.kind !== undefined &&
    input.type.toLowerCase() !== input.kind.toLowerCase()
  ) {
    throw new RuleError('type', 'and product-type are the same criterion; given both, they must be equal');
  }
  const pool = context.database.pool;
  const [found, lastModified] = await Promise.all([
    search(
      pool,
      subject,
      {
        text: text?.trim(),
        status: input.status,
        productType: input.kind ?? input.type,
        issuer: input.issuer,
        anyName: input.anyName?.trim(),
      },
      { limit: page.pageSize, offset: page.offset },
    ),
    latestChange(pool, subject),
  ]);
  const given = [input.nameOrNumber, input.status, input.kind, input.issuer, input.anyName, input.type];
  const extra = searchCriteria(subject)
    .map((name, i) => [name, given[i]] as const)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`)
    .join('&');
  return {
    body: {
      ...pageOf(
        found.rows.map((row) => summary(context, subject, row)),
        found.total,
        page,
        `${apiBase(context)}/${subject}s`,
        extra,
      ),
      registerUrl: registerUrl(context, `/${subject}s`),
    },
    lastModified,
  };
}

export interface ChangedInput {
  subject: Subject;
  /** First and last day, New Zealand dates `YYYY-MM-DD`, both inclusive. */
  from: string;
  to: string;
  page: PageRequest;
}

/** Offers or schemes new or changed from one day to another; Last-Modified: the kind's latest change. */
export async function listNewOrChanged(context: ServiceContext, input: ChangedInput): Promise<ReadResult> {
  const { subject, from, to, page } = input;
  if (!isDate(from)) throw new RuleError('start-date', 'must be a date YYYY-MM-DD');
  if (!isDate(to)) throw new RuleError('end-date', 'must be a date YYYY-MM-DD');
  if (from > to) throw new RuleError('end-date', 'must not be before start-date');
  const pool = context.database.pool;
  const [found, lastModified] = await Promise.all([
    newOrChanged(pool, subject, from, to, { limit: page.pageSize, offset: page.offset }),
    latestChange(pool, subject),
  ]);
  return {
    body: {
      ...pageOf(
        found.rows.map((row) => summary(context, subject, row)),
        found.total,
        page,
        `${apiBase(context)}/new-or-changed-${subject}s`,
        `start-date=${from}&end-date=${to}`,
      ),
      registerUrl: registerUrl(context, `/${subject}s`),
    },
    lastModified,
  };
}
