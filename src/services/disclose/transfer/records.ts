import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { parseDate } from '../../../platform/calendar.ts';
import { type RecordProblem, schemaProblems } from '../../../platform/transfer/check.ts';
import {
  documentFileName,
  documentFileProblem,
  documentsFolderOf,
  sha256Hex,
} from '../../../platform/transfer/documents.ts';
import { accepted, type Checked, refused } from '../../../platform/transfer/register.ts';
import { fundUpdateProblems } from '../domain/fund-update.ts';
import { holdingsProblems } from '../domain/holdings.ts';
import {
  DOCUMENT_REC_ID,
  FUND_NUMBER,
  NOTICE_DOCUMENTS,
  OFFER_NUMBER,
  SCHEME_NUMBER,
  versionId,
} from '../domain/records.ts';
import { MAX_DOCUMENT_BYTES } from '../store/document-files.ts';
import type { HoldingRow } from '../store/funds.ts';
import type {
  ActivityRow,
  DocumentFileRow,
  FilingRow,
  FundState,
  FundVersionRow,
  NoticeRow,
  ParticipantRow,
  RecordKind,
  RecordState,
} from '../store/transfer.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Company = Type.Object(
  { name: Type.String(), nzbn: Nullable(Type.String()) },
  { additionalProperties: false },
);
const closed = { additionalProperties: false } as const;

const Participant = Type.Object(
  { role: Type.String(), name: Type.String(), nzbn: Nullable(Type.String()) },
  closed,
);
const NoticeLine = Type.Object(
  {
    noticeRecId: Type.String(),
    noticeType: Type.String(),
    noticeDate: Type.String(),
    summary: Type.String(),
    recordedDate: Type.String(),
  },
  closed,
);
const DocumentLine = Type.Object(
  {
    documentRecId: Type.String(),
    documentType: Type.String(),
    title: Type.String(),
    fileName: Type.String(),
    contentType: Type.String(),
    sizeBytes: Type.Integer(),
    addedDate: Type.String(),
    noticeRecId: Nullable(Type.String()),
    file: Type.String(),
    sha256: Type.String(),
  },
  closed,
);
const FilingLine = Type.Object(
  {
    filedDate: Type.String(),
    filingType: Type.String(),
    description: Type.String(),
    fundNumber: Nullable(Type.String()),
    late: Type.Boolean(),
    filedBy: Nullable(Type.String()),
  },
  closed,
);
const versionInfo = { versionId: Type.String(), versionDate: Type.String(), change: Type.String() };

const SchemeVersion = Type.Object(
  {
    ...versionInfo,
    name: Type.String(),
    status: Type.String(),
    schemeType: Type.String(),
    manager: Company,
    supervisor: Nullable(Company),
  },
  closed,
);
const OfferVersion = Type.Object(
  {
    ...versionInfo,
    name: Type.String(),
    status: Type.String(),
    productType: Type.String(),
    schemeNumber: Nullable(Type.String()),
    issuer: Company,
    openDate: Nullable(Type.String()),
    closeDate: Nullable(Type.String()),
  },
  closed,
);
const recordParts = {
  lastChangedDate: Type.String(),
  participants: Type.Array(Participant),
  notices: Type.Array(NoticeLine),
  documents: Type.Array(DocumentLine),
  filingHistory: Type.Array(FilingLine),
};
export const SchemeLine = Type.Object(
  {
    record: Type.Literal('scheme'),
    schemeNumber: Type.String(),
    versions: Type.Array(SchemeVersion, { minItems: 1 }),
    ...recordParts,
  },
  closed,
);
export const OfferLine = Type.Object(
  {
    record: Type.Literal('offer'),
    offerNumber: Type.String(),
    versions: Type.Array(OfferVersion, { minItems: 1 }),
    ...recordParts,
  },
  closed,
);

const Amount = Type.Object({ period: Type.String(), percentage: Type.Number() }, closed);
const FundVersion = Type.Object(
  {
    ...versionInfo,
    offerVersionId: Type.String(),
    name: Type.String(),
    fundType: Type.String(),
    unitPrice: Nullable(Type.Object({ price: Type.Number(), currency: Type.String() }, closed)),
    returns: Type.Array(Amount),
    fees: Type.Array(Type.Object({ feeType: Type.String(), percentage: Type.Number() }, closed)),
    assetAllocation: Type.Array(
      Type.Object(
        { assetType: Type.String(), actualPercentage: Type.Number(), targetPercentage: Type.Number() },
        closed,
      ),
    ),
    fundSize: Nullable(Type.Number()),
    numberOfInvestors: Nullable(Type.Number()),
    riskIndicator: Nullable(Type.Number()),
    holdingsPeriodEndDate: Nullable(Type.String()),
    holdingsVersionId: Nullable(Type.String()),
  },
  closed,
);
const ActivityLine = Type.Object(
  {
    activityType: Type.Union([Type.Literal('FUND_UPDATE'), Type.Literal('FULL_PORTFOLIO_HOLDINGS')]),
    periodEndDate: Type.String(),
    dueDate: Type.String(),
    filedDate: Nullable(Type.String()),
    late: Nullable(Type.Boolean()),
    versionId: Nullable(Type.String()),
    filedBy: Nullable(Type.String()),
  },
  closed,
);
export const FundLine = Type.Object(
  {
    record: Type.Literal('fund'),
    fundNumber: Type.String(),
    offerNumber: Type.String(),
    registeredDate: Type.String(),
    fphRequired: Type.Boolean(),
    lastChangedDate: Type.String(),
    versions: Type.Array(FundVersion, { minItems: 1 }),
    complianceActivities: Type.Array(ActivityLine),
    documents: Type.Array(DocumentLine),
  },
  closed,
);
const HoldingLine = Type.Object(
  {
    assetName: Type.String(),
    assetType: Type.String(),
    isin: Nullable(Type.String()),
    value: Type.Number(),
    percentageOfFund: Type.Number(),
    currency: Type.String(),
  },
  closed,
);
export const FundHoldingsLine = Type.Object(
  {
    record: Type.Literal('fundHoldings'),
    fundNumber: Type.String(),
    versionId: Type.String(),
    holdings: Type.Array(HoldingLine),
  },
  closed,
);

export type SchemeLine = Static<typeof SchemeLine>;
export type OfferLine = Static<typeof OfferLine>;
export type RecordLine = SchemeLine | OfferLine;
export type FundLine = Static<typeof FundLine>;
export type FundHoldingsLine = Static<typeof FundHoldingsLine>;
export type DocumentLine = Static<typeof DocumentLine>;
type FundVersionLine = Static<typeof FundVersion>;

/** A checked line: the line itself (what comparisons are made on) and its parts as the store takes them. */
export type DiscloseRecord =
  | { kind: RecordKind; number: string; line: RecordLine }
  | { kind: 'fund'; number: string; line: FundLine }
  | { kind: 'fundHoldings'; number: string; version: number; line: FundHoldingsLine };

const KINDS = {
  scheme: SchemeLine,
  offer: OfferLine,
  fund: FundLine,
  fundHoldings: FundHoldingsLine,
} as const;

/** The document types a record of each kind has (the `{document type}` of the download paths). */
export const DOCUMENT_TYPES: Readonly<Record<RecordKind | 'fund', readonly string[]>> = {
  scheme: ['governing-documents', 'manager-and-supervisor-consent-documents', NOTICE_DOCUMENTS],
  offer: [
    'product-disclosure-statements',
    'register-entries',
    'statements-of-investment-policy-and-objectives',
    'other-material-information',
    'financial-statements',
    NOTICE_DOCUMENTS,
  ],
  fund: ['fund-update-document'],
};

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;
const NZBN = /^94[0-9]{11}$/;
const CONTENT_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i;
const SHA256 = /^[0-9a-f]{64}$/;
/** At most this many problems are listed for one line (the framework's own bound for a record). */
const PER_LINE = 5;

/** The file name of a document's bytes beside the NDJSON: its id and the extension of its file name. */
export const documentFile = (documentRecId: string, fileName: string): string =>
  documentFileName(documentRecId, fileName);

export { documentsFolderOf, sha256Hex as sha256 };

class Problems {
  readonly list: RecordProblem[] = [];
  add(field: string, rule: string) {
    if (this.list.length < PER_LINE) this.list.push({ field, rule });
  }
  text(value: string, field: string, max = 500) {
    if (value.trim() === '') this.add(field, 'is required');
    else if (value.length > max) this.add(field, `must be at most ${max} characters`);
  }
  instant(value: string, field: string): number {
    const time = ISO.test(value) ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(time))
      this.add(field, 'must be an ISO 8601 date and time, e.g. 2024-03-01T09:30:00.000Z');
    return time;
  }
  date(value: string | null, field: string) {
    if (value !== null && (!/^\d{4}-\d{2}-\d{2}$/.test(value) || !parseDate(value)))
      this.add(field, 'must be a date, YYYY-MM-DD');
  }
  company(value: { name: string; nzbn: string | null }, field: string) {
    this.text(value.name, `${field}.name`, 200);
    this.nzbn(value.nzbn, `${field}.nzbn`);
  }
  nzbn(value: string | null, field: string) {
    if (value !== null && !NZBN.test(value)) this.add(field, 'must be an NZBN: 13 digits starting 94');
  }
}

/** The version number a version identifier of the record names, or undefined. */
export function versionOf(id: string, number: string): number | undefined {
  const match = /^(.+)-v([1-9][0-9]{0,8})$/.exec(id);
  return match && match[1] === number ? Number(match[2]) : undefined;
}

function versionsChecked(
  versions: readonly { versionId: string; versionDate: string; change: string }[],
  number: string,
  problems: Problems,
): void {
  // Numbered in order; their dates are the register's (a late filing's version may be dated before
  // an earlier one's), so they are not compared.
  versions.forEach((v, i) => {
    const at = `versions.${i}`;
    if (v.versionId !== versionId(number, i + 1))
      problems.add(
        `${at}.versionId`,
        `must be ${versionId(number, i + 1)}: versions are numbered from 1 in order`,
      );
    problems.instant(v.versionDate, `${at}.versionDate`);
    problems.text(v.change, `${at}.change`, 200);
  });
}

function documentsChecked(
  documents: readonly DocumentLine[],
  kind: RecordKind | 'fund',
  notices: ReadonlySet<string>,
  folder: string,
  problems: Problems,
): void {
  const seen = new Set<string>();
  documents.forEach((d, i) => {
    const at = `documents.${i}`;
    if (!DOCUMENT_REC_ID.test(d.documentRecId))
      problems.add(`${at}.documentRecId`, 'must be DOC and 6 to 9 digits');
    if (seen.has(d.documentRecId)) problems.add(`${at}.documentRecId`, 'repeats an earlier document');
    seen.add(d.documentRecId);
    if (!DOCUMENT_TYPES[kind].includes(d.documentType))
      problems.add(`${at}.documentType`, `must be one of ${DOCUMENT_TYPES[kind].join(', ')}`);
    if ((d.documentType === NOTICE_DOCUMENTS) !== (d.noticeRecId !== null))
      problems.add(`${at}.noticeRecId`, `is given for ${NOTICE_DOCUMENTS}, and only for them`);
    else if (d.noticeRecId !== null && !notices.has(d.noticeRecId))
      problems.add(`${at}.noticeRecId`, 'must be one of the record’s notices');
    problems.text(d.title, `${at}.title`, 500);
    problems.text(d.fileName, `${at}.fileName`, 200);
    if (!CONTENT_TYPE.test(d.contentType))
      problems.add(`${at}.contentType`, 'must be a media type, e.g. application/pdf');
    if (d.sizeBytes < 1 || d.sizeBytes > MAX_DOCUMENT_BYTES)
      problems.add(`${at}.sizeBytes`, 'must be from 1 to 20971520 (20 MB)');
    problems.instant(d.addedDate, `${at}.addedDate`);
    if (!SHA256.test(d.sha256)) problems.add(`${at}.sha256`, 'must be 64 lower-case hexadecimal digits');
    const expected = documentFile(d.documentRecId, d.fileName);
    if (d.file !== expected) {
      problems.add(`${at}.file`, `must be ${expected}: the document’s id and its file name’s extension`);
      return;
    }
    if (!DOCUMENT_REC_ID.test(d.documentRecId) || !SHA256.test(d.sha256)) return;
    const problem = documentFileProblem(folder, d.file, d.sizeBytes, d.sha256, 'sizeBytes');
    if (problem) problems.add(`${at}.file`, problem);
  });
}

function partsChecked(line: RecordLine, kind: RecordKind, folder: string, problems: Problems): void {
  const last = Date.parse(line.versions.at(-1)!.versionDate);
  if (problems.instant(line.lastChangedDate, 'lastChangedDate') < last)
    problems.add('lastChangedDate', 'must not be before the last version’s versionDate');
  line.participants.forEach((p, i) => {
    problems.text(p.role, `participants.${i}.role`, 100);
    problems.text(p.name, `participants.${i}.name`, 200);
    problems.nzbn(p.nzbn, `participants.${i}.nzbn`);
  });
  const notices = new Set<string>();
  line.notices.forEach((n, i) => {
    const at = `notices.${i}`;
    if (!DOCUMENT_REC_ID.test(n.noticeRecId))
      problems.add(`${at}.noticeRecId`, 'must be DOC and 6 to 9 digits');
    if (notices.has(n.noticeRecId)) problems.add(`${at}.noticeRecId`, 'repeats an earlier notice');
    notices.add(n.noticeRecId);
    problems.text(n.noticeType, `${at}.noticeType`, 100);
    problems.date(n.noticeDate, `${at}.noticeDate`);
    if (n.summary.length > 2000) problems.add(`${at}.summary`, 'must be at most 2000 characters');
    problems.instant(n.recordedDate, `${at}.recordedDate`);
  });
  for (const [i, d] of line.documents.entries())
    if (notices.has(d.documentRecId)) problems.add(`documents.${i}.documentRecId`, 'is a notice’s id');
  documentsChecked(line.documents, kind, notices, folder, problems);
  line.filingHistory.forEach((f, i) => {
    const at = `filingHistory.${i}`;
    problems.instant(f.filedDate, `${at}.filedDate`);
    problems.text(f.filingType, `${at}.filingType`, 100);
    problems.text(f.description, `${at}.description`, 500);
    if (f.fundNumber !== null && !FUND_NUMBER.test(f.fundNumber))
      problems.add(`${at}.fundNumber`, 'must be FND and 5 to 9 digits');
    if (f.filedBy !== null) problems.text(f.filedBy, `${at}.filedBy`, 100);
  });
}

function schemeChecked(line: SchemeLine, folder: string, problems: Problems): void {
  if (!SCHEME_NUMBER.test(line.schemeNumber)) problems.add('schemeNumber', 'must be SCH and 5 to 9 digits');
  versionsChecked(line.versions, line.schemeNumber, problems);
  line.versions.forEach((v, i) => {
    const at = `versions.${i}`;
    problems.text(v.name, `${at}.name`, 200);
    problems.text(v.status, `${at}.status`, 100);
    problems.text(v.schemeType, `${at}.schemeType`, 100);
    problems.company(v.manager, `${at}.manager`);
    if (v.supervisor) problems.company(v.supervisor, `${at}.supervisor`);
  });
  partsChecked(line, 'scheme', folder, problems);
}

function offerChecked(line: OfferLine, folder: string, problems: Problems): void {
  if (!OFFER_NUMBER.test(line.offerNumber)) problems.add('offerNumber', 'must be OFR and 5 to 9 digits');
  versionsChecked(line.versions, line.offerNumber, problems);
  line.versions.forEach((v, i) => {
    const at = `versions.${i}`;
    problems.text(v.name, `${at}.name`, 200);
    problems.text(v.status, `${at}.status`, 100);
    problems.text(v.productType, `${at}.productType`, 100);
    if (v.schemeNumber !== null && !SCHEME_NUMBER.test(v.schemeNumber))
      problems.add(`${at}.schemeNumber`, 'must be SCH and 5 to 9 digits');
    problems.company(v.issuer, `${at}.issuer`);
    problems.date(v.openDate, `${at}.openDate`);
    problems.date(v.closeDate, `${at}.closeDate`);
    if (v.openDate && v.closeDate && v.closeDate < v.openDate)
      problems.add(`${at}.closeDate`, 'must not be before openDate');
  });
  partsChecked(line, 'offer', folder, problems);
}

/** A fund version's figures, with the fund update's rules when it reports them (a unit price). */
function fundFiguresChecked(v: FundVersionLine, at: string, problems: Problems): void {
  if (v.unitPrice === null) {
    for (const field of ['returns', 'fees', 'assetAllocation'] as const)
      if (v[field].length > 0) problems.add(`${at}.${field}`, 'must be empty without a unitPrice');
    for (const field of ['fundSize', 'numberOfInvestors', 'riskIndicator'] as const)
      if (v[field] !== null) problems.add(`${at}.${field}`, 'must be null without a unitPrice');
    return;
  }
  const { versionId: _, versionDate: __, change: ___, ...figures } = v;
  for (const p of fundUpdateProblems({ ...figures, periodEndDate: '2000-03-31' }))
    problems.add(`${at}.${p.field}`, p.message);
}

function fundChecked(line: FundLine, folder: string, problems: Problems): void {
  if (!FUND_NUMBER.test(line.fundNumber)) problems.add('fundNumber', 'must be FND and 5 to 9 digits');
  if (!OFFER_NUMBER.test(line.offerNumber)) problems.add('offerNumber', 'must be OFR and 5 to 9 digits');
  problems.date(line.registeredDate, 'registeredDate');
  versionsChecked(line.versions, line.fundNumber, problems);
  let offerVersion = 0;
  line.versions.forEach((v, i) => {
    const at = `versions.${i}`;
    const of = versionOf(v.offerVersionId, line.offerNumber);
    if (of === undefined)
      problems.add(
        `${at}.offerVersionId`,
        `must be a version of ${line.offerNumber}, e.g. ${line.offerNumber}-v1`,
      );
    else if (of < offerVersion)
      problems.add(`${at}.offerVersionId`, 'must not be before the previous version’s');
    else offerVersion = of;
    problems.text(v.name, `${at}.name`, 200);
    problems.text(v.fundType, `${at}.fundType`, 100);
    fundFiguresChecked(v, at, problems);
    problems.date(v.holdingsPeriodEndDate, `${at}.holdingsPeriodEndDate`);
    if ((v.holdingsPeriodEndDate === null) !== (v.holdingsVersionId === null))
      problems.add(`${at}.holdingsVersionId`, 'is given with holdingsPeriodEndDate, and only with it');
    else if (v.holdingsVersionId !== null) {
      const held = versionOf(v.holdingsVersionId, line.fundNumber);
      if (held === undefined || held > line.versions.length)
        problems.add(`${at}.holdingsVersionId`, 'must be one of the fund’s versions');
    }
  });
  if (
    problems.instant(line.lastChangedDate, 'lastChangedDate') < Date.parse(line.versions.at(-1)!.versionDate)
  )
    problems.add('lastChangedDate', 'must not be before the last version’s versionDate');
  const periods = new Set<string>();
  line.complianceActivities.forEach((a, i) => {
    const at = `complianceActivities.${i}`;
    problems.date(a.periodEndDate, `${at}.periodEndDate`);
    problems.date(a.dueDate, `${at}.dueDate`);
    if (a.dueDate < a.periodEndDate) problems.add(`${at}.dueDate`, 'must not be before periodEndDate');
    const key = `${a.activityType} ${a.periodEndDate}`;
    if (periods.has(key))
      problems.add(`${at}.periodEndDate`, 'repeats an earlier activity of the type and period');
    periods.add(key);
    const filed = a.filedDate !== null;
    if (filed) problems.instant(a.filedDate!, `${at}.filedDate`);
    if ((a.late !== null) !== filed) problems.add(`${at}.late`, 'is given once filed, and only then');
    if ((a.versionId !== null) !== filed)
      problems.add(`${at}.versionId`, 'is given once filed, and only then');
    else if (a.versionId !== null) {
      const version = versionOf(a.versionId, line.fundNumber);
      if (version === undefined || version > line.versions.length)
        problems.add(`${at}.versionId`, 'must be one of the fund’s versions');
    }
    if (a.filedBy !== null) problems.text(a.filedBy, `${at}.filedBy`, 100);
  });
  documentsChecked(line.documents, 'fund', new Set(), folder, problems);
}

function holdingsChecked(line: FundHoldingsLine, problems: Problems): number | undefined {
  if (!FUND_NUMBER.test(line.fundNumber)) problems.add('fundNumber', 'must be FND and 5 to 9 digits');
  const version = versionOf(line.versionId, line.fundNumber);
  if (version === undefined)
    problems.add('versionId', `must be a version of ${line.fundNumber}, e.g. ${line.fundNumber}-v2`);
  const given = line.holdings.map(({ isin, ...h }) => (isin === null ? h : { ...h, isin }));
  for (const p of holdingsProblems(given)) problems.add(p.field, p.message);
  // The register keeps percentages to 4 places: more would not read back as given.
  line.holdings.forEach((h, i) => {
    if (Math.abs(Math.round(h.percentageOfFund * 1e4) - h.percentageOfFund * 1e4) > 1e-6)
      problems.add(`holdings.${i}.percentageOfFund`, 'must have at most 4 decimal places');
  });
  return version;
}

/** One line's record, checked with the API's rules; documents' files looked for in `folder`. */
export function checkRecord(value: unknown, folder: string): Checked<DiscloseRecord> {
  const kind = (value as { record?: unknown } | null)?.record;
  if (typeof kind !== 'string' || !(kind in KINDS))
    return refused([{ field: 'record', rule: `must be one of ${Object.keys(KINDS).join(', ')}` }]);
  const schemaProblemList = schemaProblems(KINDS[kind as keyof typeof KINDS], value);
  if (schemaProblemList.length > 0) return refused(schemaProblemList);
  const problems = new Problems();
  let record: DiscloseRecord;
  if (kind === 'scheme') {
    const line = value as SchemeLine;
    schemeChecked(line, folder, problems);
    record = { kind, number: line.schemeNumber, line };
  } else if (kind === 'offer') {
    const line = value as OfferLine;
    offerChecked(line, folder, problems);
    record = { kind, number: line.offerNumber, line };
  } else if (kind === 'fund') {
    const line = value as FundLine;
    fundChecked(line, folder, problems);
    record = { kind, number: line.fundNumber, line };
  } else {
    const line = value as FundHoldingsLine;
    const version = holdingsChecked(line, problems);
    record = { kind: 'fundHoldings', number: line.fundNumber, version: version ?? 0, line };
  }
  return problems.list.length > 0 ? refused(problems.list) : accepted(record);
}

// The export's lines, from what the register holds, in the order of the fields above.

const iso = (date: Date) => date.toISOString();
const company = (value: unknown): { name: string; nzbn: string | null } => {
  const c = (value ?? {}) as { name?: unknown; nzbn?: unknown };
  return { name: String(c.name ?? ''), nzbn: typeof c.nzbn === 'string' ? c.nzbn : null };
};
const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export const participantLine = (p: ParticipantRow) => ({ role: p.role, name: p.name, nzbn: p.nzbn });
export const noticeLine = (n: NoticeRow) => ({
  noticeRecId: n.noticeRecId,
  noticeType: n.noticeType,
  noticeDate: n.noticeDate,
  summary: n.summary,
  recordedDate: iso(n.recordedAt),
});
export const documentLine = (d: DocumentFileRow, digest: string): DocumentLine => ({
  documentRecId: d.documentRecId,
  documentType: d.documentType,
  title: d.title,
  fileName: d.fileName,
  contentType: d.contentType,
  sizeBytes: d.sizeBytes,
  addedDate: iso(d.addedAt),
  noticeRecId: d.noticeRecId,
  file: documentFile(d.documentRecId, d.fileName),
  sha256: digest,
});
export const filingLine = (f: FilingRow) => ({
  filedDate: iso(f.filedAt),
  filingType: f.filingType,
  description: f.description,
  fundNumber: f.fundNumber,
  late: f.late,
  filedBy: f.filedBy,
});

/** A scheme's or an offer's version as its line has it (the API's answer at that version, less links). */
export function recordVersionLine(
  kind: RecordKind,
  number: string,
  v: { version: number; changedAt: Date; change: string; document: Record<string, unknown> },
) {
  const d = v.document;
  const info = { versionId: versionId(number, v.version), versionDate: iso(v.changedAt), change: v.change };
  if (kind === 'scheme') {
    return {
      ...info,
      name: String(d.name ?? ''),
      status: String(d.status ?? ''),
      schemeType: String(d.schemeType ?? ''),
      manager: company(d.manager),
      supervisor: d.supervisor ? company(d.supervisor) : null,
    };
  }
  return {
    ...info,
    name: String(d.name ?? ''),
    status: String(d.status ?? ''),
    productType: String(d.productType ?? ''),
    schemeNumber: textOrNull(d.schemeNumber),
    issuer: company(d.issuer),
    openDate: textOrNull(d.openDate),
    closeDate: textOrNull(d.closeDate),
  };
}

/** The stored document of a version line (the API answer's own fields). */
export function recordDocument(
  kind: RecordKind,
  number: string,
  v: SchemeLine['versions'][number] | OfferLine['versions'][number],
): Record<string, unknown> {
  const { versionId: _, versionDate: __, change: ___, ...fields } = v;
  return kind === 'scheme' ? { schemeNumber: number, ...fields } : { offerNumber: number, ...fields };
}

/** A scheme's or an offer's line; `digests` gives each document's SHA-256. */
export function recordLine(
  kind: RecordKind,
  state: RecordState,
  digests: ReadonlyMap<string, string>,
): RecordLine {
  return {
    record: kind,
    ...(kind === 'scheme' ? { schemeNumber: state.number } : { offerNumber: state.number }),
    versions: state.versions.map((v) => recordVersionLine(kind, state.number, v)),
    lastChangedDate: iso(state.lastChanged),
    participants: state.participants.map(participantLine),
    notices: state.notices.map(noticeLine),
    documents: state.documents.map((d) => documentLine(d, digests.get(d.documentRecId) ?? '')),
    filingHistory: state.filings.map(filingLine),
  } as RecordLine;
}

const figure = (value: unknown): number | null => (typeof value === 'number' ? value : null);

export function fundVersionLine(fundNumber: string, offerNumber: string, v: FundVersionRow): FundVersionLine {
  const d = v.document;
  return {
    versionId: versionId(fundNumber, v.version),
    versionDate: iso(v.changedAt),
    change: v.change,
    offerVersionId: versionId(offerNumber, v.offerVersion),
    name: String(d.name ?? ''),
    fundType: String(d.fundType ?? ''),
    unitPrice: (d.unitPrice as FundVersionLine['unitPrice'] | undefined) ?? null,
    returns: (d.returns as FundVersionLine['returns'] | undefined) ?? [],
    fees: (d.fees as FundVersionLine['fees'] | undefined) ?? [],
    assetAllocation: (d.assetAllocation as FundVersionLine['assetAllocation'] | undefined) ?? [],
    fundSize: figure(d.fundSize),
    numberOfInvestors: figure(d.numberOfInvestors),
    riskIndicator: figure(d.riskIndicator),
    holdingsPeriodEndDate: v.holdingsPeriodEnd,
    holdingsVersionId: v.holdingsVersion === null ? null : versionId(fundNumber, v.holdingsVersion),
  };
}

/** The stored document of a fund version line. */
export function fundDocument(fundNumber: string, v: FundVersionLine): Record<string, unknown> {
  return {
    fundNumber,
    name: v.name,
    fundType: v.fundType,
    unitPrice: v.unitPrice,
    returns: v.returns,
    fees: v.fees,
    assetAllocation: v.assetAllocation,
    fundSize: v.fundSize,
    numberOfInvestors: v.numberOfInvestors,
    riskIndicator: v.riskIndicator,
  };
}

export const activityLine = (fundNumber: string, a: ActivityRow) => ({
  activityType: a.kind as 'FUND_UPDATE' | 'FULL_PORTFOLIO_HOLDINGS',
  periodEndDate: a.periodEnd,
  dueDate: a.dueDate,
  filedDate: a.filedAt ? iso(a.filedAt) : null,
  late: a.late,
  versionId: a.fundVersion === null ? null : versionId(fundNumber, a.fundVersion),
  filedBy: a.filedBy,
});

export function fundLine(state: FundState, digests: ReadonlyMap<string, string>): FundLine {
  return {
    record: 'fund',
    fundNumber: state.fundNumber,
    offerNumber: state.offerNumber,
    registeredDate: state.registeredOn,
    fphRequired: state.fphRequired,
    lastChangedDate: iso(state.lastChanged),
    versions: state.versions.map((v) => fundVersionLine(state.fundNumber, state.offerNumber, v)),
    complianceActivities: state.activities.map((a) => activityLine(state.fundNumber, a)),
    documents: state.documents.map((d) => documentLine(d, digests.get(d.documentRecId) ?? '')),
  };
}

export const fundHoldingsLine = (
  fundNumber: string,
  version: number,
  holdings: readonly HoldingRow[],
): FundHoldingsLine => ({
  record: 'fundHoldings',
  fundNumber,
  versionId: versionId(fundNumber, version),
  holdings: holdings.map((h) => ({ ...h })),
});
