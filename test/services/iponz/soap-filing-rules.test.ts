import { describe, expect, it } from 'vitest';
import { RuleError } from '../../../src/platform/errors.ts';
import {
  type ApplicantDetails,
  checkNewZealandApplicant,
  checkPatentApplication,
  checkTradeMarkApplication,
  type InternationalApplication,
  nationalPhaseDeadline,
  type PatentApplicationInput,
  patentFees,
  type TradeMarkApplicationInput,
  tradeMarkFees,
} from '../../../src/services/iponz/domain/applications.ts';
import {
  internationalApplication,
  PAST_DEADLINE_SERIAL,
} from '../../../src/services/iponz/sandbox/international-applications.ts';

/** The applications' rules: each field's rule names the field; the national phase's register checks; fees. */
const TODAY = '2026-06-15';

const tradeMark = (over: Partial<TradeMarkApplicationInput> = {}): TradeMarkApplicationInput => ({
  transactionCode: 'Trade Mark E-Filing',
  reference: 'TM-1',
  applicationContact: 'Applicant',
  applicant: { clientId: 100000 },
  registrationOfficeCode: 'NZ',
  intendedUseCode: 'YAPP',
  markTitle: 'KAURI GOLD',
  classes: [
    { classNumber: 9, description: 'Computer software' },
    { classNumber: 42, description: 'Software design' },
  ],
  ...over,
});

const international: InternationalApplication = internationalApplication(0, TODAY);

const patent = (over: Partial<PatentApplicationInput> = {}): PatentApplicationInput => ({
  transactionCode: 'Patent E-Filing',
  reference: 'P-1',
  applicationContact: 'Applicant',
  applicant: {
    details: {
      name: 'Aroha Ltd',
      clientType: 'Organisation',
      line1: '1 Queen St',
      city: 'Auckland',
      countryCode: 'NZ',
    },
  },
  internationalApplicationNumber: international.internationalApplicationNumber,
  examinationRequested: true,
  attachments: [],
  ...over,
});

const fieldOf = (work: () => unknown): string => {
  try {
    work();
  } catch (error) {
    if (error instanceof RuleError) return error.field;
    throw error;
  }
  return '(none)';
};

describe('trade mark application', () => {
  it('a good one passes', () => {
    expect(() => checkTradeMarkApplication(tradeMark())).not.toThrow();
  });
  it.each([
    [{ transactionCode: 'Patent E-Filing' }, 'TransactionCode'],
    [{ reference: '  ' }, 'ApplicationReference'],
    [{ reference: 'x'.repeat(256) }, 'ApplicationReference'],
    [{ applicationContact: 'Owner' }, 'ApplicationContact'],
    [{ applicationContact: 'Representative' }, 'AgentClientIdentifier'],
    [{ registrationOfficeCode: 'AU' }, 'RegistrationOfficeCode'],
    [{ intendedUseCode: 'MAYBE' }, 'IntendedUseCode'],
    [{ markTitle: '' }, 'MarkTitle'],
    [{ classes: [] }, 'GoodsAndServices'],
    [{ classes: [{ classNumber: 46, description: 'x' }] }, 'GoodsAndServices.ClassDescription.0.ClassNumber'],
    [
      {
        classes: [
          { classNumber: 9, description: 'x' },
          { classNumber: 9, description: 'y' },
        ],
      },
      'GoodsAndServices.ClassDescription.1.ClassNumber',
    ],
    [{ classes: [{ classNumber: 9, description: ' ' }] }, 'GoodsAndServices.ClassDescription.0.Description'],
    [{ transactionIdentifier: '' }, 'TransactionIdentifier'],
  ] as [Partial<TradeMarkApplicationInput>, string][])('%j breaks %s', (over, field) => {
    expect(fieldOf(() => checkTradeMarkApplication(tradeMark(over)))).toBe(field);
  });
  const overseas = (over: Partial<ApplicantDetails> = {}) => ({
    details: {
      name: 'Roo Pty',
      clientType: 'Organisation' as const,
      line1: '1 George St',
      city: 'Sydney',
      postcode: '2000',
      countryCode: 'AU',
      ...over,
    },
  });
  it('an overseas applicant may apply for a trade mark (only the PCT national phase needs New Zealand)', () => {
    expect(() => checkTradeMarkApplication(tradeMark({ applicant: overseas() }))).not.toThrow();
    expect(() =>
      checkTradeMarkApplication(
        tradeMark({ applicant: overseas({ postcode: 'SW1A 1AA', countryCode: 'GB' }) }),
      ),
    ).not.toThrow();
  });
  it.each([
    [{ countryCode: 'Au' }, 'Applicant.Address.CountryCode'],
    [{ countryCode: 'AUS' }, 'Applicant.Address.CountryCode'],
    [{ postcode: ' ' }, 'Applicant.Address.Postcode'],
    [{ postcode: '2000/1' }, 'Applicant.Address.Postcode'],
    [{ postcode: '1234567890123' }, 'Applicant.Address.Postcode'],
    [{ postcode: '600', countryCode: 'NZ', city: 'Auckland' }, 'Applicant.Address.Postcode'],
  ] as [Partial<ApplicantDetails>, string][])('applicant details %j break %s', (over, field) => {
    expect(fieldOf(() => checkTradeMarkApplication(tradeMark({ applicant: overseas(over) })))).toBe(field);
  });
  it('a PCT national phase request needs New Zealand applicant details', () => {
    expect(
      fieldOf(() => checkPatentApplication(patent({ applicant: overseas() }), international, false, TODAY)),
    ).toBe('Applicant.Address.CountryCode');
    expect(fieldOf(() => checkNewZealandApplicant({ clientId: 100000 }, 'AU'))).toBe(
      'Applicant.ClientIdentifier',
    );
    expect(() => checkNewZealandApplicant({ clientId: 100000 }, 'NZ')).not.toThrow();
  });
  it('fee per class', () => {
    expect(tradeMarkFees(3)).toEqual([{ feeCode: 'IPONZ_TRADE_MARK_APPLICATION', quantity: 3 }]);
  });
});

describe('PCT national phase', () => {
  it('a published application within its deadline passes, the number canonical', () => {
    const lower = patent({
      internationalApplicationNumber: international.internationalApplicationNumber.toLowerCase(),
    });
    expect(checkPatentApplication(lower, international, false, TODAY).text).toBe(
      international.internationalApplicationNumber,
    );
  });
  it('refuses an unknown, an entered, a late one, and a malformed number', () => {
    expect(fieldOf(() => checkPatentApplication(patent(), undefined, false, TODAY))).toBe(
      'InternationalApplicationNumber',
    );
    expect(() => checkPatentApplication(patent(), international, true, TODAY)).toThrow(/already entered/);
    const late = internationalApplication(PAST_DEADLINE_SERIAL - 900_000, TODAY);
    expect(() =>
      checkPatentApplication(
        patent({ internationalApplicationNumber: late.internationalApplicationNumber }),
        late,
        false,
        TODAY,
      ),
    ).toThrow(/deadline/);
    expect(() =>
      checkPatentApplication(
        patent({ internationalApplicationNumber: 'PCT/NZ26/1' }),
        international,
        false,
        TODAY,
      ),
    ).toThrow(/PCT\/CCYYYY\/NNNNNN/);
  });
  it('the deadline is the last day of 31 months from priority', () => {
    expect(nationalPhaseDeadline('2024-01-31')).toBe('2026-08-31');
    const last = patent();
    const on = { ...international, priorityDate: '2023-11-15' };
    expect(() => checkPatentApplication(last, on, false, '2026-06-15')).not.toThrow();
    expect(() => checkPatentApplication(last, on, false, '2026-06-16')).toThrow(/deadline/);
  });
  it('every sandbox application before the deadline serial is enterable on the seed day, the rest are not', () => {
    for (let i = 0; i < 100; i++) {
      const a = internationalApplication(i, TODAY);
      const ok = nationalPhaseDeadline(a.priorityDate) >= TODAY;
      expect(ok, a.internationalApplicationNumber).toBe(i < PAST_DEADLINE_SERIAL - 900_000);
      expect(a.priorityDate <= TODAY && a.internationalFilingDate <= TODAY).toBe(true);
    }
  });
  it('fees: the application, and examination when requested', () => {
    expect(patentFees(false)).toEqual([{ feeCode: 'IPONZ_PATENT_APPLICATION', quantity: 1 }]);
    expect(patentFees(true).map((f) => f.feeCode)).toEqual([
      'IPONZ_PATENT_APPLICATION',
      'IPONZ_PATENT_EXAMINATION',
    ]);
  });
  it('names the wrong contact and title', () => {
    expect(
      fieldOf(() => checkPatentApplication(patent({ transactionCode: 'x' }), international, false, TODAY)),
    ).toBe('TransactionCode');
    expect(
      fieldOf(() => checkPatentApplication(patent({ reference: '' }), international, false, TODAY)),
    ).toBe('PatentApplicationReference');
    expect(fieldOf(() => checkPatentApplication(patent({ title: '' }), international, false, TODAY))).toBe(
      'PatentTitle',
    );
  });
});
