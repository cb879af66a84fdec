import { describe, expect, it } from 'vitest';
import { NOTICE_DOCUMENTS } from '../../../src/services/disclose/domain/records.ts';
import {
  type DocumentOwner,
  documentContent,
} from '../../../src/services/disclose/sandbox/document-content.ts';
import { FIXTURES } from '../../../src/services/disclose/sandbox/fixtures.ts';
import {
  type GeneratedDocument,
  type GeneratedRegister,
  generateRegister,
} from '../../../src/services/disclose/sandbox/generator.ts';
import { OFFER_DOCUMENT_KINDS } from '../../../src/services/disclose/sandbox/generator-documents.ts';
import { documentPdf } from '../../../src/services/disclose/sandbox/pdf.ts';
import { SCALES } from '../../../src/services/disclose/sandbox/seed.ts';
import { testCompanies } from './support/companies.ts';
import { pdfLines } from './support/pdf-text.ts';

// The sandbox register's notices, documents and further offers, made without a database.
const now = new Date('2026-05-20T00:00:00Z');
const make = (scale: keyof typeof SCALES) =>
  generateRegister(testCompanies(), { ...SCALES[scale], now }, FIXTURES);

/** Every record with notices: its notices and documents, for the rules that hold for each. */
const records = (register: GeneratedRegister) => [
  ...register.schemes.map((s) => ({ number: s.schemeNumber, notices: s.notices, documents: s.documents })),
  ...register.offers.map((o) => ({ number: o.offerNumber, notices: o.notices, documents: o.documents })),
];

describe('the sandbox register at both scales', () => {
  for (const scale of ['small', 'full'] as const) {
    it(`${scale}: the same seed gives the same register, byte for byte`, () => {
      const [a, b] = [make(scale), make(scale)];
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      expect(a.schemes).toHaveLength(SCALES[scale].schemes);
      // Further offers of schemes come after the others.
      expect(a.offers.length).toBeGreaterThan(SCALES[scale].schemes + SCALES[scale].standaloneOffers);
    });

    it(`${scale}: every notice has documents of its own record, every notice document a notice`, () => {
      const register = make(scale);
      const all = records(register);
      const ids = all.flatMap((r) => [
        ...r.notices.map((n) => n.noticeRecId),
        ...r.documents.map((d) => d.documentRecId),
      ]);
      expect(new Set(ids).size).toBe(ids.length);
      let notices = 0;
      for (const record of all) {
        for (const notice of record.notices) {
          notices++;
          expect(notice.noticeDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
          expect(notice.recordedAt.getTime()).toBeLessThanOrEqual(now.getTime());
          expect(notice.summary).toMatch(/^The Financial Markets Authority /);
          const own = record.documents.filter((d) => d.noticeRecId === notice.noticeRecId);
          expect(own.length, notice.noticeRecId).toBeGreaterThan(0);
          expect(own[0]!.title).toBe(notice.noticeType);
        }
        for (const document of record.documents) {
          expect(document.documentType === NOTICE_DOCUMENTS).toBe(document.noticeRecId !== null);
          if (document.noticeRecId)
            expect(record.notices.map((n) => n.noticeRecId)).toContain(document.noticeRecId);
        }
      }
      // A few records have notices, not all.
      expect(notices).toBeGreaterThan(all.length / 20);
      expect(notices).toBeLessThan(all.length);
    });

    it(`${scale}: every offer has the kinds a real offer lodges`, () => {
      for (const [index, offer] of make(scale).offers.entries()) {
        const kinds = new Set(offer.documents.map((d) => d.documentType));
        const expected = OFFER_DOCUMENT_KINDS.map(([type]) => type).filter(
          (type) => offer.schemeNumber !== null || type !== 'statements-of-investment-policy-and-objectives',
        );
        // A fixture with fewer documents than kinds (OFR10003's one) has the first ones.
        const fixed = index < FIXTURES.length ? FIXTURES[index]!.documents! : expected.length;
        for (const type of expected.slice(0, fixed))
          expect(kinds.has(type), `${offer.offerNumber} ${type}`).toBe(true);
      }
    });
  }

  it('the fixed cases have the documented notices and further offers', () => {
    const register = make('small');
    const [first, , third] = register.schemes;
    expect(
      first!.notices.map(
        (n) => register.schemes[0]!.documents.filter((d) => d.noticeRecId === n.noticeRecId).length,
      ),
    ).toEqual([11, 1, 2]);
    expect(third!.notices).toHaveLength(1);
    expect(register.offers[2]!.notices).toHaveLength(2);
    expect(register.offers[0]!.notices).toEqual([]);
    const ofFirst = register.offers.filter((o) => o.schemeNumber === 'SCH10000').map((o) => o.offerNumber);
    expect(ofFirst).toEqual(['OFR10001', 'OFR10051', 'OFR10052']);
    // The examples of the OpenAPI document (schemas.ts) are these.
    expect(first!.notices[0]!.noticeRecId).toBe('DOC100013');
    expect(register.offers[2]!.notices[0]!.noticeRecId).toBe('DOC100067');
    expect(register.offers[0]!.documents[0]).toMatchObject({
      documentRecId: 'DOC100030',
      documentType: 'product-disclosure-statements',
    });
  });
});

describe('the sandbox documents', () => {
  const register = make('small');
  const offer = register.offers[0]!;
  const scheme = register.schemes[0]!;
  const fund = offer.funds[0]!;
  const samples: { owner: DocumentOwner; document: GeneratedDocument }[] = [
    ...offer.documents.map((document) => ({ owner: { kind: 'offer', offer } as const, document })),
    ...scheme.documents.map((document) => ({ owner: { kind: 'scheme', scheme } as const, document })),
    ...register.offers[2]!.documents.map((document) => ({
      owner: { kind: 'offer', offer: register.offers[2]! } as const,
      document,
    })),
    {
      owner: { kind: 'fund', fund, offer },
      document: {
        documentRecId: 'DOC9010001',
        documentType: 'fund-update-document',
        noticeRecId: null,
        title: 'Fund update',
        addedAt: fund.versions.at(-1)!.at,
      },
    },
  ];

  it('are PDFs of every type, the same bytes twice, saying what their type says', async () => {
    const types = new Set<string>();
    for (const { owner, document } of samples) {
      const content = documentContent(owner, document);
      const [a, b] = [await documentPdf(content), await documentPdf(documentContent(owner, document))];
      expect(a.equals(b), document.documentRecId).toBe(true);
      expect(a.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      const lines = pdfLines(a);
      expect(lines[0]).toBe(document.title);
      for (const section of content.sections) expect(lines, document.documentType).toContain(section.heading);
      expect(content.sections.length).toBeGreaterThan(0);
      types.add(document.documentType);
    }
    expect(types).toEqual(
      new Set([
        ...OFFER_DOCUMENT_KINDS.map(([type]) => type),
        'governing-documents',
        'manager-and-supervisor-consent-documents',
        NOTICE_DOCUMENTS,
        'fund-update-document',
      ]),
    );
  });

  it('a notice’s document states the notice; financial statements their figures', () => {
    const notice = scheme.notices[0]!;
    const first = scheme.documents.find((d) => d.noticeRecId === notice.noticeRecId)!;
    const content = documentContent({ kind: 'scheme', scheme }, first);
    expect(content.sections[0]!.rows).toContainEqual([
      'Notice',
      `${notice.noticeType} (${notice.noticeRecId})`,
    ]);
    expect(content.sections[1]!.paragraphs).toEqual([notice.summary]);
    const statements = offer.documents.find((d) => d.documentType === 'financial-statements')!;
    const figures = documentContent({ kind: 'offer', offer }, statements).sections[0]!.rows!;
    expect(figures.map(([label]) => label)).toEqual(['', 'Total assets', 'Total liabilities', 'Net assets']);
    for (const [, value] of figures.slice(1)) expect(value).toMatch(/^NZD [\d,]+ \/ NZD [\d,]+$/);
  });
});
