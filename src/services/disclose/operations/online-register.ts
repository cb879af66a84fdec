import type { ServiceContext } from '../../../gateway/service-context.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { FUND_NUMBER, parseVersion, versionId } from '../domain/records.ts';
import { type DocumentRow, documents } from '../store/documents.ts';
import {
  type FundRow,
  fundAt,
  fundsOfOffer,
  fundVersions,
  type HoldingRow,
  holdings,
} from '../store/funds.ts';
import {
  offersOfScheme,
  type ParticipantRow,
  participants,
  recordAt,
  type VersionRow,
  versionsOf,
} from '../store/register.ts';
import { type SummaryRow, search } from '../store/searches.ts';
import { SUBJECT, type Subject } from './common.ts';
import { pageDownloadHref } from './documents.ts';

/**
 * What the online register's pages show: an offer or scheme at a version with every version,
 * participant and document (an offer's funds at that version, a scheme's offers); a fund at a version of
 * its parent offer with its first holdings, documents and versions; the lists of offers and schemes.
 * The pages' refusals are their own: a number that cannot be one, or a record that is not there, is a
 * 404 in the page's words; a version it cannot read a RuleError naming `version`.
 */

/** Every item of a record's lists the page shows (versions, participants, documents, funds). */
const ALL = { limit: 500, offset: 0 };

/** The holdings a fund's page shows: the first of them. */
export const PAGE_HOLDINGS = 50;

/** The offers or schemes a list page shows: the first of them, in number order. */
export const LIST_LIMIT = 200;

/** The page's 404 for a number that cannot be one of its kind's. */
export const notARecordNumber = (subject: Subject, number: string): HttpError =>
  new HttpError(PLATFORM_ERRORS.notFound, `${number.slice(0, 40)} is not a ${subject} number.`);

/** The fund page's 404 for a number that is not a fund on the register. */
export const notAFund = (number: string): HttpError =>
  new HttpError(PLATFORM_ERRORS.notFound, `${number.slice(0, 40)} is not on the register.`);

/** A document of a page: its row and its signed address for the page's link. */
export type PageDocument = DocumentRow & { href: string };

interface Listed<Row> {
  total: number;
  rows: Row[];
}

export interface RecordPageInput {
  subject: Subject;
  number: string;
  /** A version identifier of the record (`OFR10001-v2`); absent: the current version. */
  version?: string | undefined;
}

export interface RecordPage {
  subject: Subject;
  number: string;
  /** The version asked for; undefined: the current one. */
  version: number | undefined;
  row: VersionRow;
  versions: { version: number; changedAt: Date; change: string }[];
  participants: Listed<ParticipantRow>;
  documents: Listed<PageDocument>;
  /** An offer's funds at the version shown. */
  funds?: Listed<FundRow>;
  /** A scheme's offers. */
  offers?: { offerNumber: string; name: string; status: string }[];
}

/** A record's documents with their signed addresses. */
async function pageDocuments(
  context: ServiceContext,
  kind: Subject | 'fund',
  number: string,
): Promise<Listed<PageDocument>> {
  const found = await documents(context.database.pool, { kind, number }, ALL);
  return {
    total: found.total,
    rows: found.rows.map((d) => ({ ...d, href: pageDownloadHref(context, d.documentRecId) })),
  };
}

/** An offer's or scheme's page: the record at the version asked for, and everything it lists. */
export async function readRecordPage(context: ServiceContext, input: RecordPageInput): Promise<RecordPage> {
  const pool = context.database.pool;
  const { subject, number } = input;
  if (!SUBJECT[subject].pattern.test(number)) throw notARecordNumber(subject, number);
  const version = parseVersion(input.version, number);
  const row = await recordAt(pool, subject, number, version);
  if (!row)
    throw new HttpError(
      PLATFORM_ERRORS.notFound,
      `${version ? versionId(number, version) : number} is not on the register.`,
    );
  const [versions, people, docs] = await Promise.all([
    versionsOf(pool, subject, number),
    participants(pool, subject, number, ALL),
    pageDocuments(context, subject, number),
  ]);
  const shown = { subject, number, version, row, versions, participants: people, documents: docs };
  if (subject === 'offer') return { ...shown, funds: await fundsOfOffer(pool, number, row.version, ALL) };
  return { ...shown, offers: await offersOfScheme(pool, number) };
}

export interface FundPageInput {
  fundNumber: string;
  /** A version identifier of the parent offer (`OFR10001-v2`): the fund as it was then. */
  version?: string | undefined;
}

export interface FundPage {
  fund: FundRow;
  holdings: Listed<HoldingRow>;
  documents: Listed<PageDocument>;
  versions: { version: number; offerVersion: number; changedAt: Date; change: string }[];
}

/** A fund's page: the fund at a version of its parent offer (or now), its first holdings and its lists. */
export async function readFundPage(context: ServiceContext, input: FundPageInput): Promise<FundPage> {
  const pool = context.database.pool;
  const number = input.fundNumber;
  const current = FUND_NUMBER.test(number) ? await fundAt(pool, number, undefined) : undefined;
  if (!current) throw notAFund(number);
  const version = parseVersion(input.version, current.offerNumber);
  const fund = version ? await fundAt(pool, number, version) : current;
  if (!fund)
    throw new HttpError(
      PLATFORM_ERRORS.notFound,
      `${number} did not exist at ${versionId(current.offerNumber, version!)}.`,
    );
  const [held, docs, versions] = await Promise.all([
    fund.holdingsVersion
      ? holdings(pool, number, fund.holdingsVersion, { limit: PAGE_HOLDINGS, offset: 0 })
      : Promise.resolve({ total: 0, rows: [] }),
    pageDocuments(context, 'fund', number),
    fundVersions(pool, number),
  ]);
  return { fund, holdings: held, documents: docs, versions };
}

/** The list page of offers or schemes: the first LIST_LIMIT, and how many there are. */
export function listRecordsPage(
  context: ServiceContext,
  input: { subject: Subject },
): Promise<Listed<SummaryRow>> {
  return search(context.database.pool, input.subject, {}, { limit: LIST_LIMIT, offset: 0 });
}
