import type { FastifyInstance } from 'fastify';
import { KEY_QUERY } from '../../../gateway/guard.ts';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { isDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { pageOf, versionId } from '../domain/records.ts';
import { ChangedQuery, searchQuery } from '../parameters.ts';
import { SummaryPage } from '../schemas.ts';
import * as searchStore from '../store/searches.ts';
import { readRoute } from './declared.ts';
import { apiBase, iso, pageFrom, registerUrl } from './support.ts';

type Subject = 'offer' | 'scheme';

/**
 * The searches and new-or-changed. Their answers change whenever any record of their kind changes, so
 * their Last-Modified is the kind's latest change (store/searches.ts, `latestChange`).
 */
export function searchRoutes(app: FastifyInstance, context: ServiceContext): void {
  const pool = context.database.pool;
  const base = apiBase(context);

  const summary = (subject: Subject, row: searchStore.SummaryRow) => ({
    number: row.number,
    name: row.name,
    status: row.status,
    type: row.kind,
    issuer: row.issuer,
    versionId: versionId(row.number, row.version),
    lastChanged: iso(row.lastChanged),
    href: `${base}/${subject}/${row.number}`,
    registerUrl: registerUrl(context, `/${subject}/${row.number}`),
  });

  const searchRoute = (subject: Subject) => {
    const kindParam = subject === 'offer' ? 'product-type' : 'scheme-type';
    const criteria = ['name-or-number', 'status', kindParam, 'issuer'] as const;
    // The subscription key may come in the query (API Management's `subscription-key`): not a criterion.
    const known = new Set<string>([...criteria, 'page', 'page-size', KEY_QUERY]);
    readRoute(
      app,
      `/${subject}s`,
      {
        summary: subject === 'offer' ? 'Search offers' : 'Search schemes',
        response: SummaryPage,
        query: searchQuery(kindParam),
      },
      async ({ query }) => {
        for (const name of Object.keys(query)) {
          if (!known.has(name)) {
            const named = [...known].filter((n) => n !== KEY_QUERY).join(', ');
            throw new RuleError(name, `is not a search criterion; use ${named}`);
          }
        }
        const text = query['name-or-number'];
        if (text !== undefined && text.trim() === '') {
          throw new RuleError('name-or-number', 'must be 1 to 100 characters');
        }
        const kind = query[kindParam];
        const page = pageFrom(query);
        const [found, lastModified] = await Promise.all([
          searchStore.search(
            pool,
            subject,
            { text: text?.trim(), status: query.status, productType: kind, issuer: query.issuer },
            { limit: page.pageSize, offset: page.offset },
          ),
          searchStore.latestChange(pool, subject),
        ]);
        const extra = criteria
          .filter((n) => query[n] !== undefined)
          .map((n) => `${n}=${encodeURIComponent(String(query[n]))}`)
          .join('&');
        return {
          body: {
            ...pageOf(
              found.rows.map((row) => summary(subject, row)),
              found.total,
              page,
              `${base}/${subject}s`,
              extra,
            ),
            registerUrl: registerUrl(context, `/${subject}s`),
          },
          lastModified,
        };
      },
    );
  };
  searchRoute('offer');
  searchRoute('scheme');

  const changedRoute = (subject: Subject) =>
    readRoute(
      app,
      `/new-or-changed-${subject}s`,
      {
        summary: `${subject === 'offer' ? 'Offers' : 'Schemes'} new or changed from start-date to end-date (both inclusive, New Zealand dates)`,
        response: SummaryPage,
        query: ChangedQuery,
      },
      async ({ query }) => {
        const from = dateParam(query['start-date'], query.startDate, 'start-date', 'startDate');
        const to = dateParam(query['end-date'], query.endDate, 'end-date', 'endDate');
        if (from > to) throw new RuleError('end-date', 'must not be before start-date');
        const page = pageFrom(query);
        const [found, lastModified] = await Promise.all([
          searchStore.newOrChanged(pool, subject, from, to, { limit: page.pageSize, offset: page.offset }),
          searchStore.latestChange(pool, subject),
        ]);
        return {
          body: {
            ...pageOf(
              found.rows.map((row) => summary(subject, row)),
              found.total,
              page,
              `${base}/new-or-changed-${subject}s`,
              `start-date=${from}&end-date=${to}`,
            ),
            registerUrl: registerUrl(context, `/${subject}s`),
          },
          lastModified,
        };
      },
    );
  changedRoute('offer');
  changedRoute('scheme');
}

/** A date under its published name or the spec's: 400 when absent, not a real date, or both differ. */
function dateParam(
  published: string | undefined,
  spec: string | undefined,
  publishedName: string,
  specName: string,
): string {
  if (published !== undefined && spec !== undefined && published !== spec) {
    throw new RuleError(
      publishedName,
      `and ${specName} are the same parameter; given both, they must be equal`,
    );
  }
  const value = published ?? spec;
  const name = published !== undefined ? publishedName : specName;
  if (value === undefined)
    throw new RuleError(publishedName, `is required (or ${specName}), a date YYYY-MM-DD`);
  // The schema checked the form; the calendar checks the day exists.
  if (!isDate(value)) throw new RuleError(name, 'must be a date YYYY-MM-DD');
  return value;
}
