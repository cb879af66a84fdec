import type { FastifyInstance } from 'fastify';
import { KEY_QUERY } from '../../../gateway/http/guard.ts';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { isDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import type { Subject } from '../operations/common.ts';
import { kindParameter, listNewOrChanged, searchCriteria, searchRecords } from '../operations/searches.ts';
import { ChangedQuery, searchQuery } from '../parameters.ts';
import { SummaryPage } from '../schemas.ts';
import { readRoute } from './declared.ts';
import { pageFrom } from './support.ts';

/** The searches and new-or-changed (operations/searches.ts). */
export function searchRoutes(app: FastifyInstance, context: ServiceContext): void {
  const searchRoute = (subject: Subject) => {
    const kindParam = kindParameter(subject);
    // The subscription key may come in the query (API Management's `subscription-key`): not a criterion.
    const known = new Set<string>([...searchCriteria(subject), 'page', 'page-size', KEY_QUERY]);
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
        const named = query as Readonly<Record<string, string | undefined>>;
        return searchRecords(context, {
          subject,
          nameOrNumber: query['name-or-number'],
          status: query.status,
          kind: query[kindParam],
          issuer: query.issuer,
          anyName: named['offer-or-issuer-name-or-number'],
          type: named.type,
          page: pageFrom(query),
        });
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
        return listNewOrChanged(context, { subject, from, to, page: pageFrom(query) });
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
