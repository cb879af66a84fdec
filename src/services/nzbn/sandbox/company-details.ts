/**
 * `company-details` for companies (filing months, annual returns, shareholding, ultimate holding
 * company, insolvencies, Australian company number) and `non-company-details` for everything else.
 */

import { nzMidnight } from '../../../platform/nz-time.ts';
import { acnCheckDigit } from '../domain/identifiers.ts';
import type {
  Address,
  CompanyDetails,
  HistoricShareholder,
  Insolvency,
  NonCompanyDetails,
  Shareholder,
} from '../domain/schema.ts';
import { OVERSEAS_COUNTRIES } from './addresses.ts';
import { addressItem, type EntityBuild, residentialAddress } from './build.ts';
import { fullName, generatePerson, type Person } from './people.ts';
import type { Allocation, Appointee, Holder, RolesResult } from './roles.ts';
import { addDays, addYears, nzDateOf, randomDay, startOfNzDay } from './time.ts';

export function generateCompanyDetails(build: EntityBuild, roles: RolesResult): CompanyDetails {
  const { random } = build;
  const overseas = build.group === 'overseasCompany';
  const listed = !overseas && random.chance(0.002);
  const yearBeforeEnd = Math.max(build.registered, addYears(build.liveUntil, -1));
  const filedOnce = addYears(build.registered, 1) <= build.liveUntil;
  const acn = build.type === 'ASIC' ? generateAcn(build) : null;
  return {
    annualReturnFilingMonth: random.int(1, 12),
    financialReportFilingMonth: listed || random.chance(0.08) ? random.int(1, 12) : null,
    nzsxCode: listed ? letters(build, 3) : null,
    annualReturnLastFiled: filedOnce ? build.stamp(randomDay(random, yearBeforeEnd, build.liveUntil)) : null,
    hasConstitutionFiled: random.chance(0.45),
    countryOfOrigin:
      build.type === 'ASIC'
        ? 'AU'
        : build.type === 'NON_ASIC'
          ? random.pick(OVERSEAS_COUNTRIES.filter((c) => c !== 'AU'))
          : 'NZ',
    overseasCompany: overseas ? 'Y' : 'N',
    extensiveShareholding: !overseas && random.chance(0.005),
    stockExchangeListed: listed,
    shareholding: overseas ? null : shareholding(build, roles.allocations),
    ultimateHoldingCompany: ultimateHoldingCompany(build),
    australianCompanyNumber: acn,
    insolvencies: insolvencies(build, roles.appointees),
    removalCommenced: build.live && build.status === '50' && random.chance(0.02),
  };
}

function generateAcn(build: EntityBuild): string {
  const first8 = String(build.random.int(0, 99_999_999)).padStart(8, '0');
  return first8 + String(acnCheckDigit(first8));
}

function letters(build: EntityBuild, count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) text += String.fromCharCode(65 + build.random.int(0, 25));
  return text;
}

function shareholding(
  build: EntityBuild,
  allocations: readonly Allocation[],
): CompanyDetails['shareholding'] {
  const numberOfShares = allocations.reduce((sum, allocation) => sum + allocation.shares, 0);
  const historicShareholder = build.random.chance(0.1) ? [historic(build)] : [];
  return {
    numberOfShares,
    shareAllocation: allocations.map((allocation) => ({
      allocation: allocation.shares,
      shareholder: allocation.holders.map((holder) => shareholder(build, holder)),
    })),
    historicShareholder,
  };
}

function shareholder(build: EntityBuild, holder: Holder): Shareholder {
  const individual = holder.kind === 'person';
  return {
    type: individual ? 'Individual' : 'Other',
    appointmentDate: build.stampDay(holder.since),
    vacationDate: null,
    individualShareholder: individual
      ? {
          firstName: holder.person.firstName,
          middleNames: holder.person.middleNames,
          lastName: holder.person.lastName,
          fullName: fullName(holder.person),
        }
      : null,
    otherShareholder: individual
      ? null
      : { currentEntityName: holder.name, nzbn: null, companyNumber: null, entityType: null },
    shareholderAddress: addressItem(build, holder.address, null, holder.since),
  };
}

function historic(build: EntityBuild): HistoricShareholder {
  const person = generatePerson(build.random);
  const vacated = randomDay(build.random, build.registered, build.liveUntil);
  return {
    type: 'Individual',
    appointmentDate: build.stampDay(build.registered),
    vacationDate: build.stamp(vacated),
    historicShareholderAddress: addressItem(build, residentialAddress(build), null, build.registered),
    historicIndividualShareholder: {
      firstName: person.firstName,
      middleNames: person.middleNames,
      lastName: person.lastName,
      fullName: fullName(person),
    },
    historicOtherShareholder: null,
  };
}

const UHC_DISCLOSURE_START = nzMidnight(2015, 5, 1);

function ultimateHoldingCompany(build: EntityBuild): CompanyDetails['ultimateHoldingCompany'] {
  const { random } = build;
  // Ultimate holding companies are disclosed since the Companies Amendment Act 2014 (in force 2015).
  const disclosedFrom = Math.max(build.registered, UHC_DISCLOSURE_START);
  if (build.group !== 'nzCompany' || disclosedFrom >= build.liveUntil || !random.chance(0.03)) {
    return {
      yn: false,
      name: null,
      type: null,
      number: null,
      nzbn: null,
      country: null,
      effectiveDate: null,
      ultimateHoldingCompanyAddress: [],
    };
  }
  const country = random.chance(0.6) ? 'NZ' : random.pick(OVERSEAS_COUNTRIES);
  return {
    yn: true,
    name: `${letters(build, 3)} GROUP ${country === 'NZ' ? 'LIMITED' : 'HOLDINGS'}`,
    type: country === 'NZ' ? 'LTD' : 'Overseas company',
    number: String(random.int(100_000, 9_999_999)),
    nzbn: null,
    country,
    effectiveDate: build.stamp(randomDay(random, disclosedFrom, build.liveUntil)),
    ultimateHoldingCompanyAddress: [],
  };
}

function insolvencies(build: EntityBuild, appointees: readonly Appointee[]): Insolvency[] {
  const current = appointees.map((appointee) => insolvency(build, appointee, null));
  // A quarter of removed companies were removed after a liquidation that has since ended.
  if (build.group === 'nzCompany' && build.status === '80' && build.random.chance(0.25)) {
    const ended = startOfNzDay(addDays(build.liveUntil, -build.random.int(30, 400)));
    const appointed = Math.max(build.registered, startOfNzDay(addDays(ended, -build.random.int(90, 900))));
    const person = generatePerson(build.random, 'european');
    const past: Appointee = {
      person,
      firm: `${person.lastName} Insolvency Limited`,
      roleType: 'Liquidator',
      insolvencyType: 'Liquidation',
      appointed,
      address: residentialAddress(build),
    };
    current.push(insolvency(build, past, Math.max(ended, appointed)));
  }
  return current;
}

function insolvency(build: EntityBuild, appointee: Appointee, vacated: number | null): Insolvency {
  const reportDate = Math.min(startOfNzDay(addDays(appointee.appointed, 25)), vacated ?? build.liveUntil);
  return insolvencyEntry({
    person: appointee.person,
    firm: appointee.firm,
    insolvencyType: appointee.insolvencyType,
    appointed: build.stamp(appointee.appointed),
    vacated: vacated === null ? null : build.stamp(vacated),
    firstReport: { filed: reportDate > appointee.appointed, date: build.stamp(reportDate) },
    address: addressItem(build, appointee.address, null, appointee.appointed),
  });
}

/**
 * A company's insolvency as its company details show it, run by one practitioner appointed when it
 * commenced (`appointed`, `vacated`: date-times of the register): the generator's, and the simulated
 * activity's when it moves a company into one (activity-changes.ts).
 */
export function insolvencyEntry(practice: {
  person: Person;
  firm: string;
  insolvencyType: string;
  appointed: string;
  vacated: string | null;
  firstReport: { filed: boolean; date: string | null };
  address: Address;
}): Insolvency {
  const { person } = practice;
  // The firm's own domain: its name without the legal form ("Grant Restructuring Limited" → grantrestructuring).
  const domain = practice.firm
    .replace(/ (Limited|Chartered Accountants)$/, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, '');
  return {
    commenced: practice.appointed,
    insolvencyType: practice.insolvencyType,
    insolvencyReport: [{ name: 'First Report', ...practice.firstReport }],
    insolvencyAppointee: [
      {
        firstName: person.firstName,
        middleNames: person.middleNames,
        lastName: person.lastName,
        fullName: fullName(person),
        organisationName: practice.firm,
        appointmentDate: practice.appointed,
        vacationDate: practice.vacated,
        email: `${person.firstName.toLowerCase().replace(/[^a-z]/g, '')}@${domain}.co.nz`,
        insolvencyAppointeePhoneNumber: [],
        insolvencyAppointeeAddress: practice.address,
      },
    ],
  };
}

export function generateNonCompanyDetails(build: EntityBuild): NonCompanyDetails {
  const { random } = build;
  if (build.group !== 'otherRegister') {
    return {
      annualReturnFilingMonth: null,
      countryOfOrigin: 'NZ',
      registeredUnionStatus: null,
      charitiesNumber: null,
      balanceDate: null,
    };
  }
  const charity = (build.type === 'T' && random.chance(0.6)) || (build.type === 'I' && random.chance(0.25));
  const { year } = nzDateOf(build.liveUntil);
  const balance = random.weighted([
    [[3, 31], 6],
    [[6, 30], 2],
    [[12, 31], 2],
  ] as const);
  const balanceDate = nzMidnight(year - 1, balance[0], balance[1]);
  return {
    annualReturnFilingMonth: random.int(1, 12),
    countryOfOrigin: build.type === 'Z' ? random.pick(OVERSEAS_COUNTRIES) : 'NZ',
    registeredUnionStatus: build.type === 'I' && random.chance(0.01) ? 'Registered union' : null,
    charitiesNumber: charity ? `CC${random.int(10_000, 99_999)}` : null,
    balanceDate: balanceDate > build.registered ? build.stamp(balanceDate) : null,
  };
}
