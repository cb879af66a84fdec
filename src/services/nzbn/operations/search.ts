/**
 * The entity search: by name, trading name, previous name or number, with the published filters (status,
 * type, industry code, each repeated or comma joined). Items show public data only (search is a public
 * operation); one page and the number of matches.
 */
import { badRequest } from '../../../platform/http/errors.ts';
import { hasBicFormat } from '../domain/bic.ts';
import { entityTypesForFilter, parseEntityStatusFilter } from '../domain/codes.ts';
import { publicView } from '../domain/privacy.ts';
import { MAX_SEARCH_WORDS, searchWords } from '../domain/search-text.ts';
import { findEntities, parseEntity } from '../store/entities.ts';
import { searchEntities } from '../store/search.ts';
import { baseUrl, link, type NzbnContext } from './support.ts';

/** The search, under the published parameter names (errors name them). */
export interface EntitySearch {
  'search-term': string;
  'entity-status'?: readonly string[] | undefined;
  'entity-type'?: readonly string[] | undefined;
  'industry-code'?: readonly string[] | undefined;
}

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

/** One page of the entities the search finds, in name order, and the number of matches. */
export async function searchRegister(
  context: NzbnContext,
  input: { search: EntitySearch; page: { pageSize: number; offset: number } },
) {
  const { search, page } = input;
  const words = searchWords(search['search-term']);
  if (words.length === 0) throw badRequest('search-term', 'must contain a letter or a digit');
  if (words.length > MAX_SEARCH_WORDS) throw badRequest('search-term', `at most ${MAX_SEARCH_WORDS} words`);
  const found = await searchEntities(context.database.pool, {
    words,
    statusCodes: statusCodes(search['entity-status']),
    typeCodes: typeCodes(search['entity-type']),
    industryCodes: industryCodes(search['industry-code']),
    limit: page.pageSize,
    offset: page.offset,
  });
  const stored = new Map(
    (await findEntities(context.database.pool, context.documents, found.nzbns)).map((entity) => [
      entity.nzbn,
      entity,
    ]),
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
  return { total: found.total, items };
}
