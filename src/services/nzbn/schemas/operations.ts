/**
 * Request and response schemas of the routes (the entity itself is domain/schema.ts): path and query
 * parameters, the error body, the search envelope and its items, discoverable links, history items and
 * business authorities. The OpenAPI document is generated from these.
 */
import { type Static, type TInteger, type TOptional, type TSchema, Type } from '@sinclair/typebox';
import { type PageRules, pagingProperties } from '../../../platform/http/pagination.ts';
import { ADDRESS_TYPES } from '../domain/codes.ts';
import {
  IndustryClassification,
  Link,
  Nullable,
  Nzbn,
  NzDateTime,
  Strict,
  TradingName,
} from '../domain/schema.ts';

export const NzbnParams = Type.Object({
  nzbn: Type.String({
    description: 'Business number: 13 digits, the last a GS1 check digit',
    examples: ['9429000001007'],
  }),
});
export type NzbnParams = Static<typeof NzbnParams>;
/** The same, with a fixed test case that is not a company (a sole trader) as its example. */
export const NonCompanyNzbnParams = Type.Object({
  nzbn: Type.String({ ...NzbnParams.properties.nzbn, examples: ['9429000001144'] }),
});

export const ErrorBody = Type.Object(
  {
    status: Type.String(),
    errorCode: Type.String(),
    errorDescription: Type.String(),
    list: Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
  },
  { description: 'An error, as the business number API writes it' },
);

/** The error answers every operation may give, plus the success responses. */
export function responses(success: Record<number, TSchema>, errors: number[] = [400, 404]) {
  const all: Record<number, TSchema> = { ...success };
  for (const status of errors) all[status] = ErrorBody;
  return all;
}

/** The errors a read of one entity publishes (401 and 403 are the gateway's; 412 a stale If-Match). */
export const READ_ERRORS = [400, 401, 403, 404, 412];

export const NotModified = Type.Null({ description: 'Not Modified: the ETag in If-None-Match is current' });

/**
 * The optional header every published operation takes: an id for the request, echoed on the answer
 * (one that is not letters, digits and `._:-`, at most 128, is replaced by one of the gateway's).
 */
const RequestId = {
  'api-business-govt-nz-Request-Id': Type.Optional(
    Type.String({ description: 'An id for this request, echoed on the answer' }),
  ),
};
const Optional = (description: string) => Type.Optional(Type.String({ description }));

/** The headers of an operation that neither reads nor changes a resource with validators. */
export const RequestHeaders = Type.Object(RequestId);

/** The headers of a read with validators: the published If-None-Match, and the other conditions. */
export const ConditionalHeaders = Type.Object({
  ...RequestId,
  'If-None-Match': Optional('The ETag you hold: 304 with no body while it is current'),
  'If-Modified-Since': Optional('304 with no body when nothing changed since'),
  'If-Match': Optional('412 unless the ETag is current'),
  'If-Unmodified-Since': Optional('412 when it changed since'),
});

/**
 * An operation's `x-etag-of` (ours): the path of the resource whose ETag its If-Match holds against,
 * when that is not the operation's own path. A change of one role, or the removal of one address, is a
 * change of the entity: a client sends the ETag that `GET /entities/{nzbn}` answered.
 */
export const HOLDS_AGAINST_ENTITY = { 'x-etag-of': '/entities/{nzbn}' } as const;

/** The same for a change of one of an organisation part's items: the part's ETag. */
export const HOLDS_AGAINST_PART = { 'x-etag-of': '/entities/{nzbn}/organisation-parts/{opn}' } as const;

/**
 * The headers of a write the published definition names If-Match for (privacy settings, a role), with
 * If-Unmodified-Since; every write of an existing resource honours both, documented or not.
 */
export const WriteHeaders = Type.Object({
  ...RequestId,
  'If-Match': Optional(
    'The ETag of the version you change: 412, and nothing written, when it is not current',
  ),
  'If-Unmodified-Since': Optional('412, and nothing written, when it changed since'),
});

/**
 * The headers of a write the published definition names If-Modified-Since for (a user, an organisation,
 * an organisation user): read as "the time I last read it", 412 when it changed after; If-Match and
 * If-Unmodified-Since are honoured too.
 */
export const ModifiedSinceHeaders = Type.Object({
  ...RequestId,
  'If-Modified-Since': Optional('412, and nothing written, when it changed after this time'),
  'If-Match': Optional('412, and nothing written, unless the ETag is current'),
  'If-Unmodified-Since': Optional('412, and nothing written, when it changed since'),
});

/** The published paging of every listing: `page` from 0, `page-size` 10 by default and at most 50. */
export const PAGE_RULES: PageRules = { defaultSize: 10, maxSize: 50 };

/** The paging parameters of a listing's query schema (spread into it: validated and documented). */
export const PagingQuery = pagingProperties(PAGE_RULES) as {
  page: TOptional<TInteger>;
  'page-size': TOptional<TInteger>;
};

/** Repeatable, and each value may be comma-joined. */
const ListParam = (description: string) =>
  Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 20, description }));

export const SearchQuery = Type.Object({
  'search-term': Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Words matched at the start of words of names, trading names, previous names and numbers',
    examples: ['sandbox test'],
  }),
  'entity-status': ListParam('Registered, VoluntaryAdministration, InReceivership, InLiquidation, …'),
  'entity-type': ListParam('NZCompany, SoleTrader, LTD, …'),
  'industry-code': ListParam('BIC code, e.g. I490008'),
  ...PagingQuery,
});
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchItem = Type.Object(
  {
    entityName: Type.String(),
    nzbn: Nzbn,
    entityTypeCode: Type.String(),
    entityTypeDescription: Type.String(),
    entityStatusCode: Type.String(),
    entityStatusDescription: Type.String(),
    registrationDate: NzDateTime,
    sourceRegisterUniqueId: Nullable(Type.String()),
    tradingNames: Type.Array(TradingName),
    classifications: Type.Array(IndustryClassification),
    previousEntityNames: Type.Array(Type.String()),
    links: Type.Array(Link),
  },
  Strict,
);
export type SearchItem = Static<typeof SearchItem>;

export const envelope = <T extends TSchema>(item: T) =>
  Type.Object(
    {
      pageSize: Type.Integer(),
      page: Type.Integer(),
      totalItems: Type.Integer(),
      sortBy: Nullable(Type.String()),
      sortOrder: Nullable(Type.String()),
      items: Type.Array(item),
      links: Type.Array(Link),
    },
    Strict,
  );

const LinkOrNull = Nullable(Link);

/**
 * `GET /entities/{nzbn}/discoverable`: the published Entity, the entity's own fields with a link in
 * place of each part (null when there is nothing to find there), one address link per address type.
 */
export const Discoverable = Type.Object(
  {
    entityStatusCode: Type.String(),
    entityName: Type.String(),
    nzbn: Nzbn,
    entityTypeCode: Type.String(),
    entityTypeDescription: Type.String(),
    entityStatusDescription: Type.String(),
    registrationDate: NzDateTime,
    sourceRegister: Type.String(),
    sourceRegisterUniqueIdentifier: Nullable(Type.String()),
    lastUpdatedDate: NzDateTime,
    australianBusinessNumber: Nullable(Type.String()),
    emailAddresses: LinkOrNull,
    addresses: Type.Array(Link),
    industryClassifications: LinkOrNull,
    phoneNumbers: LinkOrNull,
    websites: LinkOrNull,
    tradingNames: LinkOrNull,
    tradingAreas: LinkOrNull,
    gstNumbers: LinkOrNull,
    paymentBankAccounts: LinkOrNull,
    privacySettings: LinkOrNull,
    'company-details': LinkOrNull,
    'non-company-details': LinkOrNull,
    'supporting-information': LinkOrNull,
    roles: LinkOrNull,
    organisationParts: LinkOrNull,
    businessEthnicityIdentifiers: LinkOrNull,
    hibernationStatusCode: Nullable(Type.String()),
    hibernationStatusDescription: Nullable(Type.String()),
  },
  Strict,
);

/** The published `address-type` (required): an address type, or ALL. */
export const AddressTypeQuery = Type.Object({
  'address-type': Type.String({
    maxLength: 20,
    description: `${[...ADDRESS_TYPES, 'ALL'].join(', ')} (any case)`,
    examples: ['REGISTERED'],
  }),
});

export const EntityNameHistoryItem = Type.Object(
  { entityName: Type.String(), startDate: Nullable(NzDateTime), endDate: Nullable(NzDateTime) },
  Strict,
);
/** The published EntityStatus: a status period and what the request that set it said. */
export const EntityStatusHistoryItem = Type.Object(
  {
    entityStatusCode: Type.String(),
    startDate: Nullable(NzDateTime),
    endDate: Nullable(NzDateTime),
    statusReasonCode: Nullable(Type.String()),
    entityStatusDescription: Type.String(),
    comment: Nullable(Type.String()),
  },
  Strict,
);
export const HibernationHistoryItem = Type.Object(
  {
    hibernationStatusCode: Type.String(),
    hibernationStatusDescription: Type.String(),
    startDate: Nullable(NzDateTime),
    endDate: Nullable(NzDateTime),
  },
  Strict,
);
