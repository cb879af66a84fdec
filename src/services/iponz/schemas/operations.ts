/** The TypeBox schemas of the IP office's REST operations (JSON bodies; the XML ones are in xsd/). */
import { Type } from '@sinclair/typebox';
import { type PageRules, pagingProperties } from '../../../platform/http/pagination.ts';
import { Problem } from '../../../platform/http/problem-schema.ts';

/** The platform's problem+json schema, under the name this file always exported. */
export { Problem };

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Problem } },
});

const ERROR_DESCRIPTIONS: Record<number, string> = {
  304: 'Not Modified: If-None-Match names the current ETag',
  400: 'A parameter breaks a rule; errors[] names it',
  403: 'The caller may not do this (not a registered user, or no direct debit authority in production)',
  404: 'No such client or case',
  406: 'Accept names no media type the operation serves',
  412: 'If-Match does not hold: the case has changed',
};

/** JSON 200 (or another status) and the errors the operation answers. */
export function jsonResponses(ok: Record<number, object>, errors: number[] = [400, 404, 406]) {
  const answer: Record<number, unknown> = {};
  for (const [status, schema] of Object.entries(ok))
    answer[Number(status)] = { description: 'OK', content: { 'application/json': { schema } } };
  for (const status of errors) answer[status] = problem(ERROR_DESCRIPTIONS[status] ?? 'Error');
  return answer;
}

/** An XML 200 (its XSD linked), with the same data as JSON on request, and the errors. */
export function xmlResponses(
  xsd: string,
  description: string,
  errors: number[] = [400, 404, 406],
  json: object = { type: 'object' },
) {
  const answer: Record<number, unknown> = {
    200: {
      description: `${description}. XML valid against ${xsd} (the default); JSON with Accept: application/json (see the README's mapping)`,
      content: {
        'application/xml': {
          schema: { type: 'string', description: `Valid against ${xsd}`, externalDocs: { url: xsd } },
        },
        'application/json': { schema: json },
      },
    },
  };
  for (const status of errors)
    answer[status] =
      status === 304
        ? { description: ERROR_DESCRIPTIONS[304] }
        : problem(ERROR_DESCRIPTIONS[status] ?? 'Error');
  return answer;
}

const Text = Type.Union([Type.String(), Type.Null()]);
const DateText = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'YYYY-MM-DD' });

export const Address = Type.Object(
  {
    addressType: Type.Union([Type.Literal('physical'), Type.Literal('postal'), Type.Literal('service')]),
    addressLine1: Text,
    addressLine2: Text,
    addressLine3: Text,
    city: Text,
    postcode: Text,
    countryCode: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 (NZ, AU, GB …)' }),
  },
  { additionalProperties: false },
);

export const ClientRecord = Type.Object(
  {
    clientId: Type.String({
      pattern: '^[1-9][0-9]{0,8}$',
      description: 'Usable as an applicant in applications and trade mark searches',
    }),
    name: Type.String(),
    clientType: Type.Union([Type.Literal('Organisation'), Type.Literal('Person')]),
    nzbn: Type.Union([Type.String({ pattern: '^[0-9]{13}$' }), Type.Null()]),
    addresses: Type.Array(Address),
  },
  { additionalProperties: false },
);

export const ClientList = Type.Object(
  {
    totalResults: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    pageSize: Type.Integer({ minimum: 1 }),
    clients: Type.Array(ClientRecord),
  },
  { additionalProperties: false },
);

/** Ours: `page` from 1 and `page-size` 1–100, 20 by default (the client search). */
export const PAGING: PageRules = {
  pageParam: 'page',
  sizeParam: 'page-size',
  defaultSize: 20,
  maxSize: 100,
  firstPage: 1,
};

export const ClientQuery = Type.Object({
  name: Type.String({
    description: 'Required, at least 2 characters besides %; % matches any run of characters',
    examples: ['Kiwi%'],
  }),
  address: Type.Optional(
    Type.String({ description: 'Narrows: matched against the three lines and city of every address type' }),
  ),
  ...pagingProperties(PAGING),
});

/** The id's rule is the domain's (`parseClientId`), so its 400 names the published `client-id`. */
export const ClientParams = Type.Object({
  clientId: Type.String({ description: 'The client id', examples: ['100000'] }),
});

/**
 * The documents' example case numbers: the sandbox's fixed test cases (README, "Sandbox data"), so the
 * reference's try-it answers unchanged. A registered (granted) case for the reads; for the renewal
 * operations the case whose renewal is due now.
 */
export const CASE_EXAMPLE = { patent: '500006', trademark: '1000004', design: '400004' } as const;
export const RENEWAL_EXAMPLE = { patent: '500050', trademark: '1000050', design: '400050' } as const;
/** A date range for the lists' examples (any range within 366 days answers). */
export const RANGE_EXAMPLE = { start: '2026-06-01', end: '2026-06-15' } as const;

export const RenewalCheck = Type.Object(
  {
    caseNumber: Type.String(),
    caseType: Type.Union([Type.Literal('patent'), Type.Literal('trademark'), Type.Literal('design')]),
    status: Type.String(),
    renewalDue: Type.Boolean({ description: 'True while a payment is accepted (window open or in grace)' }),
    state: Type.Union(['none', 'not-yet-open', 'open', 'grace', 'lapsed'].map((s) => Type.Literal(s))),
    reason: Type.Union([Type.Literal('status'), Type.Literal('term-complete'), Type.Null()]),
    fee: Type.Union([Type.Literal('maintenance'), Type.Literal('renewal'), Type.Null()]),
    anniversary: Type.Union([Type.Integer(), Type.Null()]),
    renewal: Type.Union([Type.Integer(), Type.Null()]),
    dueDate: Type.Union([DateText, Type.Null()]),
    windowOpens: Type.Union([DateText, Type.Null()]),
    graceEnds: Type.Union([DateText, Type.Null()]),
    expiryDate: Type.Union([DateText, Type.Null()]),
    nextExpiryDate: Type.Union([DateText, Type.Null()]),
    amount: Type.Union([
      Type.Object(
        {
          feeCode: Type.String(),
          baseFeeCents: Type.Integer(),
          lateFeeCents: Type.Integer(),
          amountCents: Type.Integer({ description: 'GST exclusive' }),
          gstCents: Type.Integer(),
          totalCents: Type.Integer(),
          currency: Type.Literal('NZD'),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
  },
  { additionalProperties: false },
);

export const RenewalPaid = Type.Object(
  {
    caseNumber: Type.String(),
    caseType: Type.Union([Type.Literal('patent'), Type.Literal('trademark'), Type.Literal('design')]),
    status: Type.String(),
    renewedDueDate: DateText,
    expiryDate: DateText,
    fee: Type.Union([Type.Literal('maintenance'), Type.Literal('renewal')]),
    late: Type.Boolean(),
    amountCents: Type.Integer({ description: 'GST exclusive' }),
    feeRecordIds: Type.Array(Type.Integer()),
    requestId: Type.String(),
  },
  { additionalProperties: false },
);

/** Empty, or an object of known fields: an unknown field is refused (not silently dropped) by its name. */
export const RenewBody = Type.Union(
  [
    Type.Object(
      { billingReference: Type.Optional(Type.String({ maxLength: 100 })) },
      { additionalProperties: Type.Never() },
    ),
    Type.Null(),
  ],
  { examples: [{ billingReference: 'RENEWAL-2026-1' }] },
);
