/**
 * GET /entities: search by name, trading name, previous name or number, with the published filters and
 * the published envelope. Items show public data only (search is a public operation).
 */
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../../platform/http/errors.ts';
import { typed } from '../../../platform/http/operation.ts';
import { hasBicFormat } from '../domain/bic.ts';
import { entityTypesForFilter, parseEntityStatusFilter } from '../domain/codes.ts';
import { publicView } from '../domain/privacy.ts';
import { MAX_SEARCH_WORDS, searchWords } from '../domain/search-text.ts';
import { baseUrl, link, type NzbnContext } from '../operations/support.ts';
import { envelope, responses, SearchItem, SearchQuery } from '../schemas/operations.ts';
import { findEntities, parseEntity } from '../store/entities.ts';
import { searchEntities } from '../store/search.ts';
import { nzbnOperation } from './operation.ts';
import { pagedEnvelope, pageOf } from './paging.ts';

const split = (values: readonly string[] | undefined): string[] | undefined => {
  const list = values
    ?.flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean);
  return list && list.length > 0 ? list : undefined;
};

function typeCodes(values: readonly string[] | undefined): string[] | undefined {
  const names = split(values);
  if (!names) return undefined;
  const codes = new Set<string>();
  for (const name of names) {
    const matched = entityTypesForFilter(name);
    if (!matched) throw badRequest('entity-type', `unknown entity type "${name}"`);
    for (const code of matched) codes.add(code);
  }
  return [...codes];
}

function statusCodes(values: readonly string[] | undefined): string[] | undefined {
  if (!split(values)) return undefined;
  const parsed = parseEntityStatusFilter(values!);
  if (parsed.unknown.length > 0) {
    throw badRequest('entity-status', `unknown entity status "${parsed.unknown.join('", "')}"`);
  }
  return [...parsed.codes];
}

function industryCodes(values: readonly string[] | undefined): string[] | undefined {
  const codes = split(values)?.map((code) => code.toUpperCase());
  for (const code of codes ?? []) {
    if (!hasBicFormat(code)) {
      throw badRequest(
        'industry-code',
        `"${code}" is not a BIC code (a letter and six digits, e.g. I490008)`,
      );
    }
  }
  return codes;
}

/** Items come in name order (the published envelope says so). */
const SORTED = { sortBy: 'entityName', sortOrder: 'ASC' };

export async function searchRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  typed(app).get(
    '/entities',
    nzbnOperation({
      schema: {
        summary: 'Search entities',
        querystring: SearchQuery,
        response: responses({ 200: envelope(SearchItem) }, [400]),
      },
    }),
    async (request) => {
      const query = request.query;
      const words = searchWords(query['search-term']);
      if (words.length === 0) throw badRequest('search-term', 'must contain a letter or a digit');
      if (words.length > MAX_SEARCH_WORDS)
        throw badRequest('search-term', `at most ${MAX_SEARCH_WORDS} words`);
      const page = pageOf(query);
      const found = await searchEntities(context.database.pool, {
        words,
        statusCodes: statusCodes(query['entity-status']),
        typeCodes: typeCodes(query['entity-type']),
        industryCodes: industryCodes(query['industry-code']),
        limit: page.pageSize,
        offset: page.offset,
      });
      const stored = new Map(
        (await findEntities(context.database.pool, found.nzbns)).map((entity) => [entity.nzbn, entity]),
      );
      const base = baseUrl(context);
      const items = found.nzbns.flatMap((nzbn) => {
        const entry = stored.get(nzbn);
        if (!entry) return [];
        const entity = publicView(parseEntity(entry));
        return [
          {
            entityName: entity.entityName,
            nzbn: entity.nzbn,
            entityTypeCode: entity.entityTypeCode,
            entityTypeDescription: entity.entityTypeDescription,
            entityStatusCode: entity.entityStatusCode,
            entityStatusDescription: entity.entityStatusDescription,
            registrationDate: entity.registrationDate,
            sourceRegisterUniqueId: entity.sourceRegisterUniqueIdentifier,
            tradingNames: entity.tradingNames,
            classifications: entity.classifications,
            previousEntityNames: entry.previousNames,
            links: [link('self', `${base}/entities/${entity.nzbn}`)],
          },
        ];
      });
      const listing = {
        path: '/entities',
        query,
        carried: ['search-term', 'entity-status', 'entity-type', 'industry-code'],
      };
      return pagedEnvelope(context, listing, page, { total: found.total, items }, SORTED);
    },
  );
}
