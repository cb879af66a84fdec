/**
 * The sandbox register's generator: clients and cases by index, each from its own seeded stream
 * (`seeded('iponz', kind, index)`), so any slice can be made on its own and a scale is the same data
 * every time. Cases span 32 years back from the sandbox's "today" with a mix of statuses by age: recent
 * cases are still being examined, older ones registered (granted) and renewed, lapsed, or expired.
 * Renewal fees whose due date is past are paid, except for a few cases left in their grace period.
 */
import { addDays, addMonths } from '../../../platform/calendar.ts';
import { type Area, nzGeography } from '../../../platform/geography.ts';
import { type Random, seeded } from '../../../platform/random.ts';
import type { AddressType, ClientAddress } from '../domain/client-search.ts';
import {
  CASE_NUMBER_RANGES,
  CLIENT_ID_RANGE,
  documentIdentifierFrom,
  pctApplicationNumber,
  pctPublicationNumber,
} from '../domain/identifiers.ts';
import type { CaseDocument, Client, GoodsAndServices } from '../domain/model.ts';
import { type CaseKind, nextSlot, termEnd } from '../domain/renewals.ts';
import type { GeneratedCase } from '../store/seed.ts';
import { FIXTURE_CASES, FIXTURE_CLIENTS } from './fixtures.ts';
import { hasMarkImage, markImageDocument, markImageNameOf } from './mark-images.ts';
import { seededPatentDetail } from './patent-details.ts';
import { IN_FORCE, seededRenewals } from './renewal-events.ts';

/** Businesses of the sandbox business number register, by index (same names and numbers). */
export interface OrganisationSource {
  readonly count: number;
  organisation(index: number): { name: string; nzbn: string };
}

export interface Plan {
  clients: number;
  patents: number;
  trademarks: number;
  designs: number;
}

export const PLANS: Record<'small' | 'full', Plan> = {
  small: { clients: 600, patents: 300, trademarks: 600, designs: 100 },
  full: { clients: 300_000, patents: 250_000, trademarks: 600_000, designs: 50_000 },
};

export const YEARS_BACK = 32;

const FIRST = [
  'Aroha',
  'James',
  'Mei',
  'Liam',
  'Priya',
  'Tama',
  'Sophie',
  'Wiremu',
  'Olivia',
  'Hemi',
  'Grace',
  'Noah',
  'Ana',
  'Jack',
  'Ruby',
  'Mateo',
];
const LAST = [
  'Smith',
  'Ngata',
  'Wang',
  'Patel',
  'Williams',
  'Brown',
  'Te Whata',
  'Kim',
  'Wilson',
  'Taylor',
  'Singh',
  'Anderson',
  'Thompson',
  'Parata',
  'Chen',
  'Walker',
];
const WORDS = [
  'Kauri',
  'Southern',
  'Alpine',
  'Harbour',
  'Pacific',
  'Tasman',
  'Kiwi',
  'Fern',
  'Summit',
  'Coastal',
  'Totara',
  'Rimu',
  'Silver',
  'Pohutukawa',
  'Matai',
  'Ocean',
  'Orchard',
  'Meridian',
];
const TRADES = [
  'Engineering',
  'Foods',
  'Technologies',
  'Pharmaceuticals',
  'Wines',
  'Design',
  'Apparel',
  'Dairy',
  'Software',
  'Instruments',
  'Cosmetics',
  'Brewing',
];
/** How the sandbox's agent firms are named: each name ends in one of these. */
export const AGENT_FIRM_TITLES = [
  'Patent Attorneys',
  'Trade Mark Attorneys',
  'Intellectual Property',
] as const;
const SUFFIX = ['Limited', 'Ltd', 'Holdings Limited', 'Group Limited', 'Inc.', 'Pty Ltd', 'GmbH', 'LLC'];
const STREETS = [
  'Queen Street',
  'Victoria Street',
  'Lambton Quay',
  'Colombo Street',
  'George Street',
  'High Street',
  'Great North Road',
  'Karangahape Road',
  'Cuba Street',
  'Devon Street',
];
const THINGS = [
  'fastener',
  'milking system',
  'water filter',
  'bicycle frame',
  'surgical instrument',
  'wine closure',
  'solar mounting',
  'fishing lure',
  'ventilation unit',
  'packaging tray',
];
const GOODS: Record<number, string> = {
  3: 'Cosmetics; soaps; perfumery',
  5: 'Pharmaceutical preparations',
  9: 'Computer software; downloadable applications',
  25: 'Clothing, footwear, headwear',
  29: 'Dairy products; meat, fish',
  30: 'Coffee, tea; bakery goods',
  32: 'Beers; non-alcoholic beverages',
  33: 'Wines; alcoholic beverages',
  35: 'Advertising; business management',
  41: 'Education; entertainment',
  42: 'Scientific and technological services; software as a service',
  43: 'Restaurant and accommodation services',
};
const GOODS_CLASSES = Object.keys(GOODS).map(Number);
const PCT_OFFICES = ['AU', 'US', 'GB', 'EP', 'JP', 'CN', 'DE', 'IB'];

export const clientIdAt = (index: number): number => CLIENT_ID_RANGE.first + index;

/** One generated client in AGENT_FIRM_EVERY is a firm of attorneys (the clients agents are drawn from). */
const AGENT_FIRM_EVERY = 50;
const PERSON_SHARE = 0.35;
const isAgentFirm = (index: number): boolean => index % AGENT_FIRM_EVERY === 0;
/**
 * Whether the `index`-th client is a person: the first draw of its stream, as generateClient makes it
 * (kept, as inventors are drawn from the same clients over and over).
 */
const persons = new Map<number, boolean>();
function isPerson(index: number): boolean {
  let person = persons.get(index);
  if (person === undefined) {
    person = !isAgentFirm(index) && seeded('iponz', 'client', index).chance(PERSON_SHARE);
    persons.set(index, person);
  }
  return person;
}

/** The `draw`-th agent firm among `clients` generated clients (draw from 0 to clients - 1). */
function agentFirmAt(draw: number, clients: number): number {
  const firms = Math.max(1, Math.floor((clients - 1) / AGENT_FIRM_EVERY) + 1);
  const first = Math.ceil(FIXTURE_CLIENTS / AGENT_FIRM_EVERY) * AGENT_FIRM_EVERY;
  return clientIdAt(first + (draw % firms) * AGENT_FIRM_EVERY);
}

/** The first person among the generated clients from the `draw`-th on (going round). */
function personFrom(draw: number, clients: number): number {
  for (let step = 0; step < clients; step++) {
    const index = FIXTURE_CLIENTS + ((draw + step) % clients);
    if (isPerson(index)) return clientIdAt(index);
  }
  return clientIdAt(FIXTURE_CLIENTS + draw);
}

/** A New Zealand street address in a suburb of a real town (sometimes without the suburb line), with its postcode. */
function address(random: Random): ClientAddress {
  const hasSuburb = random.chance(0.6);
  const area = placeIn(random);
  return {
    line1: `${random.int(1, 400)} ${random.pick(STREETS)}`,
    line2: random.chance(0.2) ? `Level ${random.int(1, 30)}` : null,
    line3: hasSuburb ? area.suburb : null,
    city: area.district.town,
    postcode: area.postCode,
  };
}

/** A box at the post office of a real town, with a postcode of that town's. */
function postalAddress(random: Random): ClientAddress {
  const area = placeIn(random);
  return {
    line1: `PO Box ${random.int(1, 99999)}`,
    line2: null,
    line3: null,
    city: area.district.town,
    postcode: area.postCode,
  };
}

/** A place in New Zealand: an SA2 area of the 2019 statistical geography (its suburb, town and postcode). */
const placeIn = (random: Random): Area => random.pick(nzGeography().areas);

/** Where overseas clients are, by country: its places (city, postcode), its companies' legal form. */
const ABROAD: readonly (readonly [
  country: string,
  places: readonly (readonly [string, string])[],
  forms: readonly string[],
  weight: number,
])[] = [
  [
    'AU',
    [
      ['Sydney', '2000'],
      ['Melbourne', '3000'],
      ['Brisbane', '4000'],
      ['Perth', '6000'],
    ],
    ['Pty Ltd', 'Pty Limited'],
    35,
  ],
  [
    'US',
    [
      ['New York', '10001'],
      ['San Francisco', '94105'],
      ['Seattle', '98101'],
      ['Chicago', '60601'],
    ],
    ['Inc.', 'LLC', 'Corporation'],
    25,
  ],
  [
    'GB',
    [
      ['London', 'EC1A 1BB'],
      ['Manchester', 'M1 1AE'],
      ['Edinburgh', 'EH1 1YZ'],
    ],
    ['Ltd', 'plc'],
    12,
  ],
  [
    'DE',
    [
      ['Berlin', '10115'],
      ['Munich', '80331'],
      ['Hamburg', '20095'],
    ],
    ['GmbH', 'AG'],
    8,
  ],
  [
    'JP',
    [
      ['Tokyo', '100-0005'],
      ['Osaka', '530-0001'],
    ],
    ['Kabushiki Kaisha', 'Co., Ltd.'],
    10,
  ],
  [
    'CN',
    [
      ['Shanghai', '200000'],
      ['Shenzhen', '518000'],
    ],
    ['Co., Ltd.'],
    10,
  ],
];
const ABROAD_WORDS = [
  'Northwind',
  'Bluegate',
  'Lumen',
  'Granite',
  'Cedarline',
  'Brightwater',
  'Ironbark',
  'Vantage',
];

/**
 * An overseas company (a third of the business clients, as the office's filings from abroad run): a
 * name in its country's style, its address there, and an address for service in New Zealand, where the
 * office sends what it serves. Not in the business number register: it is not registered here.
 */
function overseasClient(random: Random): { name: string; addresses: Client['addresses'] } {
  const [country, places, forms] = random.weighted(ABROAD.map((a) => [a, a[3]] as const));
  const [city, postcode] = random.pick(places);
  const name = `${random.pick(ABROAD_WORDS)} ${random.pick(TRADES)} ${random.pick(forms)}`;
  return {
    name,
    addresses: {
      physical: {
        line1: `${random.int(1, 900)} ${random.pick(['Market Street', 'Main Street', 'Park Avenue', 'High Street', 'Harbour Road'])}`,
        line2: random.chance(0.3) ? `Floor ${random.int(2, 40)}` : null,
        line3: null,
        city,
        postcode,
        countryCode: country,
      },
      service: address(random),
    },
  };
}

/** The `index`-th generated client (index from FIXTURE_CLIENTS on). */
export function generateClient(index: number, organisations?: OrganisationSource): Client {
  const random = seeded('iponz', 'client', index);
  const person = random.chance(PERSON_SHARE) && !isAgentFirm(index);
  let name: string;
  let nzbn: string | null = null;
  if (isAgentFirm(index))
    name = `${random.pick(LAST)} ${random.pick(LAST)} ${random.pick(AGENT_FIRM_TITLES)}`;
  else if (person) name = `${random.pick(FIRST)} ${random.pick(LAST)}`;
  else if (organisations && organisations.count > 0 && random.chance(0.7)) {
    // The index-th business of the register: no two clients share one while there are enough.
    const business = organisations.organisation(index % organisations.count);
    name = business.name;
    nzbn = business.nzbn;
  } else if (organisations && organisations.count > 0) {
    const overseas = overseasClient(random);
    return { clientId: clientIdAt(index), clientType: 'Organisation', nzbn: null, ...overseas };
  } else name = `${random.pick(WORDS)} ${random.pick(TRADES)} ${random.pick(SUFFIX)}`;
  const addresses: Partial<Record<AddressType, ClientAddress>> = { physical: address(random) };
  if (random.chance(0.5)) addresses.postal = postalAddress(random);
  if (random.chance(0.6)) addresses.service = address(random);
  return {
    clientId: clientIdAt(index),
    name,
    clientType: person ? 'Person' : 'Organisation',
    nzbn,
    addresses,
  };
}

const STATUS_WEIGHTS: Record<CaseKind, { young: [string, number][]; old: [string, number][] }> = {
  patent: {
    young: [
      ['Filed', 3],
      ['Under Examination', 5],
      ['Accepted', 2],
      ['Under Opposition', 0.3],
      ['Withdrawn', 0.5],
      ['Abandoned', 1],
      ['Granted', 3],
    ],
    old: [
      ['Granted', 5],
      ['Lapsed', 4],
      ['Abandoned', 2],
      ['Withdrawn', 0.5],
      ['Closed', 0.5],
      ['Revoked', 0.2],
    ],
  },
  trademark: {
    young: [
      ['Under Examination', 3],
      ['Abeyance', 0.5],
      ['Accepted', 1],
      ['Under Opposition', 0.3],
      ['Registered', 5],
      ['Withdrawn', 0.5],
      ['Abandoned', 0.7],
      ['Refused', 0.3],
    ],
    old: [
      ['Registered', 6],
      ['Expired', 1],
      ['Removed', 2],
      ['Lapsed', 0.5],
      ['Abandoned', 0.5],
      ['Withdrawn', 0.3],
      ['Refused', 0.2],
    ],
  },
  design: {
    young: [
      ['Filed', 2],
      ['Pending Registration', 1],
      ['Registered', 5],
      ['Withdrawn', 0.3],
      ['Abandoned', 0.4],
      ['Refused', 0.2],
    ],
    old: [
      ['Registered', 3],
      ['Lapsed', 3],
      ['Withdrawn', 0.2],
      ['Refused', 0.2],
    ],
  },
};
const PENDING: Record<CaseKind, string[]> = {
  patent: ['Under Examination', 'Accepted'],
  trademark: ['Under Examination', 'Accepted'],
  design: ['Filed', 'Pending Registration'],
};
const DAY_MS = 86_400_000;
const daysBetween = (from: string, to: string): number =>
  Math.max(0, Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS));
const REGISTERED_STATUSES = new Set([
  'Granted',
  'Registered',
  'Lapsed',
  'Expired',
  'Revoked',
  'Removed',
  'Closed',
]);

/**
 * The `index`-th generated case of a kind (index from FIXTURE_CASES on) at `today`, of `count` generated
 * cases of that kind (`ofKind`).
 */
export function generateCase(
  kind: CaseKind,
  index: number,
  today: string,
  clients: number,
  ofKind: number,
): GeneratedCase {
  const random = seeded('iponz', kind, index);
  const caseNumber = CASE_NUMBER_RANGES[kind].first + index;
  // Filing dates over the years back, more of them recent, in the order of the numbers: the case's place
  // among the kind's generated cases takes the place of a random draw (made all the same, so the rest of
  // the case is unchanged).
  random.next();
  const place = Math.min(1, Math.max(0, (index - FIXTURE_CASES + 0.5) / ofKind));
  const daysBack = Math.floor(YEARS_BACK * 365 * (1 - place) ** 1.4);
  const applicationDate = addDays(today, -daysBack);
  const young = daysBack < 3 * 365;
  let status = random.weighted(STATUS_WEIGHTS[kind][young ? 'young' : 'old']);
  // Registered some months after filing; a case whose registration would fall after today is still pending.
  let registrationDate: string | null = null;
  if (REGISTERED_STATUSES.has(status)) {
    const registered = addDays(applicationDate, random.int(120, 900));
    if (registered <= today) registrationDate = registered;
    else status = random.pick(PENDING[kind]);
  }
  // A PCT national phase case counts its terms from the international filing date, 20–31 months earlier.
  const pct = kind === 'patent' && random.chance(0.6);
  const termDate = pct ? addMonths(applicationDate, -random.int(20, 31)) : applicationDate;
  // A patent past its 20 years, a design past 15, has expired: from the day after its term's end, the
  // term counted from the date it runs from (a PCT patent's international filing, before its filing here).
  const termEnds = termEnd(kind, termDate);
  const termOver = termEnds !== null && addDays(termEnds, 1) <= today;
  if (termOver && status === (kind === 'patent' ? 'Granted' : 'Registered')) status = 'Expired';
  // Fees whose due date is past are paid; a few alive cases are left in their grace period (a fee due
  // before the grant or registration was paid: a case is not granted while its term has run out).
  const inGrace = random.chance(0.02);
  let lastPaid: string | undefined;
  for (;;) {
    const slot = nextSlot(kind, termDate, lastPaid);
    if (!slot || slot.dueDate >= today) break;
    if (inGrace && slot.graceEnds >= today && (!registrationDate || slot.dueDate >= registrationDate)) break;
    lastPaid = slot.dueDate;
  }
  if (kind === 'trademark' && status === 'Registered') {
    const slot = nextSlot(kind, termDate, lastPaid);
    if (slot && slot.dueDate < today) status = 'Registered - past expiry date';
  }
  // A patent or design expires at its term's end; drawn expired before that, it lapsed instead.
  if (status === 'Expired' && termEnds !== null && !termOver) status = 'Lapsed';
  // The last status change (dateOfStatus), else a day within 400 days of the registration (or filing),
  // never after today: drawn whatever the status, so the rest of the case is unchanged.
  const from = registrationDate ?? applicationDate;
  const drawnDate = addDays(from, random.int(0, Math.min(400, daysBetween(from, today))));
  const statusDate = dateOfStatus(
    kind,
    status,
    { applicationDate, registrationDate, termDate, lastPaid },
    drawnDate,
  );
  // A trade mark or design renews once registered, a patent from its filing (maintenance, then
  // renewal), and a case no longer in force (lapsed, withdrawn, removed…) only before it left.
  if (!IN_FORCE[kind].has(status))
    lastPaid = registrationDate || kind === 'patent' ? paidBefore(kind, termDate, statusDate) : undefined;
  const year = Number(termDate.slice(0, 4));
  const parties = caseParties(kind, random, clients);
  const imaged = kind === 'trademark' && hasMarkImage(caseNumber);
  const documents: CaseDocument[] = [];
  const count = random.int(1, 3);
  for (let i = 0; i < count; i++) {
    const bytes = new Uint8Array(7);
    for (let b = 0; b < 7; b++) bytes[b] = random.int(0, 255);
    documents.push({
      documentIdentifier: documentIdentifierFrom(bytes),
      documentName:
        i === 0
          ? 'Application form.pdf'
          : imaged && i === 1
            ? markImageNameOf(caseNumber)
            : `Correspondence ${i}.pdf`,
      objectFormat: imaged && i === 1 ? 'gif' : 'pdf',
      createdOn: minDate(addDays(applicationDate, i * random.int(10, 200)), today),
    });
  }
  // A mark with an image has it among its documents, named by MarkImageName (outside the random stream).
  if (imaged && count === 1) documents.push(markImageDocument(caseNumber, applicationDate));
  const goods: GoodsAndServices[] = [];
  if (kind === 'trademark') {
    const classes = new Set<number>();
    const n = random.weighted([
      [1, 6],
      [2, 3],
      [3, 1],
      [4, 0.5],
    ] as [number, number][]);
    while (classes.size < n) classes.add(random.pick(GOODS_CLASSES));
    for (const c of [...classes].sort((a, b) => a - b))
      goods.push({ classNumber: c, description: GOODS[c]! });
  }
  const history = statusHistory(kind, status, statusDate, applicationDate, registrationDate);
  const word = random.pick(WORDS);
  const renewals = seededRenewals(
    {
      kind,
      caseNumber,
      status,
      applicationDate,
      termDate,
      registrationDate,
      lastRenewalDueDate: lastPaid ?? null,
    },
    today,
  );
  const generated: Omit<GeneratedCase, 'patentDetail'> = {
    kind,
    caseNumber,
    title:
      kind === 'patent'
        ? `Improved ${random.pick(THINGS)}`
        : kind === 'trademark'
          ? `${word.toUpperCase()} ${random.pick(TRADES).toUpperCase()}`
          : `${word} ${random.pick(THINGS)}`,
    status,
    statusDate,
    applicationDate,
    termDate,
    registrationDate,
    lastRenewalDueDate: lastPaid ?? null,
    internationalApplicationNumber: pct
      ? pctApplicationNumber(random.pick(PCT_OFFICES), year, index % 1_000_000)
      : null,
    internationalPublicationNumber: pct
      ? pctPublicationNumber(Math.min(year + 1, Number(today.slice(0, 4))), index % 1_000_000)
      : null,
    internationalRegistrationNumber:
      kind === 'trademark' && random.chance(0.1) ? String(random.int(600_000, 1_800_000)) : null,
    priorityCountryCode:
      kind === 'patent' ? (pct ? random.pick(['AU', 'US', 'GB', 'JP', 'CN', 'DE']) : 'NZ') : null,
    markImageName: imaged ? markImageNameOf(caseNumber) : null,
    noveltyStatement:
      kind === 'design'
        ? `The novelty resides in the shape and configuration of the ${random.pick(THINGS)} as shown.`
        : null,
    history,
    renewals,
    parties,
    documents,
    goodsAndServices: goods,
  };
  return { ...generated, patentDetail: kind === 'patent' ? seededPatentDetail(generated, today) : null };
}

/**
 * The date of a case's status: the filing for a case still at its first status; the registration for a
 * Granted or Registered one; the day after its term's end for an expired patent or design (as the daily
 * pass dates it, jobs/timed-statuses.ts); the day after the missed due date for a mark past its expiry
 * date; else the drawn day.
 */
function dateOfStatus(
  kind: CaseKind,
  status: string,
  dates: {
    applicationDate: string;
    registrationDate: string | null;
    termDate: string;
    lastPaid?: string | undefined;
  },
  drawnDate: string,
): string {
  const { applicationDate, registrationDate, termDate } = dates;
  const termEnds = termEnd(kind, termDate);
  if (status === 'Filed' || status === 'Under Examination') return applicationDate;
  if (registrationDate && (status === 'Granted' || status === 'Registered')) return registrationDate;
  if (status === 'Expired' && termEnds !== null) return addDays(termEnds, 1);
  if (status === 'Registered - past expiry date')
    return addDays(nextSlot(kind, termDate, dates.lastPaid)!.dueDate, 1);
  return drawnDate;
}

/** A case's status changes: its first status, its grant or registration when it has left the register since, its status. */
function statusHistory(
  kind: CaseKind,
  status: string,
  statusDate: string,
  applicationDate: string,
  registrationDate: string | null,
): { status: string; statusDate: string }[] {
  const history = [
    { status: kind === 'trademark' ? 'Under Examination' : 'Filed', statusDate: applicationDate },
  ];
  // A case that left the register (lapsed, expired, removed…) was granted or registered first.
  const onRegister = kind === 'patent' ? 'Granted' : 'Registered';
  if (
    registrationDate &&
    status !== onRegister &&
    (REGISTERED_STATUSES.has(status) || status === 'Registered - past expiry date')
  )
    history.push({ status: onRegister, statusDate: registrationDate });
  if (status !== history[0]!.status) history.push({ status, statusDate });
  return history;
}

/** A generated case's parties: its owner (applicant), an agent firm seven times in ten, a patent's inventors (persons). */
function caseParties(kind: CaseKind, random: Random, clients: number): GeneratedCase['parties'] {
  const owner = random.int(0, clients - 1);
  const parties: GeneratedCase['parties'] = [
    { role: kind === 'patent' ? 'Applicant' : 'Owner', clientId: clientIdAt(FIXTURE_CLIENTS + owner) },
  ];
  if (random.chance(0.7))
    parties.push({ role: 'Agent', clientId: agentFirmAt(random.int(0, clients - 1), clients) });
  if (kind === 'patent') {
    const inventors = random.int(1, 3);
    for (let i = 0; i < inventors; i++)
      parties.push({ role: 'Inventor', clientId: personFrom(random.int(0, clients - 1), clients) });
  }
  return parties;
}

const minDate = (a: string, b: string): string => (a < b ? a : b);

/** The last fee due before `until` (a case that left the register paid no more). */
function paidBefore(kind: CaseKind, termDate: string, until: string): string | undefined {
  let paid: string | undefined;
  for (;;) {
    const slot = nextSlot(kind, termDate, paid);
    if (!slot || slot.dueDate >= until) return paid;
    paid = slot.dueDate;
  }
}
