/**
 * JSON Schemas of the bibliographic documents' JSON form (`Accept: application/json`): the same element
 * tree as the XSDs in xsd/, an element a key, a repeatable element an array (the README's mapping). The
 * XSDs remain the definition of the XML; these keep the JSON answers checked against the OpenAPI document.
 */
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { CaseKind } from '../domain/renewals.ts';

const Closed = { additionalProperties: false } as const;
const Text = Type.String();
const DateText = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' });
const NumberText = Type.String({ pattern: '^[1-9][0-9]{0,8}$' });
const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

const common = {
  StatusHistory: Type.Object(
    {
      Status: Type.Array(Type.Object({ StatusCode: Text, StatusDate: DateText }, Closed)),
      Renewal: Type.Array(
        Type.Object({ RenewalDate: DateText, RenewedExpiryDate: DateText, NewExpiryDate: DateText }, Closed),
      ),
    },
    Closed,
  ),
  Parties: Type.Object(
    {
      Party: Type.Array(
        Type.Object(
          {
            PartyRole: Type.Union(
              ['Applicant', 'Owner', 'Agent', 'Inventor', 'Address for Service'].map((r) => Type.Literal(r)),
            ),
            ClientIdentifier: NumberText,
            ClientName: Text,
            CountryCode: opt(Type.String({ pattern: '^[A-Z]{2}$' })),
          },
          Closed,
        ),
      ),
    },
    Closed,
  ),
  Documents: Type.Object(
    {
      Document: Type.Array(
        Type.Object(
          {
            ObjectIdentifier: Type.String({ pattern: '^[0-9a-f]{16}$' }),
            ObjectName: Text,
            ObjectFormat: Type.Union([Type.Literal('pdf'), Type.Literal('jpeg'), Type.Literal('gif')]),
            DocumentDate: DateText,
          },
          Closed,
        ),
      ),
    },
    Closed,
  ),
};

const CountryText = Type.String({ pattern: '^[A-Z]{2}$' });
const patentDetail = {
  Abstract: opt(Text),
  Claims: opt(
    Type.Object(
      {
        ClaimCount: NumberText,
        IndependentClaim: Type.Array(Type.Object({ ClaimNumber: NumberText, ClaimText: Text }, Closed), {
          minItems: 1,
        }),
      },
      Closed,
    ),
  ),
  IpcClassifications: opt(
    Type.Object(
      {
        IpcClassification: Type.Array(
          Type.String({ pattern: '^[A-H][0-9]{2}[A-Z] [0-9]{1,4}/[0-9]{2,6}$' }),
          {
            minItems: 1,
          },
        ),
      },
      Closed,
    ),
  ),
  PriorityClaims: opt(
    Type.Object(
      {
        PriorityClaim: Type.Array(
          Type.Object(
            { PriorityNumber: Text, PriorityDate: DateText, PriorityCountryCode: CountryText },
            Closed,
          ),
        ),
      },
      Closed,
    ),
  ),
  PctPublication: opt(
    Type.Object(
      { PublicationNumber: Type.String({ pattern: '^WO/[0-9]{4}/[0-9]{6}$' }), PublicationDate: DateText },
      Closed,
    ),
  ),
  Inventors: Type.Object(
    {
      Inventor: Type.Array(
        Type.Object(
          { ClientIdentifier: NumberText, InventorName: Text, CountryCode: opt(CountryText) },
          Closed,
        ),
      ),
    },
    Closed,
  ),
};

const PatentTree = Type.Object(
  {
    TransactionDateTime: Text,
    PatentNumber: NumberText,
    InternationalApplicationNumber: opt(Type.String({ pattern: '^PCT/[A-Z]{2}[0-9]{4}/[0-9]{6}$' })),
    InternationalPublicationNumber: opt(Type.String({ pattern: '^WO/[0-9]{4}/[0-9]{6}$' })),
    PatentCurrentStatusCode: Text,
    PatentCurrentStatusDate: DateText,
    CompleteFiledDate: DateText,
    PriorityCountryCode: opt(Type.String({ pattern: '^[A-Z]{2}$' })),
    PatentTitle: Text,
    ApplicationDate: DateText,
    GrantDate: opt(DateText),
    ExpiryDate: opt(DateText),
    ...patentDetail,
    ...common,
  },
  Closed,
);

const TradeMarkTree = Type.Object(
  {
    TransactionDateTime: Text,
    RegistrationOfficeCode: Type.Literal('NZ'),
    ApplicationNumber: NumberText,
    InternationalRegistrationNumber: opt(Text),
    ApplicationDate: DateText,
    RegistrationNumber: opt(NumberText),
    RegistrationDate: opt(DateText),
    ExpiryDate: opt(DateText),
    MarkCurrentStatusCode: Text,
    MarkCurrentStatusDate: DateText,
    MarkTitle: Text,
    MarkImageName: opt(Text),
    GoodsAndServices: Type.Object(
      {
        ClassDescription: Type.Array(
          Type.Object({ ClassNumber: Type.String({ pattern: '^[1-9][0-9]?$' }), Description: Text }, Closed),
          { maxItems: 45 },
        ),
      },
      Closed,
    ),
    ...common,
  },
  Closed,
);

const DesignTree = Type.Object(
  {
    TransactionDateTime: Text,
    DesignIdentifier: NumberText,
    ApplicationDate: DateText,
    RegistrationNumber: opt(NumberText),
    RegistrationDate: opt(DateText),
    DesignTitle: Text,
    NoveltyStatement: opt(Text),
    PublicationDefermentIndicator: Type.Literal(false),
    ExpiryDate: opt(DateText),
    DesignCurrentStatusCode: Text,
    DesignCurrentStatusDate: DateText,
    ...common,
  },
  Closed,
);

const TREES: Record<CaseKind, { element: string; list: string; tree: TObject }> = {
  patent: { element: 'Patent', list: 'PatentList', tree: PatentTree },
  trademark: { element: 'TradeMark', list: 'TradeMarkList', tree: TradeMarkTree },
  design: { element: 'Design', list: 'DesignList', tree: DesignTree },
};

const DateRange = Type.Object(
  {
    DateType: Type.Union([Type.Literal('Updated'), Type.Literal('Registered')]),
    StartDate: DateText,
    EndDate: DateText,
  },
  Closed,
);

/** The record element's tree of a kind (what `{"Patent": …}` holds), and its element's name. */
export const recordTreeSchema = (kind: CaseKind): { element: string; tree: TObject } => TREES[kind];

/** `{"Patent": {…}}` and so on. */
export const recordJsonSchema = (kind: CaseKind): TObject =>
  Type.Object({ [TREES[kind].element]: TREES[kind].tree }, Closed);

/** `{"PatentList": {"DateRange": {…}, "Patent": […]}}` and so on. */
export const listJsonSchema = (kind: CaseKind): TObject =>
  Type.Object(
    {
      [TREES[kind].list]: Type.Object(
        { DateRange, [TREES[kind].element]: Type.Array(TREES[kind].tree) },
        Closed,
      ),
    },
    Closed,
  );
