import type { ServiceContext } from '../../../gateway/service-context.ts';
import { cut, DOCUMENT_REC_ID, MAIN_ARRAY_ITEMS, NOTICE_DOCUMENTS } from '../domain/records.ts';
import { documents } from '../store/documents.ts';
import { type NoticeRow, noticeOf, noticesOf } from '../store/notices.ts';
import { apiBase, notFound, type ReadResult, registerUrl, type Subject } from './common.ts';
import { documentItem } from './documents.ts';
import { existingRecord, later, type SubResourceInput, sliceOf, subResourcePage } from './sub-resources.ts';

/**
 * The regulator's notices on an offer or a scheme (ours: the published design names only their
 * documents' list, `fma-notice/{recid}/financial-markets-authority-notice-documents`): the notices of a
 * record, newest first, and one notice with its first documents. Nothing of the API writes a notice:
 * they are the Financial Markets Authority's.
 */

/** A notice of the record: 404 naming `noticeRecId` when the record has no notice of that id. */
export async function requireNotice(
  context: ServiceContext,
  subject: Subject,
  number: string,
  recId: string,
): Promise<NoticeRow> {
  const row = DOCUMENT_REC_ID.test(recId)
    ? await noticeOf(context.database.pool, subject, number, recId)
    : undefined;
  if (!row) throw notFound(`Notice ${recId.slice(0, 40)} of ${number}`, 'noticeRecId');
  return row;
}

/** Where a record's notices are, from the gateway root. */
const recordPath = (context: ServiceContext, subject: Subject, number: string) =>
  `${apiBase(context)}/${subject}/${number}`;

/** The notices on a record, newest first; Last-Modified: the record's or a notice's latest change. */
export async function listNotices(context: ServiceContext, input: SubResourceInput): Promise<ReadResult> {
  const { subject } = input;
  const { number, row } = await existingRecord(context, subject, input.number);
  const found = await noticesOf(context.database.pool, subject, number, sliceOf(input.page));
  const path = recordPath(context, subject, number);
  const rows = found.rows.map((n) => ({
    noticeRecId: n.noticeRecId,
    noticeType: n.noticeType,
    noticeDate: n.noticeDate,
    summary: n.summary,
    documentCount: n.documentCount,
    href: `${path}/fma-notice/${n.noticeRecId}`,
  }));
  return subResourcePage(
    context,
    { ...input, number },
    'fma-notices',
    { total: found.total, rows },
    later(row.lastChanged, found.lastChanged),
  );
}

/** One notice on a record: its facts, its first 10 documents and the link to all of them. */
export async function readNotice(
  context: ServiceContext,
  input: { subject: Subject; number: string; noticeRecId: string },
): Promise<ReadResult> {
  const { subject } = input;
  const { number, row } = await existingRecord(context, subject, input.number);
  const notice = await requireNotice(context, subject, number, input.noticeRecId);
  const recId = notice.noticeRecId;
  const found = await documents(
    context.database.pool,
    { kind: subject, number, type: NOTICE_DOCUMENTS, notice: recId },
    { limit: MAIN_ARRAY_ITEMS, offset: 0 },
  );
  const path = recordPath(context, subject, number);
  const self = `${path}/fma-notice/${recId}`;
  const documentCut = cut(found.rows, found.total, 'documents', `${self}/${NOTICE_DOCUMENTS}`);
  return {
    body: {
      noticeRecId: recId,
      noticeType: notice.noticeType,
      noticeDate: notice.noticeDate,
      summary: notice.summary,
      offerNumber: subject === 'offer' ? number : null,
      schemeNumber: subject === 'scheme' ? number : null,
      documents: documentCut.items.map((d) => documentItem(context, d)),
      links: [
        { rel: 'self', href: self },
        documentCut.link,
        { rel: subject, href: path },
        { rel: 'fma-notices', href: `${path}/fma-notices` },
      ],
      registerUrl: registerUrl(context, `/${subject}/${number}`),
    },
    lastModified: later(row.lastChanged, notice.lastChanged),
  };
}
