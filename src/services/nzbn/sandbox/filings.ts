/**
 * The filings of the sandbox's companies (`GET /entities/{nzbn}/filings`), made from the company as the
 * generator made it: its certificate of incorporation and constitution, an annual return each year in
 * its filing month up to `annualReturnLastFiled`, its financial statements when it files them, each
 * director's appointment after incorporation and each cessation, its insolvency appointments and first
 * reports, a notice of intended removal and its removal, and, for a few companies trading in 2020, the
 * business debt hibernation documents of the published DocumentType. Each filing has one document, a
 * one-page PDF made on demand (nothing is stored: a full-scale seed writes no files).
 *
 * Deterministic: a function of (seed, the generated company) alone, so the same seed gives the same
 * filings, byte for byte, at either scale, and a company's filings do not change when the company does
 * (they are its history). Nothing is stored by the seed; a read makes them again, as it does the
 * documents of unchanged generated entities (documents.ts wires them through the same seam).
 */
import { nzGeography } from '../../../platform/geography.ts';
import { formatNzDateTime, nzLocalToEpoch, parseNzDateTime } from '../../../platform/nz-time.ts';
import { type Random, seeded } from '../../../platform/random.ts';
import { isCompanyType } from '../domain/codes.ts';
import type { FilingCode, GeneratedFiling } from '../domain/filings.ts';
import type { Entity } from '../domain/schema.ts';
import { generateFixtures } from './fixtures.ts';
import { indexForNzbn } from './numbers.ts';
import { generatedEntity, SANDBOX_SEED } from './seed-rows.ts';
import { addDays, nzDateOf, randomOfficeTime } from './time.ts';

const DAY = 86_400_000;
/** The business debt hibernation scheme ran from 20 May 2020 to 31 October 2021. */
const BDH_START = nzLocalToEpoch(2020, 5, 20, 0, 0, 0);
const BDH_END = nzLocalToEpoch(2021, 10, 31, 23, 59, 59);

interface Dated {
  at: number;
  code: FilingCode;
}

const at = (text: string | null | undefined): number | undefined =>
  text ? (parseNzDateTime(text) ?? undefined) : undefined;

/** An office-hours instant on a day of `month` in `year` (days 1–28, so every month has it). */
function dayInMonth(random: Random, year: number, month: number): number {
  const day = random.int(1, 28);
  return randomOfficeTime(
    random,
    nzLocalToEpoch(year, month, day, 0, 0, 0),
    nzLocalToEpoch(year, month, day, 23, 59, 59),
  );
}

/** One filing of `code` a year, in `month`, from the year after `from` while before `until`. */
function yearly(random: Random, code: FilingCode, month: number, from: number, until: number): Dated[] {
  const filed: Dated[] = [];
  for (let year = nzDateOf(from).year + 1; ; year++) {
    const when = dayInMonth(random, year, month);
    if (when >= until) return filed;
    filed.push({ at: when, code });
  }
}

function annualReturns(random: Random, entity: Entity, registered: number): Dated[] {
  const details = entity['company-details'];
  const last = at(details?.annualReturnLastFiled);
  if (!details || last === undefined) return [];
  return [
    ...yearly(random, 'AR', details.annualReturnFilingMonth ?? nzDateOf(last).month, registered, last),
    { at: last, code: 'AR' },
  ];
}

function financialStatements(random: Random, entity: Entity, registered: number, until: number): Dated[] {
  const month = entity['company-details']?.financialReportFilingMonth;
  return month ? yearly(random, 'FS', month, registered, until) : [];
}

/** Directors appointed after incorporation (the first ones consent in the incorporation), and cessations. */
function directors(entity: Entity, registered: number): Dated[] {
  return entity.roles
    .filter((role) => role.roleType === 'Director')
    .flatMap((role): Dated[] => {
      const start = at(role.startDate);
      const end = at(role.endDate);
      return [
        ...(start !== undefined && start > registered + DAY ? [{ at: start, code: 'DIRAPP' as const }] : []),
        ...(end !== undefined ? [{ at: end, code: 'DIRCEASE' as const }] : []),
      ];
    });
}

const APPOINTMENT: Readonly<Record<string, FilingCode>> = {
  Liquidation: 'LIQAPP',
  Receivership: 'RECAPP',
  'Voluntary Administration': 'VAAPP',
};

function insolvencies(entity: Entity): Dated[] {
  return (entity['company-details']?.insolvencies ?? []).flatMap((insolvency): Dated[] => {
    const commenced = at(insolvency.commenced);
    const reports = insolvency.insolvencyReport
      .filter((report) => report.filed)
      .flatMap((report) => {
        const date = at(report.date);
        return date === undefined ? [] : [{ at: date, code: 'INSREP' as const }];
      });
    const code = APPOINTMENT[insolvency.insolvencyType ?? ''] ?? 'LIQAPP';
    return [...(commenced === undefined ? [] : [{ at: commenced, code }]), ...reports];
  });
}

function removal(random: Random, entity: Entity, registered: number, until: number): Dated[] {
  const removed = entity.entityStatusCode === '80';
  if (!removed && !entity['company-details']?.removalCommenced) return [];
  const notice = Math.max(registered, until - random.int(20, 60) * DAY);
  return removed
    ? [
        { at: notice, code: 'REMNOTICE' },
        { at: until, code: 'REMOVED' },
      ]
    : [{ at: until, code: 'REMNOTICE' }];
}

/** A few companies trading through 2020 applied for business debt hibernation; some cancelled it. */
function hibernation(random: Random, registered: number, until: number): Dated[] {
  if (registered >= BDH_START || until <= BDH_END || !random.chance(0.02)) return [];
  const notice = randomOfficeTime(random, BDH_START, BDH_END);
  const outcome = random.weighted<FilingCode | null>([
    [null, 6],
    ['BDHNOTAPPR', 1],
    ['BDHEXTENS', 1],
    ['BDHCANCELL', 2],
  ]);
  const later = randomOfficeTime(random, addDays(notice, 31), addDays(notice, 120));
  return [{ at: notice, code: 'BDHNOTICE' }, ...(outcome ? [{ at: later, code: outcome }] : [])];
}

/** The filings of a company as the generator made it; none for any other entity. */
export function companyFilings(seed: string, entity: Entity): GeneratedFiling[] {
  if (!isCompanyType(entity.entityTypeCode)) return [];
  const registered = at(entity.registrationDate)!;
  const until = at(entity.lastUpdatedDate) ?? registered;
  const random = seeded(seed, 'filings', entity.nzbn);
  const dated: Dated[] = [
    { at: registered, code: 'INC' },
    ...(entity['company-details']?.hasConstitutionFiled ? [{ at: registered, code: 'CON' as const }] : []),
    ...annualReturns(random, entity, registered),
    ...financialStatements(random, entity, registered, until),
    ...directors(entity, registered),
    ...insolvencies(entity),
    ...removal(random, entity, registered, until),
    ...hibernation(random, registered, until),
  ];
  // Nothing after the company's last change (the register's as-of instant bounds it).
  // Oldest first; a stable sort keeps the order above for filings of the same instant.
  const ordered = dated
    .map((item) => ({ ...item, at: Math.min(Math.max(item.at, registered), until) }))
    .sort((a, b) => a.at - b.at);
  return ordered.map((item, i) => {
    const filingId = `${entity.nzbn}-${String(i + 1).padStart(3, '0')}`;
    return {
      filingId,
      filingCode: item.code,
      registrationDate: formatNzDateTime(item.at),
      attachments: [{ documentId: `${filingId}-1`, documentType: item.code }],
      entityName: entity.entityName,
    };
  });
}

let fixtureCompanies: Map<string, Entity> | undefined;

/** The generated company behind a sandbox business number (a generated entity or a fixed test case). */
function generatedCompany(nzbn: string): Entity | undefined {
  const index = indexForNzbn(nzbn);
  if (index !== undefined) return generatedEntity(index);
  fixtureCompanies ??= new Map(
    generateFixtures({ geography: nzGeography() }).map(({ entity }) => [entity.nzbn, entity]),
  );
  return fixtureCompanies.get(nzbn);
}

/** The generated filings of a sandbox business number (none for a number the generator did not make). */
export const sandboxFilings = (nzbn: string): GeneratedFiling[] => {
  const entity = generatedCompany(nzbn);
  return entity ? companyFilings(SANDBOX_SEED, entity) : [];
};
