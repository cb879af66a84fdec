import { Type } from '@sinclair/typebox';
import { pagingProperties } from '../../platform/http/pagination.ts';
import { PAGE_RULES } from './domain/records.ts';
import { PARAMETER_EXAMPLES } from './schemas.ts';

/**
 * The query parameters of the register's operations, validated before a route runs (the operation kit):
 * their types and shapes. The rules that need the record or the calendar (a version of this record, a
 * real date, start before end) are the routes', which name the parameter and the rule in every 400.
 * Unknown parameters are left for the routes: the searches refuse them, the other reads ignore them.
 * At the end, the input of the public routes: the online register's pages and the signed file URLs.
 */
const text = (description: string, rules: { minLength?: number; maxLength?: number } = {}) =>
  Type.Optional(Type.String({ description, ...rules }));

const date = (name: string, description: string) =>
  Type.Optional(
    Type.String({
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
      description,
      ...(PARAMETER_EXAMPLES[name] ? { examples: [PARAMETER_EXAMPLES[name]] } : {}),
    }),
  );

const paging = pagingProperties(PAGE_RULES);

export const PagingQuery = Type.Object({ ...paging });
/** A read that takes no query parameters (others are ignored, as by every read). */
export const NoQuery = Type.Object({});

/** An offer, scheme or fund number: three letters and 5 to 9 digits (`OFFER_NUMBER` and its kin). */
const NUMBER_LENGTH = 12;
/** A version identifier: a number, `-v` and an ordinal of up to 6 digits (`parseVersion`). */
const VERSION_LENGTH = NUMBER_LENGTH + 8;

const version = text('A version identifier (e.g. OFR10001-v2); absent: the current version', {
  maxLength: VERSION_LENGTH,
});
const offerVersion = text(
  'A version identifier of the parent offer (e.g. OFR10001-v2): the fund as it was then',
  { maxLength: VERSION_LENGTH },
);

/**
 * Ours (not in the published design): a version of the fund itself, beside the parent offer's. The
 * operations that take it name it in `x-ours-parameters` (`OURS_FUND_VERSION`).
 */
const fundVersion = Type.Optional(
  Type.String({
    description:
      'Ours (not in the published design): a version identifier of the fund itself (e.g. FND10001-v3, from /fund/{fundNumber}/versions); not with version',
    maxLength: VERSION_LENGTH,
  }),
);

/** The OpenAPI extension of an operation that is ours as a whole (not in the published design). */
export const OURS_OPERATION = { 'x-ours': true } as const;

/** The OpenAPI extension of an operation that takes `fund-version`: the parameters that are ours. */
export const OURS_FUND_VERSION = { 'x-ours-parameters': ['fund-version'] } as const;

export const VersionQuery = Type.Object({ version });
export const VersionPagingQuery = Type.Object({ version, ...paging });
export const FundVersionQuery = Type.Object({ version: offerVersion, 'fund-version': fundVersion });
export const FundVersionPagingQuery = Type.Object({
  version: offerVersion,
  'fund-version': fundVersion,
  ...paging,
});

const NAME_OR_NUMBER = 'Name or number contains (case ignored), 1 to 100 characters';

/** A search's criteria: the kind is `product-type` (offers) or `scheme-type` (schemes). */
export const searchQuery = <Kind extends 'product-type' | 'scheme-type'>(kind: Kind) =>
  Type.Object({
    'name-or-number': text(NAME_OR_NUMBER, { minLength: 1, maxLength: 100 }),
    status: text('Status, exactly (case ignored), e.g. Open'),
    ...({
      [kind]: text(
        kind === 'product-type' ? 'Product type, e.g. Debt securities' : 'Scheme type, e.g. KiwiSaver scheme',
      ),
    } as Record<Kind, ReturnType<typeof text>>),
    issuer: text(kind === 'product-type' ? 'Offeror’s name contains' : 'Manager’s name contains'),
    // Offers: the names a public client of the register sends.
    ...(kind === 'product-type'
      ? {
          'offer-or-issuer-name-or-number': text(
            'The offer’s name or number, or its offeror’s name, contains (case ignored), 1 to 100 characters',
            { minLength: 1, maxLength: 100 },
          ),
          type: text(
            'The same as product-type (the public client’s name); 400 when both are given and differ',
          ),
        }
      : {}),
    ...paging,
  });

export const ChangedQuery = Type.Object({
  'start-date': date('start-date', 'First day, YYYY-MM-DD (published name)'),
  'end-date': date('end-date', 'Last day, YYYY-MM-DD (published name)'),
  startDate: date(
    'startDate',
    'The same as start-date (the spec’s name); 400 when both are given and differ',
  ),
  endDate: date('endDate', 'The same as end-date; 400 when both are given and differ'),
  ...paging,
});

/**
 * The online register's pages (public, for people): an offer's, scheme's or fund's number and the
 * version shown, as text within their bounds. A page answers what these refuse as a page (a number that
 * cannot be one: its 404 page; a version it cannot read: its 400 page), then checks the rest itself (the
 * number's pattern, a version of this record). Other query parameters are ignored, as by the reads.
 */
export const PageParams = Type.Object({
  number: Type.String({ maxLength: NUMBER_LENGTH, description: 'An offer, scheme or fund number' }),
});
export const PageQuery = Type.Object({
  version: text('A version identifier of the record (of the parent offer on a fund’s page)', {
    maxLength: VERSION_LENGTH,
  }),
});

/**
 * The document store's signed URL (`signedQuery`, platform/signed-url.ts): each part at most once and
 * of its type (400 naming it). A part that is absent, or that does not match the signature, is the
 * signature's refusal (403). Other query parameters are ignored.
 */
export const FileParams = Type.Object({
  documentRecId: Type.String({ description: 'The document’s id' }),
});
export const SignedQuery = Type.Object({
  expires: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,12}$', description: 'When the URL expires, in Unix seconds' }),
  ),
  caller: Type.Optional(Type.String({ maxLength: 100, description: 'Who the URL was made for' })),
  signature: Type.Optional(Type.String({ maxLength: 100, description: 'The URL’s signature' })),
});
