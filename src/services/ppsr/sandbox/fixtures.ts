/**
 * The sandbox's fixed test cases: the same registration numbers, parties and PIN in every sandbox,
 * one per collateral type (all registered and in force, each found by its own kind of search) and one
 * per status (discharged, expired). Listed in the service's README. Their financing statement PIN is
 * `FIXTURE_PIN`, so any organisation can amend, renew and discharge them (header
 * `Financing-Statement-PIN`). A seed never rewrites a statement that exists: changes made to them stay
 * until the sandbox is reset.
 */
import { addYears, nzDate } from '../../../platform/calendar.ts';
import type { Collateral, CollateralType } from '../domain/collateral.ts';
import type { Debtor, SecuredParty } from '../domain/parties.ts';
import { withVinCheckCharacter } from '../domain/vehicles.ts';
import type { GeneratedStatement } from '../store/seed.ts';

export const FIXTURE_PIN = '20221101';

const LENDER: SecuredParty = {
  name: 'Sandbox Finance Limited',
  email: 'securities@sandbox-finance.example.nz',
};
const person: Debtor = {
  debtorType: 'person',
  firstName: 'Aroha',
  lastName: 'Fixture',
  dateOfBirth: '1984-02-29',
};
const trust: Debtor = {
  debtorType: 'organisation',
  organisationName: 'Fixture Family Trust',
  organisationType: 'TRUST',
};

/** VIN with a valid check character: 1FT + fixed body. */
export const FIXTURE_VIN = withVinCheckCharacter('1FTFW1E5', 'AFA12345');
export const FIXTURE_PLATE = 'FIX123';
export const FIXTURE_AIRCRAFT_SERIAL = 'FIX-208B-5501';

const description = (type: CollateralType): Collateral => ({
  collateralType: type,
  description: `Fixture collateral: ${type.toLowerCase().replaceAll('_', ' ')}`,
});

const COLLATERALS: Record<CollateralType, Collateral> = {
  GOODS_LIVESTOCK: description('GOODS_LIVESTOCK'),
  GOODS_CROPS: description('GOODS_CROPS'),
  DOCUMENTS_OF_TITLE: description('DOCUMENTS_OF_TITLE'),
  CHATTEL_PAPER: description('CHATTEL_PAPER'),
  INVESTMENT_SECURITIES: description('INVESTMENT_SECURITIES'),
  NEGOTIABLE_INSTRUMENTS: description('NEGOTIABLE_INSTRUMENTS'),
  MONEY: description('MONEY'),
  INTANGIBLES: description('INTANGIBLES'),
  AAPP: { collateralType: 'AAPP' },
  AAPP_EXCEPT: {
    collateralType: 'AAPP_EXCEPT',
    description: 'All present and after-acquired personal property except motor vehicles',
  },
  GOODS_OTHER: description('GOODS_OTHER'),
  GOODS_MOTOR_VEHICLES: {
    collateralType: 'GOODS_MOTOR_VEHICLES',
    motorVehicles: [
      { make: 'Ford', model: 'F-150', year: 2010, vin: FIXTURE_VIN, registrationPlate: FIXTURE_PLATE },
    ],
  },
  GOODS_AIRCRAFT: {
    collateralType: 'GOODS_AIRCRAFT',
    aircraft: [
      { manufacturer: 'Cessna', model: '208B Grand Caravan', serialNumber: FIXTURE_AIRCRAFT_SERIAL },
    ],
  },
};

/** `FIX` + two letters for the collateral type or status + padding: 16 characters. */
const number = (tag: string) => `FIX${tag}`.padEnd(16, '0');

export interface Fixture {
  registrationNumber: string;
  what: string;
}

/**
 * The fixtures as statements, their dates relative to `now`; `company` is a company of the sandbox
 * business number register (the organisation debtor of the motor vehicle fixture).
 */
export function fixtureStatements(
  now: number,
  company: { name: string; nzbn: string } | undefined,
): GeneratedStatement[] {
  const day = 86_400_000;
  const organisation: Debtor = company
    ? {
        debtorType: 'organisation',
        organisationName: company.name,
        organisationType: 'COMPANY',
        nzbn: company.nzbn,
      }
    : trust;
  const statements: GeneratedStatement[] = [];
  const make = (
    tag: string,
    collateral: Collateral,
    debtor: Debtor,
    ageDays: number,
    change?: 'Discharged',
  ): void => {
    const registeredAt = new Date(Math.floor((now - ageDays * day) / 1000) * 1000);
    const expiryDate = addYears(nzDate(registeredAt.getTime()), 5);
    const document = { debtors: [debtor], securedParties: [LENDER], collaterals: [collateral] };
    const versions: GeneratedStatement['versions'] = [
      { change: 'Registered', at: registeredAt, expiryDate, document },
    ];
    let dischargedAt: Date | null = null;
    if (change === 'Discharged') {
      dischargedAt = new Date(registeredAt.getTime() + 30 * day);
      versions.push({ change: 'Discharged', at: dischargedAt, expiryDate, document });
    }
    statements.push({
      registrationNumber: number(tag),
      registeredAt,
      versions,
      expiryDate,
      dischargedAt,
      pin: FIXTURE_PIN,
    });
  };
  for (const [i, type] of (Object.keys(COLLATERALS) as CollateralType[]).entries()) {
    const debtor = type === 'GOODS_MOTOR_VEHICLES' ? organisation : i % 2 === 0 ? person : trust;
    make(`C${String(i + 1).padStart(2, '0')}`, COLLATERALS[type], debtor, 100 + i);
  }
  make('DISCHARGED', COLLATERALS.AAPP, person, 400, 'Discharged');
  make('EXPIRED', COLLATERALS.GOODS_OTHER, trust, 6 * 366);
  return statements;
}

/** What each fixture is, for the README and the seed's summary. */
export const FIXTURES: readonly Fixture[] = [
  ...(Object.keys(COLLATERALS) as CollateralType[]).map((type, i) => ({
    registrationNumber: number(`C${String(i + 1).padStart(2, '0')}`),
    what: `registered, collateral ${type}`,
  })),
  { registrationNumber: number('DISCHARGED'), what: 'discharged 30 days after registration' },
  { registrationNumber: number('EXPIRED'), what: 'expired (registered six years ago for five)' },
];
