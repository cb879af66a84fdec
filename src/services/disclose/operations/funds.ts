import type { ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import type { ResourceValidators } from '../../../platform/http/operation.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import { cut, FUND_NUMBER, OFFER_NUMBER, pageOf, parseVersion, versionId } from '../domain/records.ts';
import { type FundRow, fundAt, fundAtOwnVersion, holdings } from '../store/funds.ts';
import { recordAt } from '../store/register.ts';
import { apiBase, iso, notFound, numberParam, type ReadResult, registerUrl } from './common.ts';

/**
 * The fund reads: the fund on both its paths (the same answer, the same ETag: its version's, which a
 * filing's If-Match is compared with) and its holdings, current or at a version of its parent offer.
 */

/**
 * The fund's compliance ETag: its current version. The fund reads answer it too (ETag of
 * `/offer/{offer}/fund/{fund}` without `version`), so a client sends what it read.
 */
export const fundEtag = (fundNumber: string, version: number): string =>
  strongEtag(`fund|${fundNumber}|${version}`);

/** The fund's validators: its compliance ETag and its last change. */
export const fundValidators = (
  fundNumber: string,
  version: number,
  lastModified: Date,
): ResourceValidators => ({
  etag: fundEtag(fundNumber, version),
  lastModified,
});

/** The optional figures a fund version holds (its last fund update's), each null when not reported. */
export const figuresOf = (d: Record<string, unknown>) => ({
  fundSize: typeof d.fundSize === 'number' ? d.fundSize : null,
  numberOfInvestors: typeof d.numberOfInvestors === 'number' ? d.numberOfInvestors : null,
  riskIndicator: typeof d.riskIndicator === 'number' ? d.riskIndicator : null,
});

/** What a fund is read at: a version of its parent offer, one of its own (ours), or neither (current). */
export interface FundSelector {
  offerVersion?: number | undefined;
  fundVersion?: number | undefined;
}

/** The query that reads a fund at a selector again (`?version=…` or `?fund-version=…`), or ''. */
const selectorQuery = (fund: FundRow, at: FundSelector): string =>
  at.fundVersion
    ? `?fund-version=${versionId(fund.fundNumber, at.fundVersion)}`
    : at.offerVersion
      ? `?version=${versionId(fund.offerNumber, at.offerVersion)}`
      : '';

/**
 * A fund's answer, at a version of its parent offer or of its own (ours) or current, its holdings cut
 * at 10.
 */
export async function fundBody(
  context: ServiceContext,
  fund: FundRow,
  offerVersion: number | undefined,
  fundVersion?: number,
) {
  const base = apiBase(context);
  const path = `${base}/offer/${fund.offerNumber}/fund/${fund.fundNumber}`;
  const held = fund.holdingsVersion
    ? await holdings(context.database.pool, fund.fundNumber, fund.holdingsVersion, { limit: 10, offset: 0 })
    : { total: 0, rows: [] };
  const d = fund.document as Record<string, unknown>;
  const at = selectorQuery(fund, { offerVersion, fundVersion });
  const offerAt = offerVersion ? `?version=${versionId(fund.offerNumber, offerVersion)}` : '';
  const holdingsCut = cut(held.rows, held.total, 'holdings', `${base}/fund/${fund.fundNumber}/holdings${at}`);
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
    ...figuresOf(d),
    holdingsPeriodEndDate: fund.holdingsPeriodEnd,
    holdings: holdingsCut.items,
    links: [
      { rel: 'self', href: `${path}${at}` },
      { rel: 'offer', href: `${base}/offer/${fund.offerNumber}${offerAt}` },
      { rel: 'versions', href: `${base}/fund/${fund.fundNumber}/versions` },
      { rel: 'fund-update-document', href: `${base}/fund/${fund.fundNumber}/fund-update-document` },
      { rel: 'filing-history', href: `${base}/fund/${fund.fundNumber}/filing-history` },
      { rel: 'fund-returns', href: `${base}/fund/${fund.fundNumber}/fund-returns` },
      { rel: 'submit-fund-compliance', href: `${path}/submit-fund-compliance` },
      { rel: 'submit-fph-compliance', href: `${path}/submit-fph-compliance` },
      holdingsCut.link,
    ],
    registerUrl: registerUrl(context, `/fund/${fund.fundNumber}${at}`),
  };
}

export interface FundInput {
  fundNumber: string;
  /** The offer the fund is read under (`/offer/{offer}/fund/{fund}`): 404 unless it is the fund's. */
  offerNumber?: string | undefined;
  /** A version identifier of the parent offer (`OFR10001-v2`): the fund as it was then. */
  version?: string | undefined;
  /** Ours: a version identifier of the fund itself (`FND10001-v3`); not with `version`. */
  fundVersion?: string | undefined;
}

/** The fund as it is now, by its number: 404 when it is not on the register. */
export async function currentFund(context: ServiceContext, raw: string): Promise<FundRow> {
  const fundNumber = numberParam(raw, FUND_NUMBER, 'fundNumber', 'Fund');
  const fund = await fundAt(context.database.pool, fundNumber, undefined);
  if (!fund) throw notFound(`Fund ${fundNumber}`, 'fundNumber');
  return fund;
}

/** The fund, current or as at a version of its parent offer (checked against the offer named). */
async function loadFund(
  context: ServiceContext,
  input: FundInput,
): Promise<{ fund: FundRow; version: number | undefined; fundVersion?: number | undefined }> {
  const pool = context.database.pool;
  const { offerNumber } = input;
  const fundNumber = numberParam(input.fundNumber, FUND_NUMBER, 'fundNumber', 'Fund');
  if (offerNumber !== undefined) numberParam(offerNumber, OFFER_NUMBER, 'offerNumber', 'Offer');
  const current = await fundAt(pool, fundNumber, undefined);
  if (!current || (offerNumber !== undefined && current.offerNumber !== offerNumber)) {
    throw notFound(`Fund ${fundNumber}${offerNumber ? ` of offer ${offerNumber}` : ''}`, 'fundNumber');
  }
  if (input.fundVersion !== undefined) return loadFundVersion(context, current, input);
  const version = parseVersion(input.version, current.offerNumber);
  if (version === undefined) return { fund: current, version };
  const offer = await recordAt(pool, 'offer', current.offerNumber, version);
  if (!offer)
    throw notFound(`Version ${versionId(current.offerNumber, version)} of ${current.offerNumber}`, 'version');
  const fund = await fundAt(pool, fundNumber, version);
  if (!fund)
    throw notFound(
      `Fund ${fundNumber} at offer version ${versionId(current.offerNumber, version)}`,
      'version',
    );
  return { fund, version };
}

/** The fund at one of its own versions (`fund-version`, ours): not with `version`. */
async function loadFundVersion(
  context: ServiceContext,
  current: FundRow,
  input: FundInput,
): Promise<{ fund: FundRow; version: undefined; fundVersion: number }> {
  if (input.version !== undefined)
    throw new RuleError('fund-version', 'names a version of the fund; give it or version, not both');
  const fundVersion = parseVersion(input.fundVersion, current.fundNumber, 'fund-version')!;
  const fund =
    fundVersion === current.version
      ? current
      : await fundAtOwnVersion(context.database.pool, current.fundNumber, fundVersion);
  if (!fund)
    throw notFound(
      `Version ${versionId(current.fundNumber, fundVersion)} of ${current.fundNumber}`,
      'fund-version',
    );
  return { fund, version: undefined, fundVersion };
}

/** The fund's answer: current (ETag its compliance ETag), or at a version of its parent offer. */
export async function readFund(context: ServiceContext, input: FundInput): Promise<ReadResult> {
  const { fund, version, fundVersion } = await loadFund(context, input);
  const body = await fundBody(context, fund, version, fundVersion);
  if (version || fundVersion) return { body, lastModified: fund.changedAt };
  return { body, lastModified: fund.lastChanged, etag: fundEtag(fund.fundNumber, fund.version) };
}

/** One page of the fund's full portfolio holdings (at a version of its parent offer). */
export async function listHoldings(
  context: ServiceContext,
  input: FundInput & { page: PageRequest },
): Promise<ReadResult> {
  const { fund, version, fundVersion } = await loadFund(context, input);
  const { page } = input;
  const found = fund.holdingsVersion
    ? await holdings(context.database.pool, fund.fundNumber, fund.holdingsVersion, {
        limit: page.pageSize,
        offset: page.offset,
      })
    : { total: 0, rows: [] };
  const at = selectorQuery(fund, { offerVersion: version, fundVersion }).slice(1);
  return {
    body: {
      ...pageOf(found.rows, found.total, page, `${apiBase(context)}/fund/${fund.fundNumber}/holdings`, at),
      registerUrl: registerUrl(context, `/fund/${fund.fundNumber}`),
    },
    lastModified: version || fundVersion ? fund.changedAt : fund.lastChanged,
  };
}
