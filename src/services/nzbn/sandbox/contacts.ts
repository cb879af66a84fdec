/**
 * Sandbox contact details and numbers: phones by region, email addresses and websites derived from the
 * business name, GST numbers with a valid IRD check digit and bank accounts that pass the payments
 * industry's check. Email addresses always sit on the business's own (invented) domain, never on a
 * public mail provider, so no generated address can belong to a real person's mailbox at such a provider.
 */

import type { Area } from '../../../platform/geography.ts';
import type { Random } from '../../../platform/random.ts';
import { ENTITY_TYPES, type EntityTypeCode } from '../domain/codes.ts';
import {
  type BankAccountParts,
  bankAccountRemainder,
  formatBankAccount,
  irdCheckDigit,
} from '../domain/identifiers.ts';
import type { Person } from './people.ts';

export interface PhoneParts {
  readonly phoneCountryCode: string;
  /** Without the trunk 0, as live responses carry it ("27", "9"). */
  readonly phoneAreaCode: string;
  readonly phoneNumber: string;
}

/** Wairarapa dials 06 although it is in the Wellington region. */
const WAIRARAPA_DISTRICTS = new Set(['048', '049', '050']);

/** The landline area code (without 0) of an area: 09, 07, 06, 04 or 03. */
export function landlineAreaCode(area: Area): string {
  if (WAIRARAPA_DISTRICTS.has(area.district.code)) return '6';
  switch (area.region.code) {
    case '01':
    case '02':
      return '9';
    case '03':
    case '04':
      return '7';
    case '05':
    case '06':
    case '07':
    case '08':
      return '6';
    case '09':
      return '4';
    default:
      return '3';
  }
}

const digits = (random: Random, count: number): string => {
  let text = '';
  for (let i = 0; i < count; i++) text += String(random.int(0, 9));
  return text;
};

export function generateLandline(random: Random, area: Area): PhoneParts {
  return {
    phoneCountryCode: '64',
    phoneAreaCode: landlineAreaCode(area),
    phoneNumber: String(random.int(2, 9)) + digits(random, 6),
  };
}

export function generateMobile(random: Random): PhoneParts {
  const prefix = random.weighted([
    ['21', 45],
    ['27', 35],
    ['22', 20],
  ] as const);
  const length = prefix === '21' ? random.int(6, 8) : 7;
  return {
    phoneCountryCode: '64',
    phoneAreaCode: prefix,
    phoneNumber: String(random.int(1, 9)) + digits(random, length - 1),
  };
}

export type DomainKind = 'business' | 'organisation' | 'government' | 'school';

const TOP_LEVEL_DOMAINS: Readonly<Record<DomainKind, readonly (readonly [string, number])[]>> = {
  business: [
    ['co.nz', 65],
    ['nz', 20],
    ['com', 12],
    ['net.nz', 3],
  ],
  organisation: [
    ['org.nz', 70],
    ['nz', 20],
    ['co.nz', 10],
  ],
  // Only public sector bodies may hold .govt.nz and schools .school.nz (moderated second levels).
  government: [['govt.nz', 1]],
  school: [['school.nz', 1]],
};

export function domainKindFor(type: EntityTypeCode): DomainKind {
  const info = ENTITY_TYPES[type];
  if (type === 'GovtEdu') return 'school';
  if (info.publicSector) return 'government';
  const trading =
    info.sourceRegister === 'COMPANY' || info.sourceRegister === 'NZBN' || type === 'Y' || type === 'Z';
  return trading ? 'business' : 'organisation';
}

/** A domain from the distinctive part of a name: "Kowhai Ridge Plumbing" → kowhairidgeplumbing.co.nz. */
export function domainFor(random: Random, stem: string, kind: DomainKind = 'business'): string {
  // Macrons and other accents go (ā → a); normalising is slow, so only when there are any.
  const ascii = /[^ -~]/.test(stem) ? stem.normalize('NFD').replace(/[\u0300-\u036f]/g, '') : stem;
  const words = ascii
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/['’.]/g, '')
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  const label =
    (random.chance(0.2) ? words.join('-') : words.join('')).slice(0, 40).replace(/-+$/, '') || 'business';
  return `${label}.${random.weighted(TOP_LEVEL_DOMAINS[kind])}`;
}

export function websiteUrl(random: Random, domain: string): string {
  return random.chance(0.85) ? `https://www.${domain}` : `https://${domain}`;
}

/** A role mailbox, or a person's own address on the business's domain. */
export function businessEmail(random: Random, domain: string, person?: Person): string {
  if (person && random.chance(0.4)) {
    const first = localPart(person.firstName);
    const last = localPart(person.lastName);
    return `${random.chance(0.6) ? `${first}.${last}` : first}@${domain}`;
  }
  return `${random.pick(['info', 'info', 'admin', 'office', 'hello', 'enquiries', 'accounts', 'contact'])}@${domain}`;
}

function localPart(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '') || 'mail';
}

/** A GST number: an IRD number with a valid mod-11 check digit, 9 digits more often than 8. */
export function generateGstNumber(random: Random): string {
  for (;;) {
    const base = random.chance(0.65) ? random.int(10_000_000, 14_999_999) : random.int(1_000_001, 9_999_999);
    const check = irdCheckDigit(base);
    if (check !== null) return String(base * 10 + check);
  }
}

interface BankProfile {
  readonly bank: number;
  readonly branches: readonly (readonly [number, number])[];
  readonly suffixDigits: number;
}

/** The large retail banks and branch ranges their accounts are commonly opened in. */
const BANKS: readonly (readonly [BankProfile, number])[] = [
  [
    {
      bank: 1,
      branches: [
        [100, 999],
        [1800, 1899],
      ],
      suffixDigits: 2,
    },
    25,
  ],
  [
    {
      bank: 12,
      branches: [
        [3000, 3299],
        [3400, 3499],
      ],
      suffixDigits: 2,
    },
    22,
  ],
  [
    {
      bank: 2,
      branches: [
        [100, 999],
        [1200, 1299],
      ],
      suffixDigits: 2,
    },
    18,
  ],
  [
    {
      bank: 3,
      branches: [
        [100, 999],
        [1300, 1399],
        [1500, 1599],
      ],
      suffixDigits: 2,
    },
    18,
  ],
  [{ bank: 38, branches: [[9000, 9499]], suffixDigits: 3 }, 12],
  [{ bank: 6, branches: [[100, 999]], suffixDigits: 2 }, 5],
];

/** A bank account number (BB-bbbb-AAAAAAA-SS) that passes its bank's check-digit algorithm. */
export function generateBankAccount(random: Random): string {
  const profile = random.weighted(BANKS);
  const [from, to] = random.pick(profile.branches);
  const branch = random.int(from, to);
  const suffix = random.weighted([
    [0, 70],
    [1, 12],
    [2, 10],
    [random.int(3, 25), 8],
  ] as const);
  for (;;) {
    // A and B weight the account's last digit by 1, so one digit can always be solved for, unless it is 10.
    const withoutLast = random.int(1_000, 98_999) * 10;
    const parts: BankAccountParts = { bank: profile.bank, branch, account: withoutLast, suffix };
    const remainder = bankAccountRemainder(parts) ?? 0;
    const last = (11 - remainder) % 11;
    if (last === 10) continue;
    return formatBankAccount({ ...parts, account: withoutLast + last }, profile.suffixDigits);
  }
}
