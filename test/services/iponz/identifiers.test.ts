import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CASE_NUMBER_RANGES,
  CLIENT_ID_RANGE,
  caseKindOf,
  caseNumberAt,
  caseNumberFrom,
  clientIdFrom,
  documentIdentifierFrom,
  isCaseNumber,
  isDocumentIdentifier,
  parseCaseNumber,
  parseClientId,
  parseDocumentIdentifier,
  parsePctApplicationNumber,
  parsePctPublicationNumber,
  pctApplicationNumber,
  pctPublicationNumber,
} from '../../../src/services/iponz/domain/identifiers.ts';
import type { CaseKind } from '../../../src/services/iponz/domain/renewals.ts';
import { broken } from '../../support/rules.ts';

const kinds: CaseKind[] = ['patent', 'trademark', 'design'];

describe('case numbers and client ids', () => {
  it('are positive whole numbers of at most 9 digits, without sign or leading zeros', () => {
    expect(parseCaseNumber('trademark', '1012345')).toBe(1_012_345);
    expect(parseCaseNumber('design', '1')).toBe(1);
    expect(parseClientId('999999999')).toBe(999_999_999);
    for (const text of ['', '0', '0123', '-5', '+5', '12.0', '1e6', ' 12', '1234567890', '１２'])
      expect(isCaseNumber(text), text).toBe(false);
  });

  it('name the path parameter of their kind when refused', () => {
    expect(broken(() => parseCaseNumber('patent', 'abc')).field).toBe('patent-number');
    expect(broken(() => parseCaseNumber('trademark', '0')).field).toBe('trademark-number');
    expect(broken(() => parseCaseNumber('design', '')).field).toBe('design-number');
    expect(broken(() => parseCaseNumber('design', 'x', 'DesignIdentifier')).field).toBe('DesignIdentifier');
    expect(broken(() => parseClientId('01'))).toEqual({
      field: 'client-id',
      rule: 'must be a positive whole number of at most 9 digits, without leading zeros',
    });
  });

  it('come from random bytes inside their kind’s sandbox range, and the range tells the kind (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.uint8Array({ minLength: 6, maxLength: 6 }), (kind, bytes) => {
        const number = caseNumberFrom(kind, bytes);
        const { first, last } = CASE_NUMBER_RANGES[kind];
        expect(number >= first && number <= last).toBe(true);
        expect(parseCaseNumber(kind, String(number))).toBe(number);
        expect(caseKindOf(number)).toBe(kind);
        const id = clientIdFrom(bytes);
        expect(id >= CLIENT_ID_RANGE.first && id <= CLIENT_ID_RANGE.last).toBe(true);
        expect(parseClientId(String(id))).toBe(id);
      }),
    );
    expect(caseNumberFrom('design', new Uint8Array(6))).toBe(400_000);
    expect(caseNumberFrom('design', new Uint8Array(6).fill(255))).toBe(400_000 + ((2 ** 48 - 1) % 100_000));
    expect(() => caseNumberFrom('patent', new Uint8Array(5))).toThrow(RangeError);
  });

  it('are allocated in sequence within the range, and not past it', () => {
    expect(caseNumberAt('patent', 0)).toBe(500_000);
    expect(caseNumberAt('trademark', 599_999)).toBe(1_599_999);
    expect(caseNumberAt('design', 99_999)).toBe(499_999);
    expect(() => caseNumberAt('design', 100_000)).toThrow(RangeError);
    expect(() => caseNumberAt('design', -1)).toThrow(RangeError);
    expect(caseKindOf(42)).toBeNull();
  });
});

describe('PCT numbers', () => {
  it('read PCT/CCYYYY/NNNNNN and WO/YYYY/NNNNNN in either case, written in upper case', () => {
    expect(parsePctApplicationNumber('PCT/NZ2019/050123')).toEqual({
      office: 'NZ',
      year: 2019,
      serial: '050123',
      text: 'PCT/NZ2019/050123',
    });
    expect(parsePctApplicationNumber('pct/au2020/000001').text).toBe('PCT/AU2020/000001');
    expect(parsePctPublicationNumber('wo/2020/123456')).toBe('WO/2020/123456');
    expect(pctApplicationNumber('us', 2021, 42)).toBe('PCT/US2021/000042');
    expect(pctPublicationNumber(2022, 7)).toBe('WO/2022/000007');
  });

  it('refuse other shapes and years before 1978, naming the element', () => {
    for (const text of [
      'PCT/NZ19/050123',
      'PCT/N2019/050123',
      'PCT/NZ2019/50123',
      'NZ2019/050123',
      'PCT/NZ2019/0501234',
    ])
      expect(broken(() => parsePctApplicationNumber(text))).toEqual({
        field: 'InternationalApplicationNumber',
        rule: 'must be PCT/CCYYYY/NNNNNN (office, year, six digits)',
      });
    expect(broken(() => parsePctApplicationNumber('PCT/NZ1977/000001')).rule).toBe(
      'must have a year from 1978',
    );
    expect(broken(() => parsePctPublicationNumber('WO/20/123456')).field).toBe(
      'InternationalPublicationNumber',
    );
    expect(broken(() => parsePctPublicationNumber('WO/1970/123456')).rule).toBe('must have a year from 1978');
  });
});

describe('document identifiers', () => {
  it('are 16 hex digits like the published 090000018087a2ea, read in either case, written in lower', () => {
    expect(parseDocumentIdentifier('090000018087a2ea')).toBe('090000018087a2ea');
    expect(parseDocumentIdentifier('090000018087A2EA')).toBe('090000018087a2ea');
    for (const text of ['090000018087a2e', '090000018087a2eaa', '090000018087a2eg', '', '0x0000018087a2ea'])
      expect(broken(() => parseDocumentIdentifier(text))).toEqual({
        field: 'ObjectIdentifier',
        rule: 'must be 16 hexadecimal digits',
      });
  });

  it('come from 7 random bytes behind the 09 prefix, distinct for distinct bytes (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 7, maxLength: 7 }),
        fc.uint8Array({ minLength: 7, maxLength: 7 }),
        (a, b) => {
          const id = documentIdentifierFrom(a);
          expect(isDocumentIdentifier(id)).toBe(true);
          expect(id.startsWith('09')).toBe(true);
          expect(parseDocumentIdentifier(id)).toBe(id);
          expect(id === documentIdentifierFrom(b)).toBe(Buffer.from(a).equals(Buffer.from(b)));
        },
      ),
    );
    expect(documentIdentifierFrom(Uint8Array.from([0, 0, 1, 0x80, 0x87, 0xa2, 0xea]))).toBe(
      '090000018087a2ea',
    );
    expect(() => documentIdentifierFrom(new Uint8Array(6))).toThrow(RangeError);
  });
});
