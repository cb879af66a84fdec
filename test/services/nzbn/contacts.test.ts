import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../../src/platform/random.ts';
import { isValidBankAccount, isValidIrdNumber } from '../../../src/services/nzbn/domain/identifiers.ts';
import { pickArea } from '../../../src/services/nzbn/sandbox/addresses.ts';
import {
  businessEmail,
  domainFor,
  domainKindFor,
  generateBankAccount,
  generateGstNumber,
  generateLandline,
  generateMobile,
  landlineAreaCode,
  websiteUrl,
} from '../../../src/services/nzbn/sandbox/contacts.ts';
import { generatePerson } from '../../../src/services/nzbn/sandbox/people.ts';
import { geography } from './support/geo-fixture.ts';

const area = (name: string) => {
  const found = geography.areas.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no area ${name}`);
  return found;
};

describe('phones', () => {
  it.each([
    ['Ponsonby West', '9'],
    ['Linden', '4'],
    ['Masterton Central', '6'],
    ['Hamilton Central', '7'],
    ['Westshore', '6'],
    ['Yaldhurst', '3'],
  ])('dials %s on 0%s', (name, code) => {
    expect(landlineAreaCode(area(name))).toBe(code);
  });

  it('writes landlines as seven digits not starting with 0 or 1, and mobiles on 021, 022 or 027', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = seeded('phones', seed);
        const landline = generateLandline(random, pickArea(random, geography));
        expect(landline.phoneCountryCode).toBe('64');
        expect(landline.phoneNumber).toMatch(/^[2-9]\d{6}$/);
        const mobile = generateMobile(random);
        expect(['21', '22', '27']).toContain(mobile.phoneAreaCode);
        expect(mobile.phoneNumber).toMatch(mobile.phoneAreaCode === '21' ? /^[1-9]\d{5,7}$/ : /^[1-9]\d{6}$/);
      }),
    );
  });
});

describe('domains, emails and websites', () => {
  it.each([
    ['Kowhai Ridge Plumbing', /^kowhai-?ridge-?plumbing\.(co\.nz|nz|com|net\.nz)$/],
    ["O'Brien & Sons", /^obrien-?and-?sons\./],
    ['Māori Tours', /^maori-?tours\./],
  ])('derives a domain from %s', (stem, pattern) => {
    const random = seeded('domain', stem);
    for (let i = 0; i < 20; i++) expect(domainFor(random, stem)).toMatch(pattern);
  });

  it('keeps .govt.nz to public bodies and .school.nz to schools', () => {
    expect(domainFor(seeded('d'), 'Hamilton City', domainKindFor('GovtLocal'))).toBe('hamiltoncity.govt.nz');
    expect(domainFor(seeded('d'), 'Ponsonby', domainKindFor('GovtEdu'))).toMatch(/\.school\.nz$/);
    expect(domainKindFor('I')).toBe('organisation');
    expect(domainKindFor('LTD')).toBe('business');
    expect(domainKindFor('Sole_Trader')).toBe('business');
  });

  it('writes emails on the business domain only', () => {
    const random = seeded('emails');
    for (let i = 0; i < 200; i++) {
      const email = businessEmail(random, 'kowhairidge.co.nz', generatePerson(random));
      expect(email).toMatch(/^[a-z0-9]+(\.[a-z0-9]+)?@kowhairidge\.co\.nz$/);
    }
    expect(websiteUrl(seeded('w'), 'kowhairidge.co.nz')).toMatch(/^https:\/\/(www\.)?kowhairidge\.co\.nz$/);
  });
});

describe('GST numbers and bank accounts', () => {
  it('generates GST numbers that pass the IRD check', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const gst = generateGstNumber(seeded('gst', seed));
        expect(gst).toMatch(/^\d{8,9}$/);
        expect(isValidIrdNumber(gst)).toBe(true);
      }),
    );
  });

  it('generates bank accounts in BB-bbbb-AAAAAAA-SS(S) form that pass their bank check', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const account = generateBankAccount(seeded('bank', seed));
        expect(account).toMatch(/^(01|02|03|06|12|38)-\d{4}-\d{7}-\d{2,3}$/);
        expect(isValidBankAccount(account)).toBe(true);
      }),
    );
  });
});
