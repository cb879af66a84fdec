import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { cut, FUND_NUMBER, OFFER_NUMBER, pageOf, parseVersion, versionId } from '../domain/records.ts';
import { apiBase, iso, notFound, numberParam, registerUrl } from '../operations/common.ts';
import { FundVersionPagingQuery, FundVersionQuery } from '../parameters.ts';
import { Fund, HoldingPage } from '../schemas.ts';
import type * as documentStore from '../store/documents.ts';
import * as fundStore from '../store/funds.ts';
import * as store from '../store/register.ts';
import { fundEtag } from './compliance.ts';
import { readRoute } from './declared.ts';
import { pageFrom } from './support.ts';

/** What the record reads take from here: a fund's answer, and a document's list item. */
export interface FundBodies {
  fundBody: (fund: fundStore.FundRow, offerVersion: number | undefined) => Promise<unknown>;
  documentItem: (row: documentStore.DocumentRow) => unknown;
}

/**
 * The fund reads: the fund on both its paths (the same answer, the same ETag: its version's, which a
 * filing's If-Match is compared with) and its holdings, current or at a version of its parent offer.
 */
export function fundRoutes(app: FastifyInstance, context: ServiceContext): FundBodies {
  const pool = context.database.pool;
  const base = apiBase(context);

  const documentItem = (row: documentStore.DocumentRow) => ({
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

  const fundBody = async (fund: fundStore.FundRow, offerVersion: number | undefined) => {
    const path = `${base}/offer/${fund.offerNumber}/fund/${fund.fundNumber}`;
    const holdings = fund.holdingsVersion
      ? await fundStore.holdings(pool, fund.fundNumber, fund.holdingsVersion, { limit: 10, offset: 0 })
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
  const loadFund = async (
    params: Readonly<Record<string, string>>,
    versionParam: string | undefined,
    offerInPath: string | undefined,
  ) => {
    const fundNumber = numberParam(params.fundNumber!, FUND_NUMBER, 'fundNumber', 'Fund');
    if (offerInPath !== undefined) numberParam(offerInPath, OFFER_NUMBER, 'offerNumber', 'Offer');
    const current = await fundStore.fundAt(pool, fundNumber, undefined);
    if (!current || (offerInPath !== undefined && current.offerNumber !== offerInPath)) {
      throw notFound(`Fund ${fundNumber}${offerInPath ? ` of offer ${offerInPath}` : ''}`, 'fundNumber');
    }
    const version = parseVersion(versionParam, current.offerNumber);
    if (version === undefined) return { fund: current, version };
    const offer = await store.recordAt(pool, 'offer', current.offerNumber, version);
    if (!offer)
      throw notFound(
        `Version ${versionId(current.offerNumber, version)} of ${current.offerNumber}`,
        'version',
      );
    const fund = await fundStore.fundAt(pool, fundNumber, version);
    if (!fund)
      throw notFound(
        `Fund ${fundNumber} at offer version ${versionId(current.offerNumber, version)}`,
        'version',
      );
    return { fund, version };
  };
  readRoute(
    app,
    '/offer/:offerNumber/fund/:fundNumber',
    {
      summary: 'Fund detail (historic data for a version of its parent offer)',
      response: Fund,
      query: FundVersionQuery,
    },
    async ({ params, query }) => {
      const { fund, version } = await loadFund(params, query.version, params.offerNumber);
      const body = await fundBody(fund, version);
      if (version) return { body, lastModified: fund.changedAt };
      return { body, lastModified: fund.lastChanged, etag: fundEtag(fund.fundNumber, fund.version) };
    },
  );
  readRoute(
    app,
    '/fund/:fundNumber',
    { summary: 'Fund detail (the spec’s path; the same answer)', response: Fund, query: FundVersionQuery },
    async ({ params, query }) => {
      const { fund, version } = await loadFund(params, query.version, undefined);
      const body = await fundBody(fund, version);
      if (version) return { body, lastModified: fund.changedAt };
      return { body, lastModified: fund.lastChanged, etag: fundEtag(fund.fundNumber, fund.version) };
    },
  );
  readRoute(
    app,
    '/fund/:fundNumber/holdings',
    {
      summary: 'Full portfolio holdings of the fund (at a version of its parent offer)',
      response: HoldingPage,
      query: FundVersionPagingQuery,
    },
    async ({ params, query }) => {
      const { fund, version } = await loadFund(params, query.version, undefined);
      const page = pageFrom(query);
      const found = fund.holdingsVersion
        ? await fundStore.holdings(pool, fund.fundNumber, fund.holdingsVersion, {
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
  return { fundBody, documentItem };
}
