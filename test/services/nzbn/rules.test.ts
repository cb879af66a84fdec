import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FEE_SCHEDULE, quote } from '../../../src/billing/domain/fee-schedule.ts';
import { arrayLiteral, copyField } from '../../../src/platform/db/copy-text.ts';
import { RuleError } from '../../../src/platform/errors.ts';
import {
  readRequestedStatus,
  roleChangeEventType,
  statusChangeProblem,
} from '../../../src/services/nzbn/domain/changes.ts';
import { organisationPartFee } from '../../../src/services/nzbn/domain/fees.ts';
import { statusPeriods } from '../../../src/services/nzbn/domain/history.ts';
import { gstItem, readDate, tradingAreaItem } from '../../../src/services/nzbn/domain/items.ts';
import { partViewFor, partVisibleTo } from '../../../src/services/nzbn/domain/organisation-part.ts';
import { hidesItems, publicView } from '../../../src/services/nzbn/domain/privacy.ts';
import { replaceRoles } from '../../../src/services/nzbn/domain/roles.ts';
import { foldText, searchableText, searchWords } from '../../../src/services/nzbn/domain/search-text.ts';
import { generateEntityAt } from '../../../src/services/nzbn/sandbox/entity.ts';
import { geography } from './support/geo-fixture.ts';

const entity = (index: number) => generateEntityAt('rules', index, { geography });
const NOW = '2025-07-01T10:00:00.000+1200';

describe('public view', () => {
  it('leaves out exactly the items whose flag is set, and nothing when no flag covers a present item', () => {
    for (let index = 0; index < 400; index++) {
      const full = entity(index);
      const view = publicView(full);
      const p = full.privacySettings;
      if (!hidesItems(full)) expect(view).toBe(full);
      expect(view.phoneNumbers).toEqual(p.phonePrivateInformation ? [] : full.phoneNumbers);
      expect(view.gstNumbers).toEqual(p.gstNumberPrivateInformation ? [] : full.gstNumbers);
      expect(view.australianBusinessNumber).toBe(
        p.abnPrivateInformation ? null : full.australianBusinessNumber,
      );
      if (p.postalAddressPrivateInformation) {
        expect(view.addresses.addressList.some((a) => a.addressType === 'POSTAL')).toBe(false);
      }
      expect(view.privacySettings).toEqual(p);
      expect(hidesItems(view)).toBe(false);
    }
  });
});

describe('search words', () => {
  it('fold accents, apostrophes, case and punctuation the same way for names and terms', () => {
    expect(foldText("Ōtāhuhu O'Brien & Sons Ltd.")).toBe('otahuhu obrien sons ltd');
    expect(searchWords('  Kowhai-Ridge  kowhai ')).toEqual(['kowhai', 'ridge']);
    expect(searchWords('&&')).toEqual([]);
    const text = searchableText({
      entityName: 'Māui Holdings Limited',
      tradingNames: ['Maui Fish'],
      previousNames: ['Old Name Limited'],
      sourceRegisterUniqueIdentifier: '1234567',
      nzbn: '9429041925676',
    });
    expect(text).toBe('maui holdings limited maui fish old name limited 1234567 9429041925676');
  });

  it('every folded word is letters and digits only (safe in a prefix query)', () => {
    fc.assert(
      fc.property(fc.string(), (term) => searchWords(term).every((word) => /^[a-z0-9]+$/.test(word))),
    );
  });
});

describe('items', () => {
  it('check GST numbers, trading areas and dates, naming the field', () => {
    expect(gstItem({ gstNumber: '49-091-850' }, { id: '1', now: NOW }).gstNumber).toBe('049091850');
    expect(() => gstItem({ gstNumber: '49091851' }, { id: '1', now: NOW, at: 'gstNumbers.0.' })).toThrow(
      new RuleError('gstNumbers.0.gstNumber', 'wrong check digit'),
    );
    expect(tradingAreaItem({ tradingArea: "hawke's bay" }, { id: '1', now: NOW }).tradingArea).toBe(
      "Hawke's Bay",
    );
    expect(readDate('2024-02-01', NOW, 'startDate')).toBe('2024-02-01T00:00:00.000+1300');
    expect(() => readDate('yesterday', NOW, 'startDate')).toThrow(RuleError);
  });
});

describe('roles', () => {
  it('a role left out ends; a new one is appointed; changed roles are returned whole', () => {
    const current = entity(3).roles.filter((r) => r.roleStatus === 'ACTIVE');
    const ids = ['900', '901'];
    const { roles, changed } = replaceRoles(
      current,
      [{ roleType: 'Director', rolePerson: { firstName: 'Hemi', lastName: 'Walker' } }],
      NOW,
      () => ids.shift()!,
    );
    expect(roles).toHaveLength(current.length + 1);
    expect(changed).toHaveLength(current.length + 1);
    expect(roles.filter((r) => r.roleStatus === 'ACTIVE')).toEqual([
      expect.objectContaining({
        uniqueIdentifier: '900',
        roleType: 'Director',
        startDate: NOW,
        endDate: null,
      }),
    ]);
    expect(roleChangeEventType('Director')).toBe('ROLES_DIRECTOR');
    expect(roleChangeEventType('General Partner')).toBe('ROLES_PARTNER');
  });
});

describe('status requests and history', () => {
  it('only entities the register keeps may ask; closed is final', () => {
    const trader = { ...entity(0), entityTypeCode: 'Sole_Trader' as const, entityStatusCode: '50' as const };
    expect(readRequestedStatus('inactive')).toBe('90');
    for (const name of ['91', 'Removed/Closed', 'removed closed', 'RemovedClosed', 'Closed', ' CLOSED '])
      expect(readRequestedStatus(name), name).toBe('91');
    expect(readRequestedStatus('')).toBeUndefined();
    expect(readRequestedStatus('Removed')).toBeUndefined();
    // Names of every object's inherited properties are not statuses.
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'Con-structor'])
      expect(readRequestedStatus(name), name).toBeUndefined();
    expect(readRequestedStatus('60')).toBeUndefined();
    expect(statusChangeProblem(trader, '90')).toBeNull();
    expect(statusChangeProblem(trader, '50')).toMatch(/already/);
    expect(statusChangeProblem({ ...trader, entityStatusCode: '91' }, '50')).toMatch(/closed/);
    expect(statusChangeProblem({ ...trader, entityTypeCode: 'LTD' }, '90')).toMatch(/source register/);
  });

  it('derives the status periods of a generated entity that never changed', () => {
    const removed = { ...entity(0), entityStatusCode: '80' as const };
    const periods = statusPeriods(removed, []);
    expect(periods.map((p) => p.entityStatusCode)).toEqual(['50', '80']);
    expect(periods[0]!.endDate).toBe(periods[1]!.startDate);
    expect(periods[1]!.endDate).toBeNull();
  });
});

describe('organisation parts and fees', () => {
  it('visibility: public, the owner’s, and shared with listed entities', () => {
    // The published privacy values and share list (`nzbn-list`, `{nzbn}` each).
    const part = { parentNzbn: 'A', privacy: 'SHARED' as const, 'nzbn-list': [{ nzbn: 'B' }] };
    expect(partVisibleTo(part, new Set())).toBe(false);
    expect(partVisibleTo(part, new Set(['B']))).toBe(true);
    expect(partVisibleTo({ ...part, privacy: 'PRIVATE' }, new Set(['B']))).toBe(false);
    expect(partVisibleTo({ ...part, privacy: 'PUBLIC' }, new Set())).toBe(true);
    // An approved access request: the requester's holders see the part, whatever its privacy.
    const requested = { ...part, privacy: 'PRIVATE' as const, opn: 'P' };
    expect(partVisibleTo(requested, new Set(['C']))).toBe(false);
    expect(partVisibleTo(requested, new Set(['C']), new Set(['P']))).toBe(true);
    expect(partVisibleTo(requested, new Set(['C']), new Set(['Q']))).toBe(false);
    const full = { 'nzbn-list': [{ nzbn: 'B' }], parentNzbn: 'A' } as Parameters<typeof partViewFor>[0];
    expect(partViewFor(full, new Set(['B']))['nzbn-list']).toEqual([]);
    expect(partViewFor(full, new Set(['A']))['nzbn-list']).toEqual([{ nzbn: 'B' }]);
  });

  it('the first two parts are free; each one after costs NZ$5.00 plus GST', () => {
    expect(organisationPartFee(0)).toBeNull();
    expect(organisationPartFee(1)).toBeNull();
    expect(organisationPartFee(2)).toBe('NZBN_ORGANISATION_PART');
    expect(quote(DEFAULT_FEE_SCHEDULE, 'NZBN_ORGANISATION_PART', 'API')).toMatchObject({
      amountCents: 500,
      gstCents: 75,
    });
    expect(organisationPartFee(9)).not.toBeNull();
  });
});

describe('COPY text', () => {
  it('escapes what COPY and array literals need', () => {
    expect(copyField('a\\b\tc\nd')).toBe('a\\\\b\\tc\\nd');
    expect(copyField(null)).toBe('\\N');
    expect(arrayLiteral(['O"Brien', 'a\\b', 'x y'])).toBe('{"O\\"Brien","a\\\\b","x y"}');
  });
});
