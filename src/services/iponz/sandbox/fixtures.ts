/**
 * The sandbox's fixed test cases (documented in the README): clients for the address-matching edge
 * cases, one case per status and kind, a renewal due now, and one in its grace period. Their numbers are
 * the first of each kind's range; dates count back from the sandbox's "today" so they stay true.
 */
import { addDays, addMonths, addYears } from '../../../platform/calendar.ts';
import type { AddressType, ClientAddress } from '../domain/client-search.ts';
import { CASE_NUMBER_RANGES, CLIENT_ID_RANGE } from '../domain/identifiers.ts';
import type { Client } from '../domain/model.ts';
import {
  type CaseKind,
  DESIGN_STATUSES,
  nextSlot,
  PATENT_STATUSES,
  TRADE_MARK_STATUSES,
} from '../domain/renewals.ts';
import type { GeneratedCase } from '../store/seed.ts';
import { markImageDocument, markImageNameOf } from './mark-images.ts';
import { seededPatentDetail } from './patent-details.ts';
import { IN_FORCE, seededRenewals } from './renewal-events.ts';

/** Fixed clients take the first ids; generated ones start here. */
export const FIXTURE_CLIENTS = 100;
/** Fixed cases take the first numbers of each kind; generated ones start here. */
export const FIXTURE_CASES = 100;

const id = (index: number) => CLIENT_ID_RANGE.first + index;
const client = (
  index: number,
  name: string,
  addresses: Partial<Record<AddressType, ClientAddress>>,
  clientType: Client['clientType'] = 'Organisation',
): Client => ({ clientId: id(index), name, clientType, nzbn: null, addresses });

/** The fixed clients: one per edge case of the client search. */
export const FIXED_CLIENTS: readonly Client[] = [
  // 100000: every address type filled; "Queen St%Auckland" runs from line 1 to the city.
  client(0, 'Kiwi Widgets Limited', {
    physical: { line1: '12 Queen Street', line2: 'Level 3', line3: null, city: 'Auckland' },
    postal: { line1: 'PO Box 1234', line2: 'Shortland Street', line3: null, city: 'Auckland' },
    service: { line1: 'Widget Lawyers', line2: '80 The Terrace', line3: 'Te Aro', city: 'Wellington' },
  }),
  // 100001: only a postal address (matched there and nowhere else).
  client(1, 'Postal Only Holdings Limited', {
    postal: { line1: 'Private Bag 92019', line2: null, line3: null, city: 'Hamilton' },
  }),
  // 100002: the term only in the service address's third line.
  client(2, 'Service Line Three Trust', {
    physical: { line1: '1 Main Road', line2: null, line3: null, city: 'Nelson' },
    service: { line1: 'Care of Agents', line2: 'Suite 9', line3: 'Riccarton Mews', city: 'Christchurch' },
  }),
  // 100003: punctuation in the name ("O'Brien%Sons" and "(NZ)").
  client(3, "O'Brien & Sons (NZ) Ltd.", {
    physical: { line1: '5/7 Cuba St.', line2: null, line3: null, city: 'Wellington' },
  }),
  // 100004: a two-character name.
  client(
    4,
    'Xy',
    { physical: { line1: '2 Short Lane', line2: null, line3: null, city: 'Dunedin' } },
    'Person',
  ),
  // 100005: `%` and `_` in the name (literal `_` in a term; `%` in a term is a wildcard).
  client(5, '100% Pure_Honey Limited', {
    physical: { line1: '9 Bee Road', line2: null, line3: null, city: 'Gisborne' },
  }),
  // 100006: no address at all (never matched by an address term).
  client(6, 'Nowhere Widgets Limited', {}),
  // 100007: a person with macrons in the name and city.
  client(
    7,
    'Mere Tūhoe',
    { physical: { line1: '3 Pā Road', line2: null, line3: null, city: 'Whakatāne' } },
    'Person',
  ),
];

export interface FixedCase {
  kind: CaseKind;
  caseNumber: number;
  /** What it is there for (the README's table). */
  purpose: string;
}

const STATUSES: Record<CaseKind, readonly string[]> = {
  patent: PATENT_STATUSES,
  trademark: TRADE_MARK_STATUSES,
  design: DESIGN_STATUSES,
};

const KINDS: readonly CaseKind[] = ['patent', 'trademark', 'design'];
const REGISTERED = new Set([
  'Granted',
  'Registered',
  'Registered - past expiry date',
  'Lapsed',
  'Expired',
  'Revoked',
  'Removed',
]);

/** The fixed cases at `today` (a New Zealand date). */
export function fixedCases(today: string): (GeneratedCase & { purpose: string })[] {
  const cases: (GeneratedCase & { purpose: string })[] = [];
  for (const kind of KINDS) {
    const first = CASE_NUMBER_RANGES[kind].first;
    STATUSES[kind].forEach((status, i) => {
      const applicationDate = addMonths(today, -(30 + 7 * i));
      const registered = REGISTERED.has(status);
      cases.push(fixedCase(kind, first + i, status, applicationDate, registered, today, `status ${status}`));
    });
    // A renewal due now: the window is open, the due date a month ahead.
    const dueNowDate =
      kind === 'patent'
        ? addYears(addMonths(today, 1), -5)
        : addYears(addMonths(today, 1), kind === 'trademark' ? -10 : -5);
    const dueStatus = kind === 'patent' ? 'Granted' : 'Registered';
    cases.push(
      fixedCase(kind, first + 50, dueStatus, dueNowDate, true, today, 'renewal due now (window open)'),
    );
    // In its grace period: the due date passed two months ago, unpaid.
    const graceDate =
      kind === 'patent'
        ? addYears(addMonths(today, -2), -5)
        : addYears(addMonths(today, -2), kind === 'trademark' ? -10 : -5);
    const graceStatus = kind === 'trademark' ? 'Registered - past expiry date' : dueStatus;
    cases.push(
      fixedCase(kind, first + 51, graceStatus, graceDate, true, today, 'renewal in its grace period', true),
    );
    // A trade mark renewed twice: filed 20 years and 3 months ago, both renewals in its history.
    if (kind === 'trademark') {
      const renewedDate = addYears(addMonths(today, -3), -20);
      cases.push(fixedCase(kind, first + 52, 'Registered', renewedDate, true, today, 'renewed twice'));
    }
  }
  // Each patent's abstract, claims, classifications, priority claims and PCT publication.
  return cases.map((c) => (c.kind === 'patent' ? { ...c, patentDetail: seededPatentDetail(c, today) } : c));
}

function fixedCase(
  kind: CaseKind,
  caseNumber: number,
  status: string,
  applicationDate: string,
  registered: boolean,
  today: string,
  purpose: string,
  unpaidLast = false,
): GeneratedCase & { purpose: string } {
  const registrationDate = registered ? addMonths(applicationDate, 9) : null;
  // Every fee whose due date is past is paid (except the grace fixture's last one), by a case in force.
  let lastPaid: string | undefined;
  for (; IN_FORCE[kind].has(status); ) {
    const slot = nextSlot(kind, applicationDate, lastPaid);
    if (!slot || slot.dueDate >= today) break;
    if (unpaidLast && slot.graceEnds >= today) break;
    lastPaid = slot.dueDate;
  }
  const owner = FIXED_CLIENTS[caseNumber % FIXED_CLIENTS.length]!.clientId;
  // A mark in its grace period has been past its expiry date since the day after it.
  const missed =
    unpaidLast && status === 'Registered - past expiry date'
      ? nextSlot(kind, applicationDate, lastPaid)?.dueDate
      : undefined;
  const statusDate = missed ? addDays(missed, 1) : (registrationDate ?? applicationDate);
  return {
    kind,
    caseNumber,
    purpose,
    title: `Sandbox fixture ${kind} ${caseNumber}: ${purpose}`,
    status,
    statusDate,
    applicationDate,
    termDate: applicationDate,
    registrationDate,
    lastRenewalDueDate: lastPaid ?? null,
    internationalApplicationNumber:
      kind === 'patent' && caseNumber % 2 === 0
        ? `PCT/AU${applicationDate.slice(0, 4)}/${String(caseNumber % 1_000_000).padStart(6, '0')}`
        : null,
    internationalPublicationNumber:
      kind === 'patent' && caseNumber % 2 === 0
        ? `WO/${applicationDate.slice(0, 4)}/${String(caseNumber % 1_000_000).padStart(6, '0')}`
        : null,
    internationalRegistrationNumber: null,
    priorityCountryCode: kind === 'patent' ? 'AU' : null,
    markImageName: kind === 'trademark' ? markImageNameOf(caseNumber) : null,
    noveltyStatement:
      kind === 'design' ? 'The novelty resides in the shape and configuration as shown.' : null,
    patentDetail: null,
    renewals: seededRenewals(
      {
        kind,
        caseNumber,
        status,
        applicationDate,
        termDate: applicationDate,
        registrationDate,
        lastRenewalDueDate: lastPaid ?? null,
      },
      today,
    ),
    history:
      missed && registrationDate
        ? [
            { status: 'Under Examination', statusDate: applicationDate },
            { status: 'Registered', statusDate: registrationDate },
            { status, statusDate },
          ]
        : registrationDate && statusDate !== applicationDate
          ? [
              { status: kind === 'trademark' ? 'Under Examination' : 'Filed', statusDate: applicationDate },
              { status, statusDate },
            ]
          : [{ status, statusDate }],
    parties: [
      { role: kind === 'patent' ? 'Applicant' : 'Owner', clientId: owner },
      { role: 'Agent', clientId: FIXED_CLIENTS[2]!.clientId },
      // A patent's inventor: Mere Tūhoe, a person.
      ...(kind === 'patent' ? [{ role: 'Inventor' as const, clientId: FIXED_CLIENTS[7]!.clientId }] : []),
    ],
    documents: [
      {
        documentIdentifier: `09${kind === 'patent' ? '1' : kind === 'trademark' ? '2' : '3'}f${String(caseNumber).padStart(12, '0')}`,
        documentName: `${kind} ${caseNumber} application.pdf`,
        objectFormat: 'pdf',
        createdOn: applicationDate,
      },
      ...(kind === 'trademark' ? [markImageDocument(caseNumber, applicationDate)] : []),
    ],
    goodsAndServices:
      kind === 'trademark'
        ? [
            { classNumber: 9, description: 'Computer software; downloadable applications' },
            { classNumber: 42, description: 'Software as a service' },
          ]
        : [],
  };
}
