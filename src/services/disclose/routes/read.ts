import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import {
  cut,
  DOCUMENT_REC_ID,
  type Link,
  OFFER_NUMBER,
  pageOf,
  parseVersion,
  SCHEME_NUMBER,
  versionId,
} from '../domain/records.ts';
import { apiBase, iso, notFound, numberParam, registerUrl } from '../operations/common.ts';
import { PagingQuery, VersionPagingQuery, VersionQuery } from '../parameters.ts';
import {
  DocumentPage,
  FilingPage,
  FundPage,
  Offer,
  ParticipantPage,
  Scheme,
  VersionPage,
} from '../schemas.ts';
import type { AnswerCache } from '../store/answer-cache.ts';
import * as documentStore from '../store/documents.ts';
import * as fundStore from '../store/funds.ts';
import * as store from '../store/register.ts';
import { readRoute } from './declared.ts';
import { type FundBodies, fundRoutes } from './funds.ts';
import { searchRoutes } from './searches.ts';
import { pageFrom } from './support.ts';

type Subject = 'offer' | 'scheme';
const SUBJECT = {
  offer: { pattern: OFFER_NUMBER, what: 'Offer', param: 'offerNumber' },
  scheme: { pattern: SCHEME_NUMBER, what: 'Scheme', param: 'schemeNumber' },
} as const;

/** A paginated sub-resource's lister: the page's rows and how many there are. */
type Lister = (
  number: string,
  input: { params: Readonly<Record<string, string>>; version: number | undefined },
  slice: { limit: number; offset: number },
) => Promise<{ total: number; rows: unknown[] }>;

/**
 * The reads: searches (searches.ts), records at a version, their paginated sub-resources, funds
 * (funds.ts). Offer and scheme detail answers are kept rendered in `answers` (store/answer-cache.ts)
 * while they are current. Every read answers ETag and Last-Modified (the record's last change, or the
 * version's date).
 */
export function readRoutes(app: FastifyInstance, context: ServiceContext, answers: AnswerCache): void {
  const pool = context.database.pool;
  const base = apiBase(context);
  searchRoutes(app, context);
  const funds: FundBodies = fundRoutes(app, context);
  const { documentItem } = funds;

  // --- offers and schemes -------------------------------------------------------------------------
  const recordRoute = (subject: Subject) => {
    const { pattern, what, param } = SUBJECT[subject];
    readRoute(
      app,
      `/${subject}/:${param}`,
      {
        summary: `${what} detail (a historic version with ?version=)`,
        response: subject === 'offer' ? Offer : Scheme,
        query: VersionQuery,
      },
      async ({ params, query }) => {
        const number = numberParam(params[param]!, pattern, param, what);
        const version = parseVersion(query.version, number);
        // The answer depends on the record (at the version) and, through registerUrl, on the public base
        // URL (settled when the server listens, unless RSG_PUBLIC_URL names it).
        const key = `${subject}|${number}|${version ?? ''}|${context.absoluteUrl('')}`;
        const kept = answers.get(key);
        if (kept) return kept;
        const mark = answers.mark();
        const row = await store.detail(pool, subject, number, version);
        if (!row)
          throw notFound(
            version ? `Version ${versionId(number, version)} of ${number}` : `${what} ${number}`,
            version ? 'version' : param,
          );
        const path = `${base}/${subject}/${number}`;
        const versionCut = cut(row.versions, row.versionCount, 'versions', `${path}/versions`);
        const participantCut = cut(
          row.participants,
          row.participantCount,
          'participants',
          `${path}/participants`,
        );
        const documentCut = cut(row.documents, row.documentCount, 'documents', `${path}/documents`);
        const links: Link[] = [
          { rel: 'self', href: version ? `${path}?version=${versionId(number, version)}` : path },
          { rel: 'current', href: path },
          { rel: 'filing-history', href: `${path}/filing-history` },
        ];
        if (subject === 'offer') {
          links.push({
            rel: 'funds',
            href: version ? `${path}/funds?version=${versionId(number, version)}` : `${path}/funds`,
            count: row.fundCount,
          });
        } else {
          links.push(
            { rel: 'governing-documents', href: `${path}/governing-documents` },
            {
              rel: 'manager-and-supervisor-consent-documents',
              href: `${path}/manager-and-supervisor-consent-documents`,
            },
          );
        }
        links.push(versionCut.link, participantCut.link, documentCut.link);
        const body = {
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
          documents: documentCut.items.map((d) => documentItem({ ...d, addedAt: new Date(d.addedAt) })),
          links,
          registerUrl: registerUrl(
            context,
            `/${subject}/${number}${version ? `?version=${versionId(number, version)}` : ''}`,
          ),
        };
        const text = JSON.stringify(body);
        const lastModified = version ? row.changedAt : row.lastChanged;
        return answers.keep(key, { text, etag: strongEtag(text), lastModified }, mark);
      },
    );

    // Paginated sub-resources.
    const exists = async (number: string) => {
      const row = await store.recordAt(pool, subject, number, undefined);
      if (!row) throw notFound(`${what} ${number}`, param);
      return row;
    };
    const subRoute = (
      suffix: string,
      summaryText: string,
      schema: TSchema,
      list: Lister,
      versioned = false,
    ) =>
      readRoute(
        app,
        `/${subject}/:${param}/${suffix}`,
        { summary: summaryText, response: schema, query: versioned ? VersionPagingQuery : PagingQuery },
        async ({ params, query }) => {
          const number = numberParam(params[param]!, pattern, param, what);
          const row = await exists(number);
          const version = 'version' in query && versioned ? parseVersion(query.version, number) : undefined;
          const page = pageFrom(query);
          const found = await list(
            number,
            { params, version },
            { limit: page.pageSize, offset: page.offset },
          );
          const path = `${base}/${subject}/${number}/${suffix.replace(/:(\w+)/g, (_, name: string) => params[name]!)}`;
          return {
            body: {
              ...pageOf(found.rows, found.total, page, path),
              registerUrl: registerUrl(context, `/${subject}/${number}`),
            },
            lastModified: row.lastChanged,
          };
        },
      );
    subRoute(
      'versions',
      `Every version of the ${subject}, newest first`,
      VersionPage,
      async (number, _input, slice) => {
        const all = await store.versionsOf(pool, subject, number);
        return {
          total: all.length,
          rows: all.slice(slice.offset, slice.offset + slice.limit).map((v) => ({
            versionId: versionId(number, v.version),
            versionDate: iso(v.changedAt),
            change: v.change,
          })),
        };
      },
    );
    subRoute(
      'filing-history',
      `Filing history of the ${subject}, newest first`,
      FilingPage,
      async (number, _input, slice) => {
        const found = await store.filingHistory(pool, subject, number, slice);
        return {
          total: found.total,
          rows: found.rows.map((r) => ({
            filedDate: iso(r.filedAt),
            filingType: r.filingType,
            description: r.description,
            fundNumber: r.fundNumber,
            late: r.late,
          })),
        };
      },
    );
    subRoute('participants', `Participants of the ${subject}`, ParticipantPage, (number, _input, slice) =>
      store.participants(pool, subject, number, slice),
    );
    const documentList =
      (type?: string) =>
      async (...[number, { params }, slice]: Parameters<Lister>) => {
        const notice = params.noticeRecId;
        if (notice !== undefined && !DOCUMENT_REC_ID.test(notice))
          throw notFound(`Notice ${notice.slice(0, 40)}`, 'noticeRecId');
        const found = await documentStore.documents(
          pool,
          { kind: subject, number, ...(type ? { type } : {}), ...(notice ? { notice } : {}) },
          slice,
        );
        return { total: found.total, rows: found.rows.map(documentItem) };
      };
    subRoute('documents', `Every document of the ${subject}, newest first`, DocumentPage, documentList());
    subRoute(
      'fma-notice/:noticeRecId/financial-markets-authority-notice-documents',
      `Documents of one of the regulator's notices on the ${subject}`,
      DocumentPage,
      documentList('financial-markets-authority-notice-documents'),
    );
    if (subject === 'scheme') {
      subRoute(
        'governing-documents',
        'Governing documents of the scheme',
        DocumentPage,
        documentList('governing-documents'),
      );
      subRoute(
        'manager-and-supervisor-consent-documents',
        'Consents of the manager and supervisor',
        DocumentPage,
        documentList('manager-and-supervisor-consent-documents'),
      );
    } else {
      subRoute(
        'funds',
        'Funds of the offer (as they were at an offer version with ?version=)',
        FundPage,
        async (number, { version }, slice) => {
          if (version !== undefined && !(await store.recordAt(pool, 'offer', number, version))) {
            throw notFound(`Version ${versionId(number, version)} of ${number}`, 'version');
          }
          const found = await fundStore.fundsOfOffer(pool, number, version, slice);
          return {
            total: found.total,
            rows: await Promise.all(found.rows.map((f) => funds.fundBody(f, version))),
          };
        },
        true,
      );
    }
  };
  recordRoute('offer');
  recordRoute('scheme');
}
