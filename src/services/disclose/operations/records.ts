import type { ServiceContext } from '../../../gateway/service-context.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { cut, type Link, type NOTICE_DOCUMENTS, parseVersion, versionId } from '../domain/records.ts';
import type { AnswerCache, RenderedAnswer } from '../store/answer-cache.ts';
import { documents } from '../store/documents.ts';
import { fundsOfOffer } from '../store/funds.ts';
import {
  type DetailRow,
  detail,
  filingHistory,
  participants,
  recordAt,
  versionsOf,
} from '../store/register.ts';
import { latestChange, search } from '../store/searches.ts';
import {
  apiBase,
  iso,
  notFound,
  numberParam,
  type ReadResult,
  registerUrl,
  SUBJECT,
  type Subject,
} from './common.ts';
import { documentItem } from './documents.ts';
import { fundBody } from './funds.ts';
import { requireNotice } from './notices.ts';
import { summary } from './searches.ts';
import { existingRecord, later, type SubResourceInput, sliceOf, subResourcePage } from './sub-resources.ts';

/**
 * Offers and schemes: the record at a version, and its paginated sub-resources. Every read answers
 * Last-Modified (the record's last change, or the version's date).
 */

export interface RecordInput {
  subject: Subject;
  number: string;
  /** A version identifier of the record (`OFR10001-v2`); absent: the current version. */
  version?: string | undefined;
}

/**
 * An offer's or scheme's detail answer, rendered: its arrays cut at 10 with links to all, its links, the
 * online register's URL. Kept in `answers` (store/answer-cache.ts) while it is current, when given one.
 */
export async function readRecord(
  context: ServiceContext,
  input: RecordInput,
  answers?: AnswerCache,
): Promise<RenderedAnswer> {
  const { subject } = input;
  const { pattern, what, param } = SUBJECT[subject];
  const number = numberParam(input.number, pattern, param, what);
  const version = parseVersion(input.version, number);
  // The answer depends on the record (at the version) and, through registerUrl, on the public base
  // URL (settled when the server listens, unless RSG_PUBLIC_URL names it).
  const key = `${subject}|${number}|${version ?? ''}|${context.absoluteUrl('')}`;
  const kept = answers?.get(key);
  if (kept) return kept;
  const mark = answers?.mark();
  const row = await detail(context.database.pool, subject, number, version);
  if (!row)
    throw notFound(
      version ? `Version ${versionId(number, version)} of ${number}` : `${what} ${number}`,
      version ? 'version' : param,
    );
  const text = JSON.stringify(recordBody(context, subject, number, version, row));
  const rendered = { text, etag: strongEtag(text), lastModified: version ? row.changedAt : row.lastChanged };
  return answers && mark !== undefined ? answers.keep(key, rendered, mark) : rendered;
}

/** A detail answer's content from its row. */
function recordBody(
  context: ServiceContext,
  subject: Subject,
  number: string,
  version: number | undefined,
  row: DetailRow,
) {
  const path = `${apiBase(context)}/${subject}/${number}`;
  const at = version ? `?version=${versionId(number, version)}` : '';
  const versionCut = cut(row.versions, row.versionCount, 'versions', `${path}/versions`);
  const participantCut = cut(row.participants, row.participantCount, 'participants', `${path}/participants`);
  const documentCut = cut(row.documents, row.documentCount, 'documents', `${path}/documents`);
  const links: Link[] = [
    { rel: 'self', href: `${path}${at}` },
    { rel: 'current', href: path },
    { rel: 'filing-history', href: `${path}/filing-history` },
  ];
  if (subject === 'offer') {
    links.push({ rel: 'funds', href: `${path}/funds${at}`, count: row.fundCount });
    const scheme = row.document.schemeNumber;
    if (typeof scheme === 'string')
      links.push({ rel: 'scheme', href: `${apiBase(context)}/scheme/${scheme}` });
  } else {
    links.push(
      { rel: 'offers', href: `${path}/offers`, count: row.offerCount },
      { rel: 'governing-documents', href: `${path}/governing-documents` },
      {
        rel: 'manager-and-supervisor-consent-documents',
        href: `${path}/manager-and-supervisor-consent-documents`,
      },
    );
  }
  links.push(versionCut.link, participantCut.link, documentCut.link, {
    rel: 'fma-notices',
    href: `${path}/fma-notices`,
    count: row.noticeCount,
  });
  return {
    ...row.document,
    versionId: versionId(number, row.version),
    versionDate: iso(row.changedAt),
    currentVersionId: versionId(number, row.currentVersion),
    versions: versionCut.items.map((v) => ({
      versionId: versionId(number, v.version),
      versionDate: iso(v.changedAt),
      change: v.change,
    })),
    participants: participantCut.items,
    documents: documentCut.items.map((d) => documentItem(context, { ...d, addedAt: new Date(d.addedAt) })),
    links,
    registerUrl: registerUrl(context, `/${subject}/${number}${at}`),
  };
}

/** Every version of the record, newest first. */
export async function listVersions(context: ServiceContext, input: SubResourceInput): Promise<ReadResult> {
  const { number, row } = await existingRecord(context, input.subject, input.number);
  const all = await versionsOf(context.database.pool, input.subject, number);
  const { offset, limit } = sliceOf(input.page);
  const rows = all.slice(offset, offset + limit).map((v) => ({
    versionId: versionId(number, v.version),
    versionDate: iso(v.changedAt),
    change: v.change,
  }));
  return subResourcePage(
    context,
    { ...input, number },
    'versions',
    { total: all.length, rows },
    row.lastChanged,
  );
}

/** The record's filing history, newest first. */
export async function listFilingHistory(
  context: ServiceContext,
  input: SubResourceInput,
): Promise<ReadResult> {
  const { number, row } = await existingRecord(context, input.subject, input.number);
  const found = await filingHistory(context.database.pool, input.subject, number, sliceOf(input.page));
  const rows = found.rows.map((r) => ({
    filedDate: iso(r.filedAt),
    filingType: r.filingType,
    description: r.description,
    fundNumber: r.fundNumber,
    late: r.late,
  }));
  return subResourcePage(
    context,
    { ...input, number },
    'filing-history',
    { total: found.total, rows },
    row.lastChanged,
  );
}

/** The record's participants. */
export async function listParticipants(
  context: ServiceContext,
  input: SubResourceInput,
): Promise<ReadResult> {
  const { number, row } = await existingRecord(context, input.subject, input.number);
  const found = await participants(context.database.pool, input.subject, number, sliceOf(input.page));
  return subResourcePage(context, { ...input, number }, 'participants', found, row.lastChanged);
}

/** The documents lists a record has: every document, or those of one type. */
export type DocumentList =
  | 'documents'
  | 'governing-documents'
  | 'manager-and-supervisor-consent-documents'
  | typeof NOTICE_DOCUMENTS;

export interface DocumentListInput extends SubResourceInput {
  list: DocumentList;
  /** The regulator's notice (`financial-markets-authority-notice-documents` only). */
  notice?: string | undefined;
}

/** The record's documents of a list, newest first (a notice the record does not have: 404 naming it). */
export async function listDocuments(context: ServiceContext, input: DocumentListInput): Promise<ReadResult> {
  const { number, row } = await existingRecord(context, input.subject, input.number);
  const { notice, list } = input;
  const ofNotice =
    notice !== undefined ? await requireNotice(context, input.subject, number, notice) : undefined;
  const found = await documents(
    context.database.pool,
    {
      kind: input.subject,
      number,
      ...(list !== 'documents' ? { type: list } : {}),
      ...(notice ? { notice } : {}),
    },
    sliceOf(input.page),
  );
  const suffix = notice !== undefined ? `fma-notice/${notice}/${list}` : list;
  const rows = found.rows.map((d) => documentItem(context, d));
  return subResourcePage(
    context,
    { ...input, number },
    suffix,
    { total: found.total, rows },
    later(row.lastChanged, ofNotice?.lastChanged),
  );
}

/** The offer's funds, as they were at an offer version (`version`) or now. */
export async function listFundsOfOffer(
  context: ServiceContext,
  input: Omit<SubResourceInput, 'subject'> & { version?: string | undefined },
): Promise<ReadResult> {
  const pool = context.database.pool;
  const { number, row } = await existingRecord(context, 'offer', input.number);
  const version = parseVersion(input.version, number);
  if (version !== undefined && !(await recordAt(pool, 'offer', number, version))) {
    throw notFound(`Version ${versionId(number, version)} of ${number}`, 'version');
  }
  const found = await fundsOfOffer(pool, number, version, sliceOf(input.page));
  const rows = await Promise.all(found.rows.map((f) => fundBody(context, f, version)));
  return subResourcePage(
    context,
    { ...input, subject: 'offer', number },
    'funds',
    { total: found.total, rows },
    row.lastChanged,
  );
}

/**
 * The scheme's offers (ours), in number order, as the searches list them; Last-Modified: the scheme's or
 * one of its offers' latest change.
 */
export async function listOffersOfScheme(
  context: ServiceContext,
  input: Omit<SubResourceInput, 'subject'>,
): Promise<ReadResult> {
  const pool = context.database.pool;
  const { number, row } = await existingRecord(context, 'scheme', input.number);
  const [found, offersChanged] = await Promise.all([
    search(pool, 'offer', { schemeNumber: number }, sliceOf(input.page)),
    latestChange(pool, 'offer', number),
  ]);
  const rows = found.rows.map((offer) => summary(context, 'offer', offer));
  return subResourcePage(
    context,
    { ...input, subject: 'scheme', number },
    'offers',
    { total: found.total, rows },
    later(row.lastChanged, offersChanged),
  );
}
