/**
 * The IP office's records as a transfer file holds them (docs/formats/iponz.md): one NDJSON line each,
 * told apart by `record` — `client` (as `GET /clients/{client-id}` answers it), `internationalApplication`
 * (a published PCT application the national phase may name), `patent`, `tradeMark` and `design` (the
 * bibliographic document's JSON form, `{"Patent": …}` as `GET /patents/{n}` answers it, with what the
 * register keeps beside it under `register`), and `correspondence` (a filed case's filer, tasks and
 * discussions). Each part is checked with the API's own schemas and rules: what the API refuses or would
 * never answer, an import refuses, naming the field.
 *
 * A case's published document holds fields the register derives (ExpiryDate, RegistrationNumber, the
 * Inventors, ClientName and CountryCode of parties): a line must say what the register would derive from
 * the rest, so that what is imported is exported again byte for byte.
 */
import { type Static, type TObject, Type } from '@sinclair/typebox';
import { isDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { canonicalJson } from '../../../platform/transfer/canonical.ts';
import { type RecordProblem, ruleProblems, schemaProblems } from '../../../platform/transfer/check.ts';
import { documentFileName, documentFileProblem } from '../../../platform/transfer/documents.ts';
import { accepted, type Checked, refused } from '../../../platform/transfer/register.ts';
import { checkPostcode, type InternationalApplication, NAME_MAX } from '../domain/applications.ts';
import { recordTree } from '../domain/bibliographic.ts';
import { ADDRESS_TYPES } from '../domain/client-search.ts';
import {
  parseClientId,
  parsePctApplicationNumber,
  parsePctPublicationNumber,
} from '../domain/identifiers.ts';
import {
  type CaseDocument,
  type CaseParty,
  type CaseRecord,
  type Client,
  PARTY_ROLES,
  type PartyRole,
} from '../domain/model.ts';
import type { PatentDetail } from '../domain/patent-detail.ts';
import { type CaseKind, STATUSES } from '../domain/renewals.ts';
import { clientJson } from '../operations/clients.ts';
import { recordTreeSchema } from '../schemas/bibliographic.ts';
import { ClientRecord } from '../schemas/operations.ts';
import type { LoadedCase } from '../store/seed.ts';
import { CorrespondenceLine, type CorrespondenceRecord, correspondenceOf } from './correspondence.ts';

const Closed = { additionalProperties: false } as const;
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const MARK_NATURES = ['Trade Mark', 'Collective Mark', 'Certification Mark'] as const;
export const MARK_TYPES = ['Word', 'Image', 'Combined', 'Colour', 'Shape', 'Sound'] as const;

/** The record names of the three kinds of case, and the kind each names. */
export const CASE_RECORDS: Readonly<Record<string, CaseKind>> = {
  patent: 'patent',
  tradeMark: 'trademark',
  design: 'design',
};
const RECORD_OF: Record<CaseKind, string> = { patent: 'patent', trademark: 'tradeMark', design: 'design' };

export const ClientLine = Type.Object({ record: Type.Literal('client'), ...ClientRecord.properties }, Closed);

export const InternationalApplicationLine = Type.Object(
  {
    record: Type.Literal('internationalApplication'),
    internationalApplicationNumber: Type.String(),
    internationalPublicationNumber: Type.String(),
    internationalFilingDate: Type.String(),
    priorityDate: Type.String(),
    priorityCountryCode: Type.String({ pattern: '^[A-Z]{2}$' }),
    title: Type.String(),
  },
  Closed,
);

/** A document's bytes, a file in the documents folder (only documents whose bytes the register stores). */
const DocumentFile = Type.Object(
  {
    ObjectIdentifier: Type.String({ pattern: '^[0-9a-f]{16}$' }),
    file: Type.String(),
    size: Type.Integer({ minimum: 0 }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  },
  Closed,
);

/** What the register keeps of a case beside its published document. */
export const CaseRegister = Type.Object(
  {
    termDate: Type.String(),
    lastRenewalDueDate: Nullable(Type.String()),
    markNature: Nullable(Type.Union(MARK_NATURES.map((n) => Type.Literal(n)))),
    markType: Nullable(Type.Union(MARK_TYPES.map((n) => Type.Literal(n)))),
    version: Type.Integer({ minimum: 1 }),
    documentFiles: Type.Array(DocumentFile),
  },
  Closed,
);
export type CaseRegisterLine = Static<typeof CaseRegister>;

const caseLineSchemas = new Map<string, TObject>(
  Object.entries(CASE_RECORDS).map(([record, kind]) => {
    const { element, tree } = recordTreeSchema(kind);
    return [
      record,
      Type.Object({ record: Type.Literal(record), [element]: tree, register: CaseRegister }, Closed),
    ];
  }),
);

/** A case as the import writes it, with what the line says of it beside. */
export interface ImportedCase {
  loaded: LoadedCase & { version: number; updatedAt: Date };
  /** The parties as the line names them (their names and countries are the clients'). */
  parties: CaseParty[];
  /** The documents whose bytes are files beside the NDJSON. */
  files: Static<typeof DocumentFile>[];
  /** What the line says, compared with what the register holds (`caseContent`). */
  content: string;
  /** false: a bibliographic XML document (only the published fields; the rest the register derives or keeps). */
  whole: boolean;
}

export type IponzRecord =
  | { kind: 'client'; client: Client }
  | { kind: 'internationalApplication'; application: InternationalApplication }
  | { kind: 'case'; case: ImportedCase }
  | { kind: 'correspondence'; correspondence: CorrespondenceRecord };

const KINDS = ['client', 'internationalApplication', ...Object.keys(CASE_RECORDS), 'correspondence'];

/** One line's record, checked with the API's rules; documents' files looked for in `folder`. */
export function checkRecord(value: unknown, folder: string): Checked<IponzRecord> {
  const kind = (value as { record?: unknown } | null)?.record;
  if (typeof kind !== 'string' || !KINDS.includes(kind))
    return refused([{ field: 'record', rule: `must be one of ${KINDS.join(', ')}` }]);
  const schema =
    kind === 'client'
      ? ClientLine
      : kind === 'internationalApplication'
        ? InternationalApplicationLine
        : kind === 'correspondence'
          ? CorrespondenceLine
          : caseLineSchemas.get(kind)!;
  const problems = schemaProblems(schema, value);
  if (problems.length > 0) return refused(problems);
  let record: IponzRecord | undefined;
  const ruled = ruleProblems(() => {
    if (kind === 'client') record = { kind, client: clientOf(value as Static<typeof ClientLine>) };
    else if (kind === 'internationalApplication')
      record = { kind, application: applicationOf(value as Static<typeof InternationalApplicationLine>) };
    else if (kind === 'correspondence')
      record = { kind, correspondence: correspondenceOf(value as Static<typeof CorrespondenceLine>) };
    else {
      const caseKind = CASE_RECORDS[kind]!;
      const line = value as Record<string, unknown> & { register: CaseRegisterLine };
      const element = recordTreeSchema(caseKind).element;
      record = { kind: 'case', case: caseOf(caseKind, line[element] as Tree, line.register, folder) };
    }
  });
  return ruled.length > 0 || !record ? refused(ruled as RecordProblem[]) : accepted(record);
}

/** A case's published document checked alone (a bibliographic XML record, already valid against its XSD). */
export function checkDocument(kind: CaseKind, tree: unknown): Checked<IponzRecord> {
  const { element, tree: schema } = recordTreeSchema(kind);
  const problems = schemaProblems(schema, tree).map((p) => ({ ...p, field: `${element}.${p.field}` }));
  if (problems.length > 0) return refused(problems);
  let record: IponzRecord | undefined;
  const ruled = ruleProblems(() => {
    record = { kind: 'case', case: caseOf(kind, tree as Tree, undefined, '') };
  });
  return ruled.length > 0 || !record ? refused(ruled as RecordProblem[]) : accepted(record);
}

function date(text: string, field: string): string {
  if (!isDate(text)) throw new RuleError(field, 'must be a date, YYYY-MM-DD');
  return text;
}

function required(text: string, field: string, max: number): string {
  if (text.trim() === '') throw new RuleError(field, 'is required');
  if (text.length > max) throw new RuleError(field, `must be at most ${max} characters`);
  return text;
}

function clientOf(line: Static<typeof ClientLine>): Client {
  const clientId = parseClientId(line.clientId, 'clientId');
  required(line.name, 'name', NAME_MAX);
  const addresses: Client['addresses'] = {};
  for (const [i, a] of line.addresses.entries()) {
    const at = `addresses.${i}`;
    if (addresses[a.addressType]) throw new RuleError(`${at}.addressType`, 'is given twice');
    for (const key of ['addressLine1', 'addressLine2', 'addressLine3', 'city'] as const) {
      const text = a[key];
      if (text !== null && text.length > 100)
        throw new RuleError(`${at}.${key}`, 'must be at most 100 characters');
    }
    if (a.postcode !== null) {
      try {
        checkPostcode(a.postcode, a.countryCode);
      } catch (error) {
        if (error instanceof RuleError) throw new RuleError(`${at}.postcode`, error.rule);
        throw error;
      }
    }
    addresses[a.addressType] = {
      line1: a.addressLine1,
      line2: a.addressLine2,
      line3: a.addressLine3,
      city: a.city,
      postcode: a.postcode,
      countryCode: a.countryCode,
    };
  }
  const client: Client = {
    clientId,
    name: line.name,
    clientType: line.clientType,
    nzbn: line.nzbn,
    addresses,
  };
  // The order of addresses is the register's (physical, postal, service): a line says it so.
  const expected = clientJson(client).addresses.map((a) => a.addressType);
  if (line.addresses.some((a, i) => a.addressType !== expected[i]))
    throw new RuleError('addresses', `must be in the order ${ADDRESS_TYPES.join(', ')}`);
  return client;
}

/** A client as its line. */
export const clientLine = (client: Client) => ({ record: 'client', ...clientJson(client) });

function applicationOf(line: Static<typeof InternationalApplicationLine>): InternationalApplication {
  const number = parsePctApplicationNumber(
    line.internationalApplicationNumber,
    'internationalApplicationNumber',
  );
  if (number.text !== line.internationalApplicationNumber)
    throw new RuleError('internationalApplicationNumber', `must be written ${number.text}`);
  parsePctPublicationNumber(line.internationalPublicationNumber, 'internationalPublicationNumber');
  date(line.internationalFilingDate, 'internationalFilingDate');
  date(line.priorityDate, 'priorityDate');
  if (line.priorityDate > line.internationalFilingDate)
    throw new RuleError('priorityDate', 'must not be after internationalFilingDate');
  required(line.title, 'title', 1000);
  const { record: _record, ...application } = line;
  return application;
}

/** An international application as its line. */
export const applicationLine = (application: InternationalApplication) => ({
  record: 'internationalApplication',
  ...application,
});

// --- Cases -------------------------------------------------------------------------------------------

// biome-ignore lint/suspicious/noExplicitAny: the published document's JSON tree, checked by its schema
type Tree = Record<string, any>;

const ELEMENT = {
  patent: {
    number: 'PatentNumber',
    status: 'PatentCurrentStatusCode',
    statusDate: 'PatentCurrentStatusDate',
    title: 'PatentTitle',
    registered: 'GrantDate',
  },
  trademark: {
    number: 'ApplicationNumber',
    status: 'MarkCurrentStatusCode',
    statusDate: 'MarkCurrentStatusDate',
    title: 'MarkTitle',
    registered: 'RegistrationDate',
  },
  design: {
    number: 'DesignIdentifier',
    status: 'DesignCurrentStatusCode',
    statusDate: 'DesignCurrentStatusDate',
    title: 'DesignTitle',
    registered: 'RegistrationDate',
  },
} as const;

const roleOrder = (a: { role: string }, b: { role: string }) =>
  a.role < b.role ? -1 : a.role > b.role ? 1 : 0;
const documentOrder = (a: CaseDocument, b: CaseDocument) =>
  a.createdOn < b.createdOn
    ? -1
    : a.createdOn > b.createdOn
      ? 1
      : a.documentIdentifier < b.documentIdentifier
        ? -1
        : a.documentIdentifier > b.documentIdentifier
          ? 1
          : 0;

/** Dates of a list, oldest first (the register keeps a history in the order it happened). */
function inOrder(dates: string[], field: string): void {
  for (let i = 1; i < dates.length; i++)
    if (dates[i]! < dates[i - 1]!)
      throw new RuleError(`${field}.${i}`, 'must not be before the one before it');
}

function patentDetailOf(tree: Tree, element: string): PatentDetail | null {
  const parts = ['Abstract', 'Claims', 'IpcClassifications', 'PriorityClaims'] as const;
  const given = parts.filter((p) => tree[p] !== undefined);
  if (given.length === 0) {
    if (tree.PctPublication !== undefined)
      throw new RuleError(
        `${element}.PctPublication`,
        'comes only with Abstract, Claims, IpcClassifications and PriorityClaims',
      );
    return null;
  }
  const missing = parts.find((p) => tree[p] === undefined);
  if (missing) throw new RuleError(`${element}.${missing}`, `is required with ${given[0]}`);
  const claims = tree.Claims as {
    ClaimCount: string;
    IndependentClaim: { ClaimNumber: string; ClaimText: string }[];
  };
  const count = Number(claims.ClaimCount);
  for (const [i, c] of claims.IndependentClaim.entries())
    if (Number(c.ClaimNumber) > count)
      throw new RuleError(
        `${element}.Claims.IndependentClaim.${i}.ClaimNumber`,
        'must not be above ClaimCount',
      );
  for (const [i, p] of (tree.PriorityClaims.PriorityClaim as { PriorityDate: string }[]).entries())
    date(p.PriorityDate, `${element}.PriorityClaims.PriorityClaim.${i}.PriorityDate`);
  return {
    abstract: tree.Abstract,
    claims: {
      count,
      independent: claims.IndependentClaim.map((c) => ({ number: Number(c.ClaimNumber), text: c.ClaimText })),
    },
    ipcClassifications: tree.IpcClassifications.IpcClassification,
    priorityClaims: (
      tree.PriorityClaims.PriorityClaim as {
        PriorityNumber: string;
        PriorityDate: string;
        PriorityCountryCode: string;
      }[]
    ).map((p) => ({ number: p.PriorityNumber, date: p.PriorityDate, countryCode: p.PriorityCountryCode })),
    pctPublication: tree.PctPublication
      ? {
          number: tree.PctPublication.PublicationNumber,
          date: date(tree.PctPublication.PublicationDate, `${element}.PctPublication.PublicationDate`),
        }
      : null,
  };
}

/** The published document of a case as its elements come back when it is answered (`recordTree`). */
const answered = (record: CaseRecord): Tree => JSON.parse(JSON.stringify(recordTree(record)));

/** The document's lists in the register's order (parties by role, documents by date, goods by class). */
function inRegisterOrder(tree: Tree): Tree {
  const sorted = structuredClone(tree);
  sorted.Parties.Party = [...sorted.Parties.Party].sort((a: Tree, b: Tree) =>
    roleOrder({ role: a.PartyRole }, { role: b.PartyRole }),
  );
  sorted.Documents.Document = [...sorted.Documents.Document].sort((a: Tree, b: Tree) =>
    documentOrder(
      { documentIdentifier: a.ObjectIdentifier, createdOn: a.DocumentDate } as CaseDocument,
      { documentIdentifier: b.ObjectIdentifier, createdOn: b.DocumentDate } as CaseDocument,
    ),
  );
  if (sorted.GoodsAndServices)
    sorted.GoodsAndServices.ClassDescription = [...sorted.GoodsAndServices.ClassDescription].sort(
      (a: Tree, b: Tree) => Number(a.ClassNumber) - Number(b.ClassNumber),
    );
  return sorted;
}

/** What a case's line says, as compared for idempotency: the document but its last change, and the register's part but its version. */
export function caseContent(tree: Tree, register: CaseRegisterLine | undefined): string {
  const { TransactionDateTime: _changed, ...rest } = tree;
  if (!register) return canonicalJson({ tree: rest });
  const { version: _version, ...kept } = register;
  return canonicalJson({ tree: rest, register: kept });
}

type At = (field: string) => string;

/** The status history and renewals, each oldest first. */
function historyOf(tree: Tree, at: At) {
  const statuses = tree.StatusHistory.Status as { StatusCode: string; StatusDate: string }[];
  if (statuses.length === 0) throw new RuleError(at('StatusHistory.Status'), 'must hold at least one status');
  for (const [i, s] of statuses.entries()) date(s.StatusDate, at(`StatusHistory.Status.${i}.StatusDate`));
  inOrder(
    statuses.map((s) => s.StatusDate),
    at('StatusHistory.Status'),
  );
  const renewals = tree.StatusHistory.Renewal as {
    RenewalDate: string;
    RenewedExpiryDate: string;
    NewExpiryDate: string;
  }[];
  for (const [i, r] of renewals.entries()) {
    for (const field of ['RenewalDate', 'RenewedExpiryDate', 'NewExpiryDate'] as const)
      date(r[field], at(`StatusHistory.Renewal.${i}.${field}`));
    if (r.NewExpiryDate <= r.RenewedExpiryDate)
      throw new RuleError(at(`StatusHistory.Renewal.${i}.NewExpiryDate`), 'must be after RenewedExpiryDate');
  }
  inOrder(
    renewals.map((r) => r.RenewalDate),
    at('StatusHistory.Renewal'),
  );

  return { statuses, renewals };
}

/** The parties, documents and (a trade mark's) goods and services, checked. */
function partsOf(kind: CaseKind, tree: Tree, at: At) {
  const parties: CaseParty[] = (tree.Parties.Party as Tree[]).map((p, i) => ({
    role: p.PartyRole as PartyRole,
    clientId: parseClientId(p.ClientIdentifier, at(`Parties.Party.${i}.ClientIdentifier`)),
    name: p.ClientName,
    countryCode: p.CountryCode ?? null,
  }));
  for (const [i, p] of parties.entries())
    if (!PARTY_ROLES.includes(p.role))
      throw new RuleError(at(`Parties.Party.${i}.PartyRole`), `must be one of ${PARTY_ROLES.join(', ')}`);
  const documents: CaseDocument[] = (tree.Documents.Document as Tree[]).map((d, i) => ({
    documentIdentifier: d.ObjectIdentifier,
    documentName: required(d.ObjectName, at(`Documents.Document.${i}.ObjectName`), 255),
    objectFormat: d.ObjectFormat,
    createdOn: date(d.DocumentDate, at(`Documents.Document.${i}.DocumentDate`)),
  }));
  const ids = new Set<string>();
  for (const [i, d] of documents.entries()) {
    if (ids.has(d.documentIdentifier))
      throw new RuleError(at(`Documents.Document.${i}.ObjectIdentifier`), 'is given twice');
    ids.add(d.documentIdentifier);
  }
  const goods =
    kind === 'trademark'
      ? (tree.GoodsAndServices.ClassDescription as { ClassNumber: string; Description: string }[]).map(
          (g, i) => {
            const classNumber = Number(g.ClassNumber);
            if (classNumber < 1 || classNumber > 45)
              throw new RuleError(
                at(`GoodsAndServices.ClassDescription.${i}.ClassNumber`),
                'must be from 1 to 45',
              );
            required(g.Description, at(`GoodsAndServices.ClassDescription.${i}.Description`), 10_000);
            return { classNumber, description: g.Description };
          },
        )
      : [];
  for (let i = 1; i < goods.length; i++)
    if (goods[i]!.classNumber === goods[i - 1]!.classNumber)
      throw new RuleError(at(`GoodsAndServices.ClassDescription.${i}.ClassNumber`), 'is given twice');

  return { parties, documents, goods };
}

/** What the register keeps beside the document: the line's, else derived from the document (XML). */
function keptOf(
  kind: CaseKind,
  tree: Tree,
  register: CaseRegisterLine | undefined,
  renewals: { RenewedExpiryDate: string }[],
) {
  const termDate = register
    ? date(register.termDate, 'register.termDate')
    : kind === 'patent'
      ? tree.CompleteFiledDate
      : tree.ApplicationDate;
  const lastRenewalDueDate = register
    ? register.lastRenewalDueDate === null
      ? null
      : date(register.lastRenewalDueDate, 'register.lastRenewalDueDate')
    : (renewals.at(-1)?.RenewedExpiryDate ?? null);
  if (register && kind !== 'trademark' && (register.markNature !== null || register.markType !== null))
    throw new RuleError(
      register.markNature !== null ? 'register.markNature' : 'register.markType',
      'is only for trade marks',
    );
  if (register && kind === 'trademark' && (register.markNature === null || register.markType === null))
    throw new RuleError(
      register.markNature === null ? 'register.markNature' : 'register.markType',
      'is required for a trade mark',
    );
  return { termDate: termDate as string, lastRenewalDueDate };
}

/** The documents whose bytes are files beside the NDJSON, each checked: identifier to size. */
function storedSizes(
  register: CaseRegisterLine | undefined,
  documents: readonly CaseDocument[],
  folder: string,
): Map<string, number> {
  const files = register?.documentFiles ?? [];
  const stored = new Map<string, number>();
  for (const [i, f] of files.entries()) {
    const field = `register.documentFiles.${i}`;
    const document = documents.find((d) => d.documentIdentifier === f.ObjectIdentifier);
    if (!document) throw new RuleError(`${field}.ObjectIdentifier`, 'must be one of the Documents');
    if (stored.has(f.ObjectIdentifier)) throw new RuleError(`${field}.ObjectIdentifier`, 'is given twice');
    const expected = documentFileName(f.ObjectIdentifier, `document.${document.objectFormat}`);
    if (f.file !== expected) throw new RuleError(`${field}.file`, `must be ${expected}`);
    const problem = documentFileProblem(folder, f.file, f.size, f.sha256);
    if (problem) throw new RuleError(`${field}.file`, problem);
    stored.set(f.ObjectIdentifier, f.size);
  }
  return stored;
}

/** What the register derives from the record (expiry, registration number, inventors …) must be what the line says. */
function checkDerived(tree: Tree, record: CaseRecord, at: At): void {
  const derived = answered(record);
  for (const key of new Set([...Object.keys(tree), ...Object.keys(derived)])) {
    if (canonicalJson(tree[key]) === canonicalJson(derived[key])) continue;
    const expected = derived[key];
    throw new RuleError(
      at(key),
      expected === undefined
        ? 'must be left out: the register does not derive it from this record'
        : typeof expected === 'object'
          ? `must be what the register derives from the record: ${JSON.stringify(expected)}`
          : `must be ${JSON.stringify(expected)}, what the register derives from the record`,
    );
  }
}

function caseOf(
  kind: CaseKind,
  given: Tree,
  register: CaseRegisterLine | undefined,
  folder: string,
): ImportedCase {
  const element = recordTreeSchema(kind).element;
  const names = ELEMENT[kind];
  const at = (field: string) => `${element}.${field}`;
  const tree = inRegisterOrder(given);
  const updated = new Date(tree.TransactionDateTime);
  if (Number.isNaN(updated.getTime()) || updated.toISOString() !== tree.TransactionDateTime)
    throw new RuleError(at('TransactionDateTime'), 'must be a UTC date-time, e.g. 2024-03-01T09:30:00.000Z');
  const caseNumber = Number(tree[names.number]);
  const status: string = tree[names.status];
  if (!STATUSES[kind].includes(status))
    throw new RuleError(at(names.status), `must be one of ${STATUSES[kind].join(', ')}`);
  for (const field of [
    'ApplicationDate',
    names.statusDate,
    names.registered,
    'CompleteFiledDate',
    'ExpiryDate',
  ])
    if (typeof tree[field] === 'string') date(tree[field], at(field));
  required(tree[names.title], at(names.title), 2000);
  const registrationDate: string | null = tree[names.registered] ?? null;
  if (registrationDate !== null && registrationDate < tree.ApplicationDate)
    throw new RuleError(at(names.registered), 'must not be before ApplicationDate');

  const { statuses, renewals } = historyOf(tree, at);
  const { parties, documents, goods } = partsOf(kind, tree, at);
  const { termDate, lastRenewalDueDate } = keptOf(kind, tree, register, renewals);
  const stored = storedSizes(register, documents, folder);
  const whole = register !== undefined;
  const files = register?.documentFiles ?? [];

  const record: CaseRecord = {
    kind,
    caseNumber,
    title: tree[names.title],
    status,
    statusDate: tree[names.statusDate],
    applicationDate: tree.ApplicationDate,
    termDate,
    registrationDate,
    lastRenewalDueDate,
    internationalApplicationNumber: tree.InternationalApplicationNumber ?? null,
    internationalPublicationNumber: tree.InternationalPublicationNumber ?? null,
    internationalRegistrationNumber: tree.InternationalRegistrationNumber ?? null,
    priorityCountryCode: tree.PriorityCountryCode ?? null,
    markImageName: tree.MarkImageName ?? null,
    noveltyStatement: tree.NoveltyStatement ?? null,
    patentDetail: kind === 'patent' ? patentDetailOf(tree, element) : null,
    version: register?.version ?? 1,
    updatedAt: updated,
    history: statuses.map((s) => ({ status: s.StatusCode, statusDate: s.StatusDate })),
    renewals: renewals.map((r) => ({
      renewalDate: r.RenewalDate,
      renewedExpiryDate: r.RenewedExpiryDate,
      newExpiryDate: r.NewExpiryDate,
    })),
    parties: [...parties].sort(roleOrder),
    documents: [...documents].sort(documentOrder),
    goodsAndServices: goods,
  };
  if (
    kind === 'patent' &&
    record.internationalPublicationNumber !== null &&
    record.internationalApplicationNumber === null
  )
    throw new RuleError(
      at('InternationalPublicationNumber'),
      'comes only with InternationalApplicationNumber',
    );
  checkDerived(tree, record, at);
  return {
    loaded: {
      ...record,
      parties: record.parties.map((p) => ({ role: p.role, clientId: p.clientId })),
      documents: record.documents.map((d) => ({
        ...d,
        storedSize: stored.get(d.documentIdentifier) ?? null,
      })),
      version: record.version,
      updatedAt: updated,
      markNature: register?.markNature ?? null,
      markType: register?.markType ?? null,
    },
    parties: record.parties,
    files,
    content: caseContent(tree, register),
    whole,
  };
}

/**
 * A case as its line (`line`): the published document (`tree`) and the register's part (`register`;
 * `files`: its stored documents' files).
 */
export function caseLine(
  record: CaseRecord,
  kept: { markNature: string | null; markType: string | null },
  files: Static<typeof DocumentFile>[],
) {
  const element = recordTreeSchema(record.kind).element;
  const register: CaseRegisterLine = {
    termDate: record.termDate,
    lastRenewalDueDate: record.lastRenewalDueDate,
    markNature: kept.markNature as CaseRegisterLine['markNature'],
    markType: kept.markType as CaseRegisterLine['markType'],
    version: record.version,
    documentFiles: files,
  };
  const tree = answered(record);
  return { tree, register, line: { record: RECORD_OF[record.kind], [element]: tree, register } };
}

export type DocumentFileLine = Static<typeof DocumentFile>;
