/**
 * The sandbox's generated register: one financing statement per index, the same on every machine for
 * the same index and "now" (a seeded stream per index), with the life a real statement has had over
 * the last 15 years: registered, sometimes amended, renewed, discharged, or left to expire.
 *
 * Mixes (ours, shaped on a lender-heavy register): secured parties a dozen lenders of the sandbox
 * business number register (`lendersOf`); debtors 60% companies (names and numbers from the
 * sandbox business number register, through `OrganisationSource`), 6% trusts, partnerships and sole
 * traders (no business number), 34% persons; collateral 45% motor vehicles (1–3, a VIN with a valid check
 * character or a Japanese-import chassis number, most with a New Zealand plate), 25% all present and
 * after-acquired property, then goods, livestock, crops, intangibles, aircraft. Registrations grow towards
 * the present; 35% are discharged, 20% renewed once or more, 15% amended.
 */

import { addYears, nzDate } from '../../../platform/calendar.ts';
import { type Random, seeded } from '../../../platform/random.ts';
import type { Collateral, CollateralType, MotorVehicle } from '../domain/collateral.ts';
import { MAX_YEARS } from '../domain/dates.ts';
import type { Debtor, SecuredParty } from '../domain/parties.ts';
import { registrationNumberFrom } from '../domain/registration-number.ts';
import { withVinCheckCharacter } from '../domain/vehicles.ts';
import type { GeneratedStatement, GeneratedVersion } from '../store/seed.ts';
import type { StatementDocument } from '../store/statements.ts';

/** Companies of the sandbox business number register, by index (the same names and numbers). */
export interface OrganisationSource {
  readonly count: number;
  organisation(index: number): { name: string; nzbn: string };
  /** The secured parties statements name: lenders of that register (`lendersOf`); default a made-up few. */
  readonly lenders?: readonly SecuredParty[];
}

/** What makes a company's name a lender's. */
const LENDER_NAME = /\b(FINANCE|CAPITAL|LENDING|CREDIT|INVESTMENTS)\b/i;
const LENDERS = 12;
const LENDERS_LOOKED_AT = 5_000;

/**
 * The secured parties of the generated statements: companies of the business number register (the
 * same names) named as lenders are — finance, capital, lending, credit or investments —, the first
 * dozen of them among its first 5,000 companies (the same at both scales), or, without enough of them,
 * the first companies besides; each with a made-up email address for its verification statements.
 */
export function lendersOf(companies: readonly { name: string }[]): SecuredParty[] {
  const looked = companies.slice(0, LENDERS_LOOKED_AT);
  const named = looked.filter((company) => LENDER_NAME.test(company.name)).slice(0, LENDERS);
  const others = looked.filter((company) => !named.includes(company));
  const chosen = [...named, ...others.slice(0, Math.max(0, 5 - named.length))];
  return chosen.map(({ name }) => ({
    name,
    email: `ppsr@${name
      .toLowerCase()
      .replace(/ limited$/, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')}.example`,
  }));
}

export const HISTORY_YEARS = 15;
const DAY = 86_400_000;

const VEHICLES: readonly (readonly [make: string, model: string, wmi: string, weight: number])[] = [
  ['Toyota', 'Hilux', 'MR0', 9],
  ['Toyota', 'Corolla', 'JTN', 8],
  ['Toyota', 'RAV4', 'JTM', 7],
  ['Ford', 'Ranger', '6FP', 8],
  ['Mazda', 'CX-5', 'JM0', 5],
  ['Mazda', 'Demio', 'JM7', 3],
  ['Nissan', 'Leaf', 'SJN', 3],
  ['Honda', 'Fit', 'JHM', 4],
  ['Mitsubishi', 'Outlander', 'JMB', 4],
  ['Suzuki', 'Swift', 'JS2', 4],
  ['Hyundai', 'Tucson', 'KMH', 3],
  ['Kia', 'Sportage', 'KNA', 3],
  ['Volkswagen', 'Golf', 'WVW', 2],
  ['Holden', 'Commodore', '6G1', 2],
];
const CHASSIS_PREFIXES = ['NZE121', 'GP5', 'ZRE152', 'DE3FS', 'CBA-GE6', 'ACR50', 'NCP91', 'SK9'];
const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';
const LETTERS = 'ABCDEFGHJKLMNPRSTUVWXYZ';

const COLLATERALS: readonly (readonly [CollateralType, number])[] = [
  ['GOODS_MOTOR_VEHICLES', 45],
  ['AAPP', 25],
  ['GOODS_OTHER', 8],
  ['AAPP_EXCEPT', 4],
  ['GOODS_LIVESTOCK', 5],
  ['GOODS_CROPS', 3],
  ['INTANGIBLES', 3],
  ['CHATTEL_PAPER', 1.5],
  ['INVESTMENT_SECURITIES', 1.5],
  ['NEGOTIABLE_INSTRUMENTS', 1],
  ['DOCUMENTS_OF_TITLE', 1],
  ['MONEY', 1],
  ['GOODS_AIRCRAFT', 0.5],
];

const DESCRIPTIONS: Partial<Record<CollateralType, readonly string[]>> = {
  GOODS_OTHER: ['Forklift and warehouse racking', 'Commercial kitchen equipment', 'Dairy shed milking plant'],
  AAPP_EXCEPT: ['All present and after-acquired personal property except motor vehicles', 'Except livestock'],
  GOODS_LIVESTOCK: [
    'Dairy herd of 420 Friesian cows',
    'Breeding ewes and lambs',
    'Beef cattle on the property',
  ],
  GOODS_CROPS: ['Kiwifruit crop 2026 season', 'Apple crop, Hawke’s Bay orchard', 'Maize crop'],
  INTANGIBLES: ['Trade receivables and book debts', 'Intellectual property and licences'],
  CHATTEL_PAPER: ['Hire purchase agreements held'],
  INVESTMENT_SECURITIES: ['Shares held in listed companies'],
  NEGOTIABLE_INSTRUMENTS: ['Promissory notes'],
  DOCUMENTS_OF_TITLE: ['Bills of lading for imported goods'],
  MONEY: ['Cash held in the trust account'],
};

const FIRST_NAMES = [
  'Aroha',
  'Wiremu',
  'Mere',
  'Tane',
  'Olivia',
  'Jack',
  'Charlotte',
  'Noah',
  'Isla',
  'Leo',
  'Priya',
  'Wei',
  'Sione',
  'Losa',
  'Emma',
  'James',
];
const LAST_NAMES = [
  'Ngata',
  'Parata',
  'Smith',
  'Williams',
  'Brown',
  'Wilson',
  'Taylor',
  'Singh',
  'Chen',
  'Tuilagi',
  'Kaur',
  'Walker',
  'Thompson',
  'Nguyen',
  'Harris',
  'Te Whata',
];
const UNREGISTERED = ['Family Trust', 'Partnership', 'Contracting'];
const SECURED_PARTIES: readonly SecuredParty[] = [
  { name: 'Kiwi Motor Finance Limited', email: 'ppsr@kiwimotorfinance.example' },
  { name: 'Southern Cross Lending Limited', email: 'securities@southerncross-lending.example' },
  { name: 'Aotearoa Rural Bank', email: 'ppsr@aotearoa-rural.example' },
  { name: 'Harbour Equipment Leasing', email: 'registrations@harbour-leasing.example' },
  { name: 'Tasman Credit Union', email: 'ppsr@tasman-credit.example' },
];

const drawn = (random: Random, alphabet: string, length: number): string => {
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet[random.int(0, alphabet.length - 1)];
  return text;
};

function vehicle(random: Random, registeredYear: number): MotorVehicle {
  const [make, model, wmi] = random.weighted(VEHICLES.map((v) => [v, v[3]] as const));
  const year = Math.max(1990, registeredYear - random.int(0, 15));
  const result: MotorVehicle = { make, model, year };
  if (random.chance(0.7)) {
    result.vin = withVinCheckCharacter(`${wmi}${drawn(random, VIN_CHARS, 5)}`, drawn(random, VIN_CHARS, 8));
  } else {
    result.chassisNumber = `${random.pick(CHASSIS_PREFIXES)}-${String(random.int(1, 9_999_999)).padStart(7, '0')}`;
  }
  if (random.chance(0.85)) result.registrationPlate = `${drawn(random, LETTERS, 3)}${random.int(1, 999)}`;
  return result;
}

function collateral(random: Random, registeredYear: number): Collateral {
  const type = random.weighted(COLLATERALS);
  if (type === 'GOODS_MOTOR_VEHICLES') {
    const count = random.weighted([
      [1, 80],
      [2, 15],
      [3, 5],
    ] as const);
    return {
      collateralType: type,
      motorVehicles: Array.from({ length: count }, () => vehicle(random, registeredYear)),
    };
  }
  if (type === 'GOODS_AIRCRAFT') {
    return {
      collateralType: type,
      aircraft: [
        {
          manufacturer: 'Cessna',
          model: random.pick(['172S', '182T', '208B']),
          serialNumber: `${random.int(17_200_000, 20_899_999)}`,
        },
      ],
    };
  }
  const descriptions = DESCRIPTIONS[type];
  return descriptions
    ? { collateralType: type, description: random.pick(descriptions) }
    : { collateralType: type };
}

function debtor(random: Random, organisations: OrganisationSource): Debtor {
  const kind = random.next();
  if (kind < 0.6 && organisations.count > 0) {
    const { name, nzbn } = organisations.organisation(random.int(0, organisations.count - 1));
    return { debtorType: 'organisation', organisationName: name, organisationType: 'COMPANY', nzbn };
  }
  if (kind < 0.66) {
    const type = random.pick(['TRUST', 'PARTNERSHIP', 'SOLE_TRADER'] as const);
    const name = `${random.pick(LAST_NAMES)} ${UNREGISTERED[['TRUST', 'PARTNERSHIP', 'SOLE_TRADER'].indexOf(type)]}`;
    return { debtorType: 'organisation', organisationName: name, organisationType: type };
  }
  const year = random.int(1945, 2005);
  const dateOfBirth = `${year}-${String(random.int(1, 12)).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}`;
  return {
    debtorType: 'person',
    firstName: random.pick(FIRST_NAMES),
    lastName: random.pick(LAST_NAMES),
    dateOfBirth,
  };
}

/** The statement at `index`, its history ending at or before `now` (epoch ms). */
export function generateStatement(
  index: number,
  now: number,
  organisations: OrganisationSource,
): GeneratedStatement {
  const random = seeded('ppsr', index);
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) bytes[i] = random.int(0, 255);
  // Registrations grow towards the present: the square root puts more of them in recent years.
  const age = (1 - Math.sqrt(random.next())) * HISTORY_YEARS * 365.25 * DAY;
  const registeredAt = new Date(Math.floor((now - age) / 1000) * 1000);
  const registeredDate = nzDate(registeredAt.getTime());
  const registeredYear = Number(registeredDate.slice(0, 4));
  const years = random.chance(0.8) ? MAX_YEARS : random.int(1, MAX_YEARS - 1);
  let expiryDate = addYears(registeredDate, years);
  const document: StatementDocument = {
    debtors: Array.from({ length: random.chance(0.12) ? 2 : 1 }, () => debtor(random, organisations)),
    securedParties: [random.pick(organisations.lenders?.length ? organisations.lenders : SECURED_PARTIES)],
    collaterals: Array.from({ length: random.chance(0.1) ? 2 : 1 }, () => collateral(random, registeredYear)),
  };
  const versions: GeneratedVersion[] = [{ change: 'Registered', at: registeredAt, expiryDate, document }];
  let at = registeredAt.getTime();
  let dischargedAt: Date | null = null;
  const until = (date: string) => Math.min(now, Date.parse(`${date}T00:00:00+12:00`));
  // Each step happens between the last change and the current expiry (or now).
  const step = () => at + Math.floor(random.next() * Math.max(0, until(expiryDate) - at) * 0.9);
  if (random.chance(0.15)) {
    at = step();
    const amended: StatementDocument = {
      ...versions.at(-1)!.document,
      collaterals: [...document.collaterals, collateral(random, registeredYear)],
    };
    versions.push({ change: 'Amended', at: new Date(at), expiryDate, document: amended });
  }
  for (let renewals = 0; renewals < 2 && random.chance(0.2); renewals++) {
    at = step();
    const renewedOn = nzDate(at);
    const next = addYears(renewedOn, MAX_YEARS);
    if (next <= expiryDate) break;
    expiryDate = next;
    versions.push({ change: 'Renewed', at: new Date(at), expiryDate, document: versions.at(-1)!.document });
  }
  if (random.chance(0.35)) {
    at = step();
    dischargedAt = new Date(at);
    versions.push({
      change: 'Discharged',
      at: dischargedAt,
      expiryDate,
      document: versions.at(-1)!.document,
    });
  }
  return {
    registrationNumber: registrationNumberFrom(bytes),
    registeredAt,
    versions: versions.filter((v) => v.at.getTime() <= now),
    expiryDate,
    dischargedAt,
  };
}
