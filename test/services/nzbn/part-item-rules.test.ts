import { describe, expect, it } from 'vitest';
import { RuleError } from '../../../src/platform/errors.ts';
import type { OrganisationPart } from '../../../src/services/nzbn/domain/organisation-part.ts';
import {
  partAddress,
  partEmail,
  partMetadata,
  partPurpose,
  shareWith,
  stopSharing,
} from '../../../src/services/nzbn/domain/organisation-part-items.ts';

/** The rules of an organisation part's items and of its share list (domain/organisation-part-items.ts). */
const NOW = '2026-03-02T09:00:00.000+1300';
const context = { id: '10000000001', now: NOW, at: 'addresses.2.' };

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof RuleError) return { field: error.field, message: error.rule };
    throw error;
  }
  return undefined;
};

describe('items', () => {
  it('read the published values in any case, and name the field of a value outside them', () => {
    expect(partAddress({ addressType: 'invoice', address1: '1 Road' }, context)).toEqual({
      uniqueIdentifier: '10000000001',
      startDate: NOW,
      careOf: null,
      address1: '1 Road',
      address2: null,
      address3: null,
      address4: null,
      postCode: null,
      countryCode: 'NZ',
      addressType: 'INVOICE',
      pafId: null,
    });
    expect(refusal(() => partAddress({ addressType: 'OFFICE', address1: '1 Road' }, context))).toEqual({
      field: 'addresses.2.addressType',
      message: 'must be one of POSTAL, PHYSICAL, DELIVERY, INVOICE',
    });
    expect(partPurpose({ purpose: 'e_invoicing', purposeDescription: ' ' }, { id: '1', now: NOW })).toEqual({
      uniqueIdentifier: '1',
      purpose: 'E_INVOICING',
      purposeDescription: null,
    });
    expect(refusal(() => partPurpose({ purpose: 'SALES' }, { id: '1', now: NOW }))?.field).toBe('purpose');
    expect(
      partEmail({ emailAddress: 'a@b.example', emailPurpose: 'other' }, { id: '1', now: NOW }),
    ).toMatchObject({
      emailPurpose: 'OTHER',
      startDate: NOW,
    });
    expect(
      refusal(() => partEmail({ emailAddress: 'a@b.example', emailPurpose: 'X' }, { id: '1', now: NOW })),
    ).toEqual({ field: 'emailPurpose', message: 'must be one of INVOICE_ADDRESS, OTHER' });
  });

  it('take a start date given in any register form, else the one they are given', () => {
    expect(
      partMetadata({ key: 'k', value: 'v', startDate: '2024-02-01' }, { id: '1', now: NOW }).startDate,
    ).toBe('2024-02-01T00:00:00.000+1300');
    expect(partMetadata({ key: 'k', value: 'v' }, { id: '1', now: NOW }).startDate).toBe(NOW);
    expect(
      refusal(() => partMetadata({ key: 'k', value: 'v', startDate: 'soon' }, { id: '1', now: NOW }))?.field,
    ).toBe('startDate');
  });
});

const part = (privacy: OrganisationPart['privacy'], shared: string[] = []) =>
  ({
    parentNzbn: '9429000003025',
    privacy,
    'nzbn-list': shared.map((nzbn) => ({ nzbn })),
  }) as OrganisationPart;
const A = '9429000001007';
const B = '9429000001144';

describe('the share list', () => {
  it('shares a private or shared part, each entity once, the new ones last', () => {
    expect(shareWith(part('PRIVATE'), [A])).toMatchObject({ privacy: 'SHARED', 'nzbn-list': [{ nzbn: A }] });
    expect(shareWith(part('SHARED', [A]), [B, A])['nzbn-list']).toEqual([{ nzbn: A }, { nzbn: B }]);
  });

  it('refuses a public part, the part’s own entity and more than 100 entities, naming nzbns', () => {
    expect(refusal(() => shareWith(part('PUBLIC'), [A]))?.field).toBe('nzbns');
    expect(refusal(() => shareWith(part('PRIVATE'), ['9429000003025']))).toEqual({
      field: 'nzbns',
      message: `"9429000003025" is the part's own entity, which always sees it`,
    });
    const many = Array.from({ length: 101 }, (_, i) => String(i));
    expect(refusal(() => shareWith(part('PRIVATE'), many))).toEqual({
      field: 'nzbns',
      message: 'a part is shared with at most 100 entities',
    });
  });

  it('stops sharing (numbers not on the list are ignored); a shared part left with none is private', () => {
    expect(stopSharing(part('SHARED', [A, B]), [A, '9429000009997'])).toMatchObject({
      privacy: 'SHARED',
      'nzbn-list': [{ nzbn: B }],
    });
    expect(stopSharing(part('SHARED', [B]), [B])).toMatchObject({ privacy: 'PRIVATE', 'nzbn-list': [] });
    expect(stopSharing(part('PUBLIC'), [A])).toMatchObject({ privacy: 'PUBLIC', 'nzbn-list': [] });
  });
});
