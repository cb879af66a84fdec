import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import type { ReadResult, Subject } from '../operations/common.ts';
import { listNotices, readNotice } from '../operations/notices.ts';
import {
  type DocumentList,
  listDocuments,
  listFilingHistory,
  listFundsOfOffer,
  listOffersOfScheme,
  listParticipants,
  listVersions,
  readRecord,
} from '../operations/records.ts';
import { NoQuery, OURS_OPERATION, PagingQuery, VersionPagingQuery, VersionQuery } from '../parameters.ts';
import {
  DocumentPage,
  FilingPage,
  FundPage,
  Notice,
  NoticePage,
  Offer,
  ParticipantPage,
  Scheme,
  SummaryPage,
  VersionPage,
} from '../schemas.ts';
import type { AnswerCache } from '../store/answer-cache.ts';
import { readRoute } from './declared.ts';
import { fundRoutes } from './funds.ts';
import { searchRoutes } from './searches.ts';
import { pageFrom } from './support.ts';

/** What a sub-resource's route gives its operation: the record's number, the path, the query, the page. */
type SubResource = (input: {
  number: string;
  params: Readonly<Record<string, string>>;
  version: string | undefined;
  page: PageRequest;
}) => Promise<ReadResult>;

/**
 * The reads: searches (searches.ts), records at a version and their paginated sub-resources
 * (operations/records.ts), funds (funds.ts). Offer and scheme detail answers are kept rendered in
 * `answers` (store/answer-cache.ts) while they are current.
 */
export function readRoutes(app: FastifyInstance, context: ServiceContext, answers: AnswerCache): void {
  searchRoutes(app, context);
  fundRoutes(app, context);
  recordRoutes(app, context, answers, 'offer');
  recordRoutes(app, context, answers, 'scheme');
}

/** An offer's or scheme's detail and its sub-resources. */
function recordRoutes(app: FastifyInstance, context: ServiceContext, answers: AnswerCache, subject: Subject) {
  const param = subject === 'offer' ? 'offerNumber' : 'schemeNumber';
  const what = subject === 'offer' ? 'Offer' : 'Scheme';
  readRoute(
    app,
    `/${subject}/:${param}`,
    {
      summary: `${what} detail (a historic version with ?version=)`,
      response: subject === 'offer' ? Offer : Scheme,
      query: VersionQuery,
    },
    ({ params, query }) =>
      readRecord(context, { subject, number: params[param]!, version: query.version }, answers),
  );
  const subRoute = (
    suffix: string,
    summary: string,
    schema: TSchema,
    list: SubResource,
    options: { versioned?: boolean; ours?: boolean } = {},
  ) => {
    const versioned = options.versioned ?? false;
    readRoute(
      app,
      `/${subject}/:${param}/${suffix}`,
      {
        summary,
        response: schema,
        query: versioned ? VersionPagingQuery : PagingQuery,
        ...(options.ours ? { extensions: OURS_OPERATION } : {}),
      },
      ({ params, query }) =>
        list({
          number: params[param]!,
          params,
          version:
            versioned && 'version' in query && typeof query.version === 'string' ? query.version : undefined,
          page: pageFrom(query),
        }),
    );
  };
  const documentList =
    (list: DocumentList): SubResource =>
    ({ number, params, page }) =>
      listDocuments(context, { subject, number, list, notice: params.noticeRecId, page });
  subRoute('versions', `Every version of the ${subject}, newest first`, VersionPage, ({ number, page }) =>
    listVersions(context, { subject, number, page }),
  );
  subRoute(
    'filing-history',
    `Filing history of the ${subject}, newest first`,
    FilingPage,
    ({ number, page }) => listFilingHistory(context, { subject, number, page }),
  );
  subRoute('participants', `Participants of the ${subject}`, ParticipantPage, ({ number, page }) =>
    listParticipants(context, { subject, number, page }),
  );
  subRoute(
    'documents',
    `Every document of the ${subject}, newest first`,
    DocumentPage,
    documentList('documents'),
  );
  subRoute(
    'fma-notice/:noticeRecId/financial-markets-authority-notice-documents',
    `Documents of one of the regulator's notices on the ${subject}`,
    DocumentPage,
    documentList('financial-markets-authority-notice-documents'),
  );
  subRoute(
    'fma-notices',
    `The regulator's notices on the ${subject}, newest first (ours)`,
    NoticePage,
    ({ number, page }) => listNotices(context, { subject, number, page }),
    { ours: true },
  );
  readRoute(
    app,
    `/${subject}/:${param}/fma-notice/:noticeRecId`,
    {
      summary: `One of the regulator's notices on the ${subject}: its type, date, summary and documents (ours)`,
      response: Notice,
      query: NoQuery,
      extensions: OURS_OPERATION,
    },
    ({ params }) =>
      readNotice(context, { subject, number: params[param]!, noticeRecId: params.noticeRecId! }),
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
    subRoute(
      'offers',
      'Offers of the scheme, in number order (ours)',
      SummaryPage,
      ({ number, page }) => listOffersOfScheme(context, { number, page }),
      { ours: true },
    );
  } else {
    subRoute(
      'funds',
      'Funds of the offer (as they were at an offer version with ?version=)',
      FundPage,
      ({ number, version, page }) => listFundsOfOffer(context, { number, version, page }),
      { versioned: true },
    );
  }
}
