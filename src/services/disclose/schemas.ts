import { type TObject, type TSchema, type TString, Type } from '@sinclair/typebox';
import { Problem } from '../../platform/http/problem-schema.ts';
import { ASSET_TYPES } from './domain/holdings.ts';

/**
 * The contract of the offers register API (ours where the reference says so; the README's "Answers"):
 * the answers, the filings' bodies (documented here, checked by the register's checkers:
 * routes/filing-validators.ts) and the path parameters, validated before a route runs (the query
 * parameters are in parameters.ts).
 */
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Problem } },
});

const Link = Type.Object({
  rel: Type.String(),
  href: Type.String({ description: 'Path from the gateway root' }),
  count: Type.Optional(Type.Integer({ description: 'How many items the linked list holds' })),
});
const Links = Type.Array(Link);
const RegisterUrl = Type.String({ description: 'The same record on the online register (a public page)' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Company = Type.Object({ name: Type.String(), nzbn: Nullable(Type.String()) });

export const Participant = Type.Object({
  role: Type.String(),
  name: Type.String(),
  nzbn: Nullable(Type.String()),
});
export const DocumentItem = Type.Object({
  documentRecId: Type.String(),
  documentType: Type.String(),
  title: Type.String(),
  fileName: Type.String(),
  contentType: Type.String(),
  sizeBytes: Type.Integer(),
  addedDate: Type.String({ description: 'ISO 8601 date and time' }),
  noticeRecId: Nullable(Type.String()),
  href: Type.String({ description: 'The download operation: 302 to a signed URL' }),
});
const VersionInfo = Type.Object({
  versionId: Type.String(),
  versionDate: Type.String({ description: 'ISO 8601 date and time' }),
  change: Type.String(),
});

const recordFields = {
  versionId: Type.String({ description: 'The version identifier of what is shown' }),
  versionDate: Type.String({ description: 'ISO 8601 date and time' }),
  currentVersionId: Type.String(),
  versions: Type.Array(VersionInfo, {
    description: 'Every version, newest first (at most 10; the link lists all)',
  }),
  participants: Type.Array(Participant, { description: 'The first 10 participants' }),
  documents: Type.Array(DocumentItem, { description: 'The first 10 documents' }),
  links: Links,
  registerUrl: RegisterUrl,
};

export const Offer = Type.Object({
  offerNumber: Type.String(),
  name: Type.String(),
  status: Type.String(),
  productType: Type.String(),
  schemeNumber: Nullable(Type.String()),
  issuer: Company,
  openDate: Nullable(Type.String({ description: 'YYYY-MM-DD' })),
  closeDate: Nullable(Type.String({ description: 'YYYY-MM-DD' })),
  ...recordFields,
});

export const Scheme = Type.Object({
  schemeNumber: Type.String(),
  name: Type.String(),
  status: Type.String(),
  schemeType: Type.String(),
  manager: Company,
  supervisor: Nullable(Company),
  ...recordFields,
});

export const Holding = Type.Object({
  assetName: Type.String(),
  assetType: Type.String({ enum: [...ASSET_TYPES] }),
  isin: Nullable(Type.String()),
  value: Type.Number(),
  percentageOfFund: Type.Number(),
  currency: Type.String(),
});

export const Fund = Type.Object({
  fundNumber: Type.String(),
  offerNumber: Type.String(),
  name: Type.String(),
  fundType: Type.String(),
  versionId: Type.String({ description: 'The fund version shown' }),
  offerVersionId: Type.String({
    description: 'The version of the parent offer this fund version belongs to',
  }),
  versionDate: Type.String({ description: 'ISO 8601 date and time' }),
  unitPrice: Nullable(Type.Object({ price: Type.Number(), currency: Type.String() })),
  returns: Type.Array(Type.Object({ period: Type.String(), percentage: Type.Number() })),
  fees: Type.Array(Type.Object({ feeType: Type.String(), percentage: Type.Number() })),
  assetAllocation: Type.Array(
    Type.Object({
      assetType: Type.String(),
      actualPercentage: Type.Number(),
      targetPercentage: Type.Number(),
    }),
  ),
  fundSize: Nullable(
    Type.Number({ description: 'Total value of the fund in the unit price’s currency (last fund update)' }),
  ),
  numberOfInvestors: Nullable(Type.Integer({ description: 'Number of investors (last fund update)' })),
  riskIndicator: Nullable(
    Type.Integer({
      minimum: 1,
      maximum: 7,
      description: 'Risk indicator, 1 (lowest) to 7 (last fund update)',
    }),
  ),
  holdingsPeriodEndDate: Nullable(Type.String({ description: 'YYYY-MM-DD' })),
  holdings: Type.Array(Holding, { description: 'The first 10 holdings of the full portfolio holdings' }),
  links: Links,
  registerUrl: RegisterUrl,
});

export const Summary = Type.Object({
  number: Type.String({ description: 'Offer or scheme number' }),
  name: Type.String(),
  status: Type.String(),
  type: Type.String({ description: 'Product type (offers) or scheme type (schemes)' }),
  issuer: Type.String({ description: 'Offeror (offers) or manager (schemes)' }),
  versionId: Type.String(),
  lastChanged: Type.String({ description: 'ISO 8601 date and time' }),
  href: Type.String(),
  registerUrl: RegisterUrl,
});

const pageOf = (item: TSchema, description: string) =>
  Type.Object(
    {
      page: Type.Integer({ minimum: 1 }),
      pageSize: Type.Integer(),
      totalItems: Type.Integer(),
      totalPages: Type.Integer(),
      items: Type.Array(item),
      links: Links,
      registerUrl: RegisterUrl,
    },
    { description },
  );

export const SummaryPage = pageOf(Summary, 'A page of summary items');
export const FundPage = pageOf(Fund, 'A page of funds');
export const ParticipantPage = pageOf(Participant, 'A page of participants');
export const DocumentPage = pageOf(DocumentItem, 'A page of documents');
export const HoldingPage = pageOf(Holding, 'A page of holdings');
export const VersionPage = pageOf(VersionInfo, 'A page of versions');
export const FundVersionPage = pageOf(
  Type.Object({
    ...VersionInfo.properties,
    offerVersionId: Type.String({
      description: 'The version of the parent offer this fund version belongs to',
    }),
    href: Type.String({ description: 'The fund at this version (ours: `?fund-version=`)' }),
  }),
  'A page of the fund’s own versions, newest first (ours)',
);
export const FundReturnsPage = pageOf(
  Type.Object({
    periodEndDate: Type.String({ description: 'The quarter the fund update covers, YYYY-MM-DD' }),
    filedDate: Type.String({ description: 'When it was filed, ISO 8601 date and time' }),
    late: Type.Boolean(),
    versionId: Type.String({ description: 'The fund version the filing made' }),
    unitPrice: Nullable(Type.Object({ price: Type.Number(), currency: Type.String() })),
    returns: Type.Array(Type.Object({ period: Type.String(), percentage: Type.Number() }), {
      description: 'Returns after fees and tax over each period, as filed',
    }),
    fundSize: Nullable(Type.Number()),
    numberOfInvestors: Nullable(Type.Integer()),
    riskIndicator: Nullable(Type.Integer()),
  }),
  'A page of the fund’s returns over time: one item per fund update filed, newest period first',
);
export const FilingPage = pageOf(
  Type.Object({
    filedDate: Type.String({ description: 'ISO 8601 date and time' }),
    filingType: Type.String(),
    description: Type.String(),
    fundNumber: Nullable(Type.String()),
    late: Type.Boolean(),
  }),
  'A page of the filing history',
);

const noticeFields = {
  noticeRecId: Type.String({ description: 'The notice’s id: the `{noticeRecId}` of its paths' }),
  noticeType: Type.String({ description: 'Its kind, e.g. Stop order, Direction order, Exemption notice' }),
  noticeDate: Type.String({ description: 'The day it was given, YYYY-MM-DD' }),
  summary: Type.String(),
};

/** A notice of the regulator on an offer or a scheme (ours: the published design has its documents only). */
export const Notice = Type.Object(
  {
    ...noticeFields,
    offerNumber: Nullable(Type.String({ description: 'The offer it is on (null on a scheme’s notice)' })),
    schemeNumber: Nullable(Type.String({ description: 'The scheme it is on (null on an offer’s notice)' })),
    documents: Type.Array(DocumentItem, {
      description: 'Its first 10 documents, newest first (the link `documents` lists all)',
    }),
    links: Links,
    registerUrl: RegisterUrl,
  },
  { description: 'A notice of the Financial Markets Authority (ours)' },
);
export const NoticePage = pageOf(
  Type.Object({
    ...noticeFields,
    documentCount: Type.Integer({ description: 'How many documents it has' }),
    href: Type.String({ description: 'The notice' }),
  }),
  'A page of the regulator’s notices on the record, newest first (ours)',
);

export const Activities = Type.Object({
  organisation: Type.String(),
  activities: Type.Array(
    Type.Object({
      fundNumber: Type.String(),
      fundName: Type.String(),
      offerNumber: Type.String(),
      activityType: Type.String({ enum: ['FUND_UPDATE', 'FULL_PORTFOLIO_HOLDINGS'] }),
      periodEndDate: Type.String({ description: 'YYYY-MM-DD' }),
      dueDate: Type.String({ description: 'YYYY-MM-DD' }),
      status: Type.String({ enum: ['Upcoming', 'Overdue', 'Filed'] }),
      filedDate: Nullable(Type.String({ description: 'YYYY-MM-DD' })),
      late: Nullable(Type.Boolean()),
      href: Type.String(),
    }),
  ),
  registerUrl: RegisterUrl,
});

export const FilingReceipt = Type.Object({
  fundNumber: Type.String(),
  offerNumber: Type.String(),
  activityType: Type.String(),
  periodEndDate: Type.String({ description: 'YYYY-MM-DD' }),
  dueDate: Type.String({ description: 'YYYY-MM-DD' }),
  filedDate: Type.String({ description: 'YYYY-MM-DD' }),
  late: Type.Boolean(),
  versionId: Type.String({ description: 'The new fund version' }),
  links: Links,
  registerUrl: RegisterUrl,
});

export const FundUpdateBody = Type.Object(
  {
    periodEndDate: Type.String({ description: 'YYYY-MM-DD', examples: ['2026-03-31'] }),
    unitPrice: Type.Object({ price: Type.Number(), currency: Type.String() }),
    returns: Type.Array(Type.Object({ period: Type.String(), percentage: Type.Number() })),
    fees: Type.Array(Type.Object({ feeType: Type.String(), percentage: Type.Number() })),
    assetAllocation: Type.Array(
      Type.Object({
        assetType: Type.String(),
        actualPercentage: Type.Number(),
        targetPercentage: Type.Number(),
      }),
    ),
    fundSize: Type.Optional(
      Nullable(
        Type.Number({ description: 'Total value of the fund in the unit price’s currency, 0 to 10^15' }),
      ),
    ),
    numberOfInvestors: Type.Optional(Nullable(Type.Integer({ description: 'Number of investors' }))),
    riskIndicator: Type.Optional(Nullable(Type.Integer({ description: 'Risk indicator, 1 (lowest) to 7' }))),
  },
  {
    description:
      'A fund update for a quarter; the rules are in the README (every problem is reported at once)',
    // The fixed fund FND10001's overdue quarter (filed late): the reference's try-it and the recorded
    // example file it, with If-Match the fund's ETag.
    examples: [
      {
        periodEndDate: '2026-03-31',
        unitPrice: { price: 1.2345, currency: 'NZD' },
        returns: [{ period: '1y', percentage: 5.5 }],
        fees: [{ feeType: 'TOTAL_ANNUAL', percentage: 0.9 }],
        assetAllocation: [
          { assetType: 'CASH_AND_CASH_EQUIVALENTS', actualPercentage: 10, targetPercentage: 10 },
          { assetType: 'INTERNATIONAL_EQUITIES', actualPercentage: 90, targetPercentage: 90 },
        ],
        fundSize: 125000000,
        numberOfInvestors: 4200,
        riskIndicator: 4,
      },
    ],
  },
);

export const HoldingsBody = Type.Object(
  {
    periodEndDate: Type.String({ description: 'YYYY-MM-DD', examples: ['2026-03-31'] }),
    holdings: Type.Array(
      Type.Object({
        assetName: Type.String(),
        assetType: Type.String({ enum: [...ASSET_TYPES] }),
        isin: Type.Optional(Type.String()),
        value: Type.Number(),
        percentageOfFund: Type.Number(),
        currency: Type.String(),
      }),
    ),
  },
  {
    description: 'Full portfolio holdings for a period ending 31 March or 30 September',
    // The fixed fund FND10001's overdue holdings (filed late), percentages summing to 100.
    examples: [
      {
        periodEndDate: '2026-03-31',
        holdings: [
          {
            assetName: 'New Zealand Government Bond 2031',
            assetType: 'NEW_ZEALAND_FIXED_INTEREST',
            isin: 'NZ1000000018',
            value: 600000,
            percentageOfFund: 60,
            currency: 'NZD',
          },
          {
            assetName: 'Apple Inc.',
            assetType: 'INTERNATIONAL_EQUITIES',
            isin: 'US0378331005',
            value: 400000,
            percentageOfFund: 40,
            currency: 'USD',
          },
        ],
      },
    ],
  },
);

/**
 * The documents' example values: the sandbox's fixed test cases (README, "Sandbox data"), so the
 * reference's try-it answers unchanged (with `x-organisation: sandbox-operators` for an operator).
 */
export const PARAMETER_EXAMPLES: Readonly<Record<string, string>> = {
  offerNumber: 'OFR10001',
  schemeNumber: 'SCH10000',
  fundNumber: 'FND10001',
  'start-date': '2026-06-01',
  'end-date': '2026-06-15',
};

const PATH_PARAMETERS: Readonly<Record<string, string>> = {
  offerNumber: 'OFR and 5 digits',
  schemeNumber: 'SCH and 5 digits',
  fundNumber: 'FND and 5 digits',
  noticeRecId: 'A Financial Markets Authority notice’s id (from the offer’s or scheme’s documents)',
  documentType: 'The document’s type (from the documents list)',
  documentRecId: 'The document’s id (from the documents list)',
};

/** Examples that depend on the record: the fixed cases' documents (the seed numbers them in order). */
const SUBJECT_EXAMPLES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  offer: { documentType: 'product-disclosure-statements', documentRecId: 'DOC100030' },
  scheme: { documentType: 'governing-documents', documentRecId: 'DOC100001', noticeRecId: 'DOC100013' },
};

/**
 * The regulator's notices: the fixed offer OFR10001 has none, so an offer's notices (their list, one, its
 * documents) are the fixed offer OFR10003's, and its first notice (README, "Sandbox data").
 */
const NOTICE_EXAMPLES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  offer: { offerNumber: 'OFR10003', noticeRecId: 'DOC100067' },
};

/** The parameter names of a route's URL: `/offer/:offerNumber/fund/:fundNumber` has `offerNumber | fundNumber`. */
type PathParameterNames<Url extends string> = Url extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParameterNames<`/${Rest}`>
  : Url extends `${string}:${infer Name}`
    ? Name
    : never;

/** A URL's path parameters, every one text: by name for a literal URL, any name for a computed one. */
export type PathParameters<Url extends string> = TObject<
  string extends Url ? Record<string, TString> : { [Name in PathParameterNames<Url>]: TString }
>;

/** The path parameters of a route's URL (`/offer/:offerNumber/…`), documented with their examples. */
export const pathParameters = <Url extends string>(url: Url): PathParameters<Url> => {
  const names = [...url.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  const kind = url.split('/')[1] ?? '';
  const subject = {
    ...SUBJECT_EXAMPLES[kind],
    ...(url.includes('/fma-notice') ? NOTICE_EXAMPLES[kind] : {}),
  };
  return Type.Object(
    Object.fromEntries(
      names.map((name) => {
        const example = subject[name] ?? PARAMETER_EXAMPLES[name];
        return [
          name,
          Type.String({
            description: PATH_PARAMETERS[name] ?? name,
            ...(example ? { examples: [example] } : {}),
          }),
        ];
      }),
    ),
    // The names read from the URL above are the names its type reads (PathParameterNames).
  ) as PathParameters<Url>;
};

/** A filing's headers beside `x-organisation` (which every operation's description names instead). */
export const FilingHeaders = Type.Object({
  // Optional here: its absence is the kit's 428 (declared `required`), before validation.
  'if-match': Type.Optional(
    Type.String({ description: 'The fund’s ETag as last read (required: 428 when absent, 412 when stale)' }),
  ),
  'if-unmodified-since': Type.Optional(
    Type.String({
      description: 'An HTTP date: 412 when the fund changed after it (ignored beside If-Match, RFC 9110)',
    }),
  ),
});

/**
 * Every operation needs `x-organisation` (400 absent, 403 not a member): said in its description rather
 * than as a header parameter, as API Management's refusal of a foreign organisation is the gateway's.
 */
export const ORGANISATION_NOTE =
  'Header x-organisation (required): the register organisation the call is made for — 400 when absent, 403 when the caller does not belong to it.';

const conditional = {
  304: { description: 'Not modified (If-None-Match or If-Modified-Since)' },
  412: problem('If-Match or If-Unmodified-Since does not hold'),
};

/** The answers of a read. */
export const readResponses = (json: TSchema) => ({
  200: { description: 'OK', content: { 'application/json': { schema: json } } },
  ...conditional,
  400: problem('A parameter breaks a rule, or x-organisation is absent'),
  404: problem('No such record, version or page item'),
});

export const downloadResponses = {
  // No body (type null: the document then lists no content); the answer is its Location header.
  302: {
    type: 'null',
    description: 'Found: Location is a signed URL, valid for a limited time',
    headers: { Location: { type: 'string', description: 'The signed URL of the document' } },
  },
  400: problem('x-organisation is absent'),
  404: problem('No such document'),
};

export const filingResponses = {
  200: { description: 'Filed', content: { 'application/json': { schema: FilingReceipt } } },
  400: problem('The body breaks rules: every problem is listed'),
  403: problem('The organisation has no authority over the fund'),
  404: problem('No such fund of the offer'),
  409: problem('The period was filed already'),
  412: problem('If-Match does not name the fund’s current version'),
  413: problem('The body is over 20 MB'),
  415: problem('The body is not JSON'),
  428: problem('If-Match is required'),
};
