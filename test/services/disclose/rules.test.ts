import { describe, expect, it } from 'vitest';
import { checkSignature, signedQuery } from '../../../src/platform/signed-url.ts';
import {
  activitiesOfFund,
  dueDateOf,
  filingOf,
  periodEnds,
} from '../../../src/services/disclose/domain/activities.ts';
import { fundUpdateProblems, isQuarterEnd } from '../../../src/services/disclose/domain/fund-update.ts';
import { HoldingsChecker, holdingsProblems } from '../../../src/services/disclose/domain/holdings.ts';
import { withIsinCheckDigit } from '../../../src/services/disclose/domain/isin.ts';
import {
  cut,
  pageOf,
  parseVersion,
  SIGNED_URL_SECONDS,
  versionId,
} from '../../../src/services/disclose/domain/records.ts';
import { FIXTURES } from '../../../src/services/disclose/sandbox/fixtures.ts';
import { generateRegister } from '../../../src/services/disclose/sandbox/generator.ts';
import { broken } from '../../support/rules.ts';
import { testCompanies } from './support/companies.ts';

describe('records', () => {
  it('the 10-item cut: 11 items give 10 and a link counting 11; 10 give all 10', () => {
    const eleven = Array.from({ length: 11 }, (_, i) => i);
    expect(cut(eleven, 11, 'x', '/x')).toEqual({
      items: eleven.slice(0, 10),
      link: { rel: 'x', href: '/x', count: 11 },
    });
    expect(cut(eleven.slice(0, 10), 10, 'x', '/x').items).toHaveLength(10);
  });

  it('version identifiers name their record', () => {
    expect(versionId('OFR10001', 3)).toBe('OFR10001-v3');
    expect(parseVersion('OFR10001-v3', 'OFR10001')).toBe(3);
    expect(parseVersion(undefined, 'OFR10001')).toBeUndefined();
    expect(broken(() => parseVersion('3', 'OFR10001'))).toEqual({
      field: 'version',
      rule: 'must be a version identifier such as OFR10001-v1',
    });
    expect(broken(() => parseVersion('SCH10000-v1', 'OFR10001')).field).toBe('version');
    expect(broken(() => parseVersion('OFR10001-v0', 'OFR10001')).field).toBe('version');
  });

  it('pages link to their neighbours', () => {
    const page = pageOf([1, 2], 5, { page: 2, pageSize: 2 }, '/list', 'a=b');
    expect(page.totalPages).toBe(3);
    expect(page.links).toEqual([
      { rel: 'self', href: '/list?a=b&page=2&page-size=2' },
      { rel: 'prev', href: '/list?a=b&page=1&page-size=2' },
      { rel: 'next', href: '/list?a=b&page=3&page-size=2' },
    ]);
  });
});

describe('activities', () => {
  it('fund updates are quarterly, due 20 working days on; FPH half-yearly, 40', () => {
    expect(periodEnds('FUND_UPDATE', '2025-01-01', '2025-12-31')).toEqual([
      '2025-03-31',
      '2025-06-30',
      '2025-09-30',
      '2025-12-31',
    ]);
    expect(periodEnds('FULL_PORTFOLIO_HOLDINGS', '2025-01-01', '2025-12-31')).toEqual([
      '2025-03-31',
      '2025-09-30',
    ]);
    // April 2026: Good Friday 3rd, Easter Monday 6th, Anzac Day (Saturday) Mondayised to the 27th.
    expect(dueDateOf('FUND_UPDATE', '2026-03-31')).toBe('2026-05-01');
    expect(filingOf('FUND_UPDATE', '2026-03-31', '2026-05-01').late).toBe(false);
    expect(filingOf('FUND_UPDATE', '2026-03-31', '2026-05-02').late).toBe(true);
  });

  it('lists the last filed, each unfiled ended period (Overdue or Upcoming) and the next period', () => {
    const filed = {
      kind: 'FULL_PORTFOLIO_HOLDINGS' as const,
      periodEnd: '2025-09-30',
      dueDate: dueDateOf('FULL_PORTFOLIO_HOLDINGS', '2025-09-30'),
      filedOn: '2025-11-01',
      late: false,
    };
    const list = activitiesOfFund(['FULL_PORTFOLIO_HOLDINGS'], '2025-01-01', '2026-07-15', [filed]);
    expect(list.map((a) => [a.periodEndDate, a.status])).toEqual([
      ['2025-09-30', 'Filed'],
      ['2025-03-31', 'Overdue'],
      ['2026-03-31', 'Overdue'],
      ['2026-09-30', 'Upcoming'],
    ]);
  });
});

describe('fund updates and holdings', () => {
  it('a good fund update has no problems; quarter ends only', () => {
    expect(isQuarterEnd('2026-06-30')).toBe(true);
    expect(isQuarterEnd('2026-06-31')).toBe(false);
    expect(
      fundUpdateProblems({
        periodEndDate: '2026-06-30',
        unitPrice: { price: 1.25, currency: 'NZD' },
        returns: [{ period: '1y', percentage: 4 }],
        fees: [{ feeType: 'MANAGEMENT', percentage: 1 }],
        assetAllocation: [{ assetType: 'OTHER', actualPercentage: 100, targetPercentage: 100 }],
      }),
    ).toEqual([]);
    expect(fundUpdateProblems([])).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
  });

  it('the streamed checker finds what the one-pass checker finds, and keeps the good holdings as columns', () => {
    const holdings = [
      {
        assetName: 'A',
        assetType: 'OTHER',
        isin: withIsinCheckDigit('NZ000000001'),
        value: 1,
        percentageOfFund: 60,
        currency: 'NZD',
      },
      { assetName: 'B', assetType: 'GOLD', value: 1.234, percentageOfFund: 30, currency: 'NZD' },
      'not a holding',
    ];
    const checker = new HoldingsChecker();
    for (const h of holdings) checker.add(h);
    expect(checker.finish(true)).toEqual(holdingsProblems(holdings));
    expect(checker.columns.assetName).toEqual(['A']);
    expect(new HoldingsChecker().finish(false)).toEqual([
      { field: 'holdings', message: 'must be a list of holdings' },
    ]);
  });
});

describe('signed URLs', () => {
  const key = Buffer.alloc(32, 7);
  const query = (text: string) => Object.fromEntries(new URLSearchParams(text));
  it('valid until the expiry; any change to path, caller or expiry is tampering', () => {
    const signed = query(signedQuery(key, '/files/DOC100001', 'sub-1', 1_000_000, SIGNED_URL_SECONDS));
    expect(checkSignature(key, '/files/DOC100001', signed, 1_000_000)).toBe('valid');
    expect(checkSignature(key, '/files/DOC100001', signed, 1_000_000 + SIGNED_URL_SECONDS * 1000)).toBe(
      'valid',
    );
    expect(checkSignature(key, '/files/DOC100001', signed, 1_000_000 + (SIGNED_URL_SECONDS + 1) * 1000)).toBe(
      'expired',
    );
    expect(checkSignature(key, '/files/DOC100002', signed, 1_000_000)).toBe('tampered');
    expect(checkSignature(key, '/files/DOC100001', { ...signed, caller: 'sub-2' }, 1_000_000)).toBe(
      'tampered',
    );
    expect(
      checkSignature(
        key,
        '/files/DOC100001',
        { ...signed, expires: String(Number(signed.expires) + 1) },
        1_000_000,
      ),
    ).toBe('tampered');
    expect(checkSignature(Buffer.alloc(32, 8), '/files/DOC100001', signed, 1_000_000)).toBe('tampered');
  });
});

describe('the sandbox generator', () => {
  const now = new Date('2026-05-20T00:00:00Z');
  it('is deterministic, and its fixed test cases have the documented shapes', () => {
    const a = generateRegister(testCompanies(), { schemes: 5, standaloneOffers: 3, now }, FIXTURES);
    const b = generateRegister(testCompanies(), { schemes: 5, standaloneOffers: 3, now }, FIXTURES);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const [first, second, third] = a.offers;
    expect([first!.participants.length, first!.documents.length, first!.funds.length]).toEqual([11, 11, 11]);
    expect([second!.participants.length, second!.documents.length, second!.funds.length]).toEqual([
      10, 10, 2,
    ]);
    expect(third!.funds[0]!.filings.filter((f) => f.kind === 'FULL_PORTFOLIO_HOLDINGS')).toEqual([]);
    for (const offer of a.offers) expect(offer.versions.length).toBeGreaterThanOrEqual(2);
    // Managers and offerors come from the business register source, by name and number.
    const names = new Set(Array.from({ length: 40 }, (_, i) => testCompanies().organisation(i).nzbn));
    for (const scheme of a.schemes) expect(names.has(scheme.manager.nzbn)).toBe(true);
  });
});
