/**
 * GET /entities: search by name, trading name, previous name or number, with the published filters and
 * the published envelope. The operation is operations/search.ts.
 */
import type { FastifyInstance } from 'fastify';
import { typed } from '../../../platform/http/operation.ts';
import { searchRegister } from '../operations/search.ts';
import type { NzbnContext } from '../operations/support.ts';
import { envelope, responses, SearchItem, SearchQuery } from '../schemas/operations.ts';
import { nzbnOperation } from './operation.ts';
import { pagedEnvelope, pageOf } from './paging.ts';
import { published } from './published.ts';

/** Items come in name order (the published envelope says so). */
const SORTED = { sortBy: 'entityName', sortOrder: 'ASC' };

/** The parameters a page's links carry over. */
const CARRIED = ['search-term', 'entity-status', 'entity-type', 'industry-code'];

export async function searchRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  typed(app).get(
    '/entities',
    nzbnOperation({
      schema: {
        ...published('NZBN_001_1'),
        summary: 'Search entities',
        querystring: SearchQuery,
        response: responses({ 200: envelope(SearchItem) }, [400, 401, 403]),
      },
    }),
    async (request) => {
      const query = request.query;
      const page = pageOf(query);
      const found = await searchRegister(context, { search: query, page });
      const listing = { path: '/entities', query, carried: CARRIED };
      return pagedEnvelope(context, listing, page, found, SORTED);
    },
  );
}
