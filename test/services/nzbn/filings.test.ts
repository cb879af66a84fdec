import { describe, expect, it } from 'vitest';
import { onePagePdf } from '../../../src/platform/documents/one-page-pdf.ts';
import { parseNzDateTime } from '../../../src/platform/nz-time.ts';
import { isCompanyType } from '../../../src/services/nzbn/domain/codes.ts';
import {
  DOCUMENT_TYPES,
  FILING_CODES,
  generatedDocumentLines,
} from '../../../src/services/nzbn/domain/filings.ts';
import { companyFilings, sandboxFilings } from '../../../src/services/nzbn/sandbox/filings.ts';
import { SCALE_ENTITIES } from '../../../src/services/nzbn/sandbox/seed.ts';
import { generatedEntity, SANDBOX_SEED } from '../../../src/services/nzbn/sandbox/seed-rows.ts';

/**
 * The sandbox's company filings (sandbox/filings.ts): made from (seed, the generated company) alone, so
 * the same seed gives the same filings byte for byte at either scale, and they hold together: the
 * company's incorporation first, oldest first, none before its registration nor after its last change,
 * its annual returns up to the one it last filed, one document each.
 */
const SMALL = Array.from({ length: 300 }, (_, i) => i);
const FULL = Array.from({ length: 100 }, (_, i) => SCALE_ENTITIES.full - 1 - i * 997);
const filingsOf = (index: number, seed = SANDBOX_SEED) => companyFilings(seed, generatedEntity(index, seed));

describe('the generated filings', () => {
  it.each([
    ['small', SMALL],
    ['full', FULL],
  ])(
    'are the same twice from the same seed, at the %s scale, and another seed gives others',
    (_, indexes) => {
      const once = JSON.stringify(indexes.map((index) => filingsOf(index)));
      const twice = JSON.stringify(indexes.map((index) => filingsOf(index)));
      expect(twice).toBe(once);
      expect(once.length).toBeGreaterThan(1_000);
      const other = JSON.stringify(indexes.map((index) => filingsOf(index, 'another-seed')));
      expect(other).not.toBe(once);
    },
  );

  it('belong to companies, and hold together: incorporation first, in order, within the company’s life', () => {
    let companies = 0;
    for (const index of [...SMALL, ...FULL]) {
      const entity = generatedEntity(index);
      const filings = companyFilings(SANDBOX_SEED, entity);
      if (!isCompanyType(entity.entityTypeCode)) {
        expect(filings, entity.entityTypeCode).toEqual([]);
        continue;
      }
      companies++;
      expect(filings[0]).toMatchObject({ filingCode: 'INC', registrationDate: entity.registrationDate });
      const times = filings.map((filing) => parseNzDateTime(filing.registrationDate)!);
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      expect(Math.min(...times)).toBeGreaterThanOrEqual(parseNzDateTime(entity.registrationDate)!);
      expect(Math.max(...times)).toBeLessThanOrEqual(parseNzDateTime(entity.lastUpdatedDate)!);
      filings.forEach((filing, i) => {
        const filingId = `${entity.nzbn}-${String(i + 1).padStart(3, '0')}`;
        expect(filing).toMatchObject({ filingId, entityName: entity.entityName });
        expect(filing.filingCode in FILING_CODES).toBe(true);
        expect(filing.attachments).toEqual([
          { documentId: `${filingId}-1`, documentType: filing.filingCode },
        ]);
      });
      const returns = filings.filter((filing) => filing.filingCode === 'AR');
      const last = entity['company-details']?.annualReturnLastFiled ?? null;
      if (last === null) expect(returns).toEqual([]);
      else expect(returns.at(-1)!.registrationDate).toBe(last);
    }
    expect(companies).toBeGreaterThan(100);
  });

  it('give some companies trading in 2020 the published business debt hibernation documents', () => {
    const codes = new Set(
      Array.from({ length: 3_000 }, (_, index) => filingsOf(index)).flatMap((filings) =>
        filings.map((filing) => filing.filingCode),
      ),
    );
    expect(codes.has('BDHNOTICE')).toBe(true);
    expect(
      [...codes].filter((code) => (DOCUMENT_TYPES as readonly string[]).includes(code)).length,
    ).toBeGreaterThan(1);
  });

  it('are the fixed test cases’ too (a company has them, a sole trader none), and their documents the same bytes', () => {
    const company = sandboxFilings('9429000001007');
    expect(company[0]).toMatchObject({ filingCode: 'INC', filingId: '9429000001007-001' });
    expect(sandboxFilings('9429000001144')).toEqual([]);
    expect(sandboxFilings('9429000009997')).toEqual([]);
    const lines = generatedDocumentLines(
      company[0]!,
      '9429000001007',
      company[0]!.attachments[0]!.documentId,
    );
    expect(onePagePdf(lines).equals(onePagePdf(lines))).toBe(true);
    expect(onePagePdf(lines).subarray(0, 5).toString()).toBe('%PDF-');
  });
});
