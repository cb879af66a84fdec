import type { ServiceContext } from '../../../gateway/service-context.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import { pageOf } from '../domain/records.ts';
import { recordAt } from '../store/register.ts';
import {
  apiBase,
  notFound,
  numberParam,
  type ReadResult,
  registerUrl,
  SUBJECT,
  type Subject,
} from './common.ts';

/**
 * What the paginated sub-resources of an offer or a scheme share (records.ts, notices.ts): the record
 * they belong to, found or 404, and their page under the record's path.
 */

/** A sub-resource's input: the record and the page. */
export interface SubResourceInput {
  subject: Subject;
  number: string;
  page: PageRequest;
}

/** The record a sub-resource belongs to, current: 404 when it is not on the register. */
export async function existingRecord(context: ServiceContext, subject: Subject, raw: string) {
  const { pattern, what, param } = SUBJECT[subject];
  const number = numberParam(raw, pattern, param, what);
  const row = await recordAt(context.database.pool, subject, number, undefined);
  if (!row) throw notFound(`${what} ${number}`, param);
  return { number, row };
}

/** A sub-resource's page: the envelope under `<record>/<suffix>`; Last-Modified as the caller says. */
export function subResourcePage(
  context: ServiceContext,
  input: SubResourceInput & { number: string },
  suffix: string,
  found: { total: number; rows: unknown[] },
  lastChanged: Date,
): ReadResult {
  const { subject, number } = input;
  const path = `${apiBase(context)}/${subject}/${number}/${suffix}`;
  return {
    body: {
      ...pageOf(found.rows, found.total, input.page, path),
      registerUrl: registerUrl(context, `/${subject}/${number}`),
    },
    lastModified: lastChanged,
  };
}

/** A page as the store's slice of rows. */
export const sliceOf = (page: PageRequest) => ({ limit: page.pageSize, offset: page.offset });

/** The later of two times (a read's Last-Modified over what it is made from). */
export const later = (a: Date, b: Date | undefined): Date => (b && b > a ? b : a);
