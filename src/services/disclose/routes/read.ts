import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { isDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import {
  cut,
  DOCUMENT_REC_ID,
  FUND_NUMBER,
  type Link,
  OFFER_NUMBER,
  pageOf,
  parseVersion,
  SCHEME_NUMBER,
  versionId,
} from '../domain/records.ts';
import {
  DocumentPage,
  FilingPage,
  Fund,
  FundPage,
  HoldingPage,
  Offer,
  ORGANISATION_NOTE,
  PARAMETER_EXAMPLES,
  ParticipantPage,
  pathParameters,
  readResponses,
  Scheme,
  SummaryPage,
  VersionPage,
} from '../schemas.ts';
import type { AnswerCache, RenderedAnswer } from '../store/answer-cache.ts';
import * as store from '../store/register.ts';
import { fundEtag } from './compliance.ts';
import {
  apiBase,
  iso,
  notFound,
  numberParam,
  pageFrom,
  type Query,
  registerUrl,
  requireOrganisation,
  sendJson,
  sendJsonText,
  single,
} from './support.ts';

type Subject = 'offer' | 'scheme';
const SUBJECT = {
  offer: { pattern: OFFER_NUMBER, what: 'Offer', param: 'offerNumber' },
  scheme: { pattern: SCHEME_NUMBER, what: 'Scheme', param: 'schemeNumber' },
} as const;

/** The query parameters every read documents (their rules are the routes'). */
const documented = (names: Record<string, string>) => ({
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(names).map(([name, description]) => [
      name,
      {
        type: 'string',
        description,
        ...(PARAMETER_EXAMPLES[name] ? { examples: [PARAMETER_EXAMPLES[name]] } : {}),
      },
    ]),
  ),
});
const PAGING = { page: 'Page number, from 1', 'page-size': 'Items per page, 1 to 100 (default 20)' };
const VERSION = { version: 'A version identifier (e.g. OFR10001-v2); absent: the current version' };
const anything = () => () => true;

/**
 * The reads: searches, records at a version, their paginated sub-resources, new-or-changed. Offer and
 * scheme detail answers are kept rendered in `answers` (store/answer-cache.ts) while they are current.
 */
export function readRoutes(app: FastifyInstance, context: ServiceContext, answers: AnswerCache): void {
  const pool = context.database.pool;
  const base = apiBase(context);
  const route = (
    url: string,
    summary: string,
    response: object,
    query: Record<string, string>,
    handler: (
      request: FastifyRequest,
    ) => Promise<{ body: unknown; lastModified?: Date | undefined; etag?: string } | RenderedAnswer>,
  ) =>
    app.get(
      url,
      {
        schema: {
          summary,
          description: ORGANISATION_NOTE,
          ...(url.includes(':') ? { params: pathParameters(url) } : {}),
          querystring: documented(query),
          response: readResponses(response as never),
        },
        validatorCompiler: anything,
      },
      async (request, reply) => {
        requireOrganisation(request);
        const answer = await handler(request);
        if ('text' in answer)
          return sendJsonText(request, reply, answer.text, answer.etag, answer.lastModified);
        return sendJson(request, reply, answer.body, answer.lastModified, answer.etag);
      },
    );

  const documentItem = (row: store.DocumentRow) => ({
    documentRecId: row.documentRecId,
    documentType: row.documentType,
    title: row.title,
    fileName: row.fileName,
    contentType: row.contentType,
    sizeBytes: row.sizeBytes,
    addedDate: iso(row.addedAt),
    noticeRecId: row.noticeRecId,
    href:
      row.subjectKind === 'fund'
        ? `${base}/fund/${row.subjectNumber}/fund-update-document`
        : `${base}/${row.subjectKind}/${row.subjectNumber}/${row.documentType}/${row.documentRecId}`,
  });

  // --- searches -----------------------------------------------------------------------------------
  const searchRoute = (subject: Subject) => {
    const kindParam = subject === 'offer' ? 'product-type' : 'scheme-type';
    route(
      `/${subject}s`,
      subject === 'offer' ? 'Search offers' : 'Search schemes',
      SummaryPage,
      {
        'name-or-number': 'Name or number contains (case ignored)',
        status: 'Status, exactly (case ignored), e.g. Open',
        [kindParam]:
          subject === 'offer' ? 'Product type, e.g. Debt securities' : 'Scheme type, e.g. KiwiSaver scheme',
        issuer: subject === 'offer' ? 'Offeror’s name contains' : 'Manager’s name contains',
        ...PAGING,
      },
      async (request) => {
        const query = request.query as Query;
        const known = new Set(['name-or-number', 'status', kindParam, 'issuer', 'page', 'page-size']);
        for (const name of Object.keys(query)) {
          if (!known.has(name))
            throw new RuleError(name, `is not a search criterion; use ${[...known].join(', ')}`);
        }
        const text = single(query, 'name-or-number');
        if (text !== undefined && (text.length > 100 || text.trim() === '')) {
          throw new RuleError('name-or-number', 'must be 1 to 100 characters');
        }
        const criteria = {
          text: text?.trim(),
          status: single(query, 'status'),
          productType: single(query, kindParam),
          issuer: single(query, 'issuer'),
        };
        const page = pageFrom(query);
        const found = await store.search(pool, subject, criteria, {
          limit: page.pageSize,
          offset: page.offset,
        });
        const extra = ['name-or-number', 'status', kindParam, 'issuer']
          .filter((n) => query[n] !== undefined)
          .map((n) => `${n}=${encodeURIComponent(String(query[n]))}`)
          .join('&');
        return {
          body: {
            ...pageOf(
              found.rows.map((row) => summary(subject, row)),
              found.total,
              page,
              `${base}/${subject}s`,
              extra,
            ),
            registerUrl: registerUrl(context, `/${subject}s`),
          },
        };
      },
    );
  };
  const summary = (subject: Subject, row: store.SummaryRow) => ({
    number: row.number,
    name: row.name,
    status: row.status,
    type: row.kind,
    issuer: row.issuer,
    versionId: versionId(row.number, row.version),
    lastChanged: iso(row.lastChanged),
    href: `${base}/${subject}/${row.number}`,
    registerUrl: registerUrl(context, `/${subject}/${row.number}`),
  });
  searchRoute('offer');
  searchRoute('scheme');

  // --- new or changed -----------------------------------------------------------------------------
  const changedRoute = (subject: Subject) =>
    route(
      `/new-or-changed-${subject}s`,
      `${subject === 'offer' ? 'Offers' : 'Schemes'} new or changed from start-date to end-date (both inclusive, New Zealand dates)`,
      SummaryPage,
      {
        'start-date': 'First day, YYYY-MM-DD (published name)',
        'end-date': 'Last day, YYYY-MM-DD (published name)',
        startDate: 'The same as start-date (the spec’s name); 400 when both are given and differ',
        endDate: 'The same as end-date; 400 when both are given and differ',
        ...PAGING,
      },
      async (request) => {
        const query = request.query as Query;
        const from = dateParam(query, 'start-date', 'startDate');
        const to = dateParam(query, 'end-date', 'endDate');
        if (from > to) throw new RuleError('end-date', 'must not be before start-date');
        const page = pageFrom(query);
        const found = await store.newOrChanged(pool, subject, from, to, {
          limit: page.pageSize,
          offset: page.offset,
        });
        return {
          body: {
            ...pageOf(
              found.rows.map((row) => summary(subject, row)),
              found.total,
              page,
              `${base}/new-or-changed-${subject}s`,
              `start-date=${from}&end-date=${to}`,
            ),
            registerUrl: registerUrl(context, `/${subject}s`),
          },
        };
      },
    );
  changedRoute('offer');
  changedRoute('scheme');

  // --- offers and schemes -------------------------------------------------------------------------
  const recordRoute = (subject: Subject) => {
    const { pattern, what, param } = SUBJECT[subject];
    route(
      `/${subject}/:${param}`,
      `${what} detail (a historic version with ?version=)`,
      subject === 'offer' ? Offer : Scheme,
      VERSION,
      async (request) => {
        const number = numberParam((request.params as Record<string, string>)[param]!, pattern, param, what);
        const query = request.query as Query;
        const version = parseVersion(single(query, 'version'), number);
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
    const numberOf = (request: FastifyRequest) =>
      numberParam((request.params as Record<string, string>)[param]!, pattern, param, what);
    const subRoute = (
      suffix: string,
      summaryText: string,
      schema: object,
      list: (
        number: string,
        request: FastifyRequest,
        page: { limit: number; offset: number },
      ) => Promise<{ total: number; rows: unknown[] }>,
      query: Record<string, string> = {},
    ) =>
      route(
        `/${subject}/:${param}/${suffix}`,
        summaryText,
        schema,
        { ...query, ...PAGING },
        async (request) => {
          const number = numberOf(request);
          const row = await exists(number);
          const page = pageFrom(request.query as Query);
          const found = await list(number, request, { limit: page.pageSize, offset: page.offset });
          const path = `${base}/${subject}/${number}/${suffix.replace(/:(\w+)/g, (_, name: string) => (request.params as Record<string, string>)[name]!)}`;
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
      async (number, _request, slice) => {
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
      async (number, _request, slice) => {
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
    subRoute('participants', `Participants of the ${subject}`, ParticipantPage, (number, _request, slice) =>
      store.participants(pool, subject, number, slice),
    );
    const documentList =
      (type?: string) =>
      async (number: string, request: FastifyRequest, slice: { limit: number; offset: number }) => {
        const notice = (request.params as Record<string, string>).noticeRecId;
        if (notice !== undefined && !DOCUMENT_REC_ID.test(notice))
          throw notFound(`Notice ${notice.slice(0, 40)}`, 'noticeRecId');
        const found = await store.documents(
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
        async (number, request, slice) => {
          const version = parseVersion(single(request.query as Query, 'version'), number);
          if (version !== undefined && !(await store.recordAt(pool, 'offer', number, version))) {
            throw notFound(`Version ${versionId(number, version)} of ${number}`, 'version');
          }
          const found = await store.fundsOfOffer(pool, number, version, slice);
          return {
            total: found.total,
            rows: await Promise.all(found.rows.map((f) => fundBody(f, version))),
          };
        },
        VERSION,
      );
    }
  };
  recordRoute('offer');
  recordRoute('scheme');

  // --- funds --------------------------------------------------------------------------------------
  const fundBody = async (fund: store.FundRow, offerVersion: number | undefined) => {
    const path = `${base}/offer/${fund.offerNumber}/fund/${fund.fundNumber}`;
    const holdings = fund.holdingsVersion
      ? await store.holdings(pool, fund.fundNumber, fund.holdingsVersion, { limit: 10, offset: 0 })
      : { total: 0, rows: [] };
    const d = fund.document as Record<string, unknown>;
    const at = offerVersion ? `?version=${versionId(fund.offerNumber, offerVersion)}` : '';
    const holdingsCut = cut(
      holdings.rows,
      holdings.total,
      'holdings',
      `${base}/fund/${fund.fundNumber}/holdings${at}`,
    );
    return {
      fundNumber: fund.fundNumber,
      offerNumber: fund.offerNumber,
      name: String(d.name),
      fundType: String(d.fundType),
      versionId: versionId(fund.fundNumber, fund.version),
      offerVersionId: versionId(fund.offerNumber, fund.offerVersion),
      versionDate: iso(fund.changedAt),
      unitPrice: (d.unitPrice as object | undefined) ?? null,
      returns: (d.returns as unknown[] | undefined) ?? [],
      fees: (d.fees as unknown[] | undefined) ?? [],
      assetAllocation: (d.assetAllocation as unknown[] | undefined) ?? [],
      holdingsPeriodEndDate: fund.holdingsPeriodEnd,
      holdings: holdingsCut.items,
      links: [
        { rel: 'self', href: `${path}${at}` },
        { rel: 'offer', href: `${base}/offer/${fund.offerNumber}${at}` },
        { rel: 'fund-update-document', href: `${base}/fund/${fund.fundNumber}/fund-update-document` },
        { rel: 'submit-fund-compliance', href: `${path}/submit-fund-compliance` },
        { rel: 'submit-fph-compliance', href: `${path}/submit-fph-compliance` },
        holdingsCut.link,
      ],
      registerUrl: registerUrl(context, `/fund/${fund.fundNumber}${at}`),
    };
  };
  /** The fund, current or as at a version of its parent offer (checked against the offer in the path). */
  const loadFund = async (request: FastifyRequest, offerInPath: string | undefined) => {
    const params = request.params as Record<string, string>;
    const fundNumber = numberParam(params.fundNumber!, FUND_NUMBER, 'fundNumber', 'Fund');
    if (offerInPath !== undefined) numberParam(offerInPath, OFFER_NUMBER, 'offerNumber', 'Offer');
    const current = await store.fundAt(pool, fundNumber, undefined);
    if (!current || (offerInPath !== undefined && current.offerNumber !== offerInPath)) {
      throw notFound(`Fund ${fundNumber}${offerInPath ? ` of offer ${offerInPath}` : ''}`, 'fundNumber');
    }
    const version = parseVersion(single(request.query as Query, 'version'), current.offerNumber);
    if (version === undefined) return { fund: current, version };
    const offer = await store.recordAt(pool, 'offer', current.offerNumber, version);
    if (!offer)
      throw notFound(
        `Version ${versionId(current.offerNumber, version)} of ${current.offerNumber}`,
        'version',
      );
    const fund = await store.fundAt(pool, fundNumber, version);
    if (!fund)
      throw notFound(
        `Fund ${fundNumber} at offer version ${versionId(current.offerNumber, version)}`,
        'version',
      );
    return { fund, version };
  };
  const fundVersion = {
    version: 'A version identifier of the parent offer (e.g. OFR10001-v2): the fund as it was then',
  };
  route(
    '/offer/:offerNumber/fund/:fundNumber',
    'Fund detail (historic data for a version of its parent offer)',
    Fund,
    fundVersion,
    async (request) => {
      const { fund, version } = await loadFund(
        request,
        (request.params as Record<string, string>).offerNumber,
      );
      const body = await fundBody(fund, version);
      if (version) return { body, lastModified: fund.changedAt };
      return { body, lastModified: fund.lastChanged, etag: fundEtag(fund.fundNumber, fund.version) };
    },
  );
  route(
    '/fund/:fundNumber',
    'Fund detail (the spec’s path; the same answer)',
    Fund,
    fundVersion,
    async (request) => {
      const { fund, version } = await loadFund(request, undefined);
      const body = await fundBody(fund, version);
      if (version) return { body, lastModified: fund.changedAt };
      return { body, lastModified: fund.lastChanged, etag: fundEtag(fund.fundNumber, fund.version) };
    },
  );
  route(
    '/fund/:fundNumber/holdings',
    'Full portfolio holdings of the fund (at a version of its parent offer)',
    HoldingPage,
    { ...fundVersion, ...PAGING },
    async (request) => {
      const { fund, version } = await loadFund(request, undefined);
      const page = pageFrom(request.query as Query);
      const found = fund.holdingsVersion
        ? await store.holdings(pool, fund.fundNumber, fund.holdingsVersion, {
            limit: page.pageSize,
            offset: page.offset,
          })
        : { total: 0, rows: [] };
      const at = version ? `version=${versionId(fund.offerNumber, version)}` : '';
      return {
        body: {
          ...pageOf(found.rows, found.total, page, `${base}/fund/${fund.fundNumber}/holdings`, at),
          registerUrl: registerUrl(context, `/fund/${fund.fundNumber}`),
        },
        lastModified: version ? fund.changedAt : fund.lastChanged,
      };
    },
  );
}

/** A date parameter under its published name or the spec's: 400 when absent, malformed, or both differ. */
function dateParam(query: Query, published: string, spec: string): string {
  const a = single(query, published);
  const b = single(query, spec);
  if (a !== undefined && b !== undefined && a !== b) {
    throw new RuleError(published, `and ${spec} are the same parameter; given both, they must be equal`);
  }
  const value = a ?? b;
  const name = a !== undefined ? published : spec;
  if (value === undefined) throw new RuleError(published, `is required (or ${spec}), a date YYYY-MM-DD`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || !isDate(value))
    throw new RuleError(name, 'must be a date YYYY-MM-DD');
  return value;
}
