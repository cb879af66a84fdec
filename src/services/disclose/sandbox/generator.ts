/**
 * The sandbox's offers register, deterministic for a scale and a "now" (the sandbox clock when the seed
 * runs): schemes with managers and supervisors drawn from the sandbox business number register, their
 * offers and funds, each with several versions over the last years, participants, documents and the
 * regulator's notices (generator-documents.ts), filing histories and filed compliance activities, so that on the sandbox clock some activities are filed, some
 * upcoming and some overdue. The fixed test cases come first (fixtures.ts, the README's table).
 */
import { nzDate } from '../../../platform/calendar.ts';
import { type Random, seeded } from '../../../platform/random.ts';
import type { ActivityKind } from '../domain/activities.ts';
import { type DocumentMaking, offerDocuments, schemeDocuments } from './generator-documents.ts';
import { FUND_KINDS, type FundMaking, makeFund } from './generator-funds.ts';

/** Companies of the sandbox business number register, by index (the same names and numbers). */
export interface OrganisationSource {
  readonly count: number;
  organisation(index: number): { name: string; nzbn: string };
}

export interface GeneratedVersion {
  version: number;
  at: Date;
  change: string;
  document: Record<string, unknown>;
}

export interface GeneratedFund {
  fundNumber: string;
  name: string;
  fundType: string;
  registeredOn: string;
  fphRequired: boolean;
  /** Each with the offer version current when it was made. */
  versions: (GeneratedVersion & { offerVersion: number; holdingsPeriodEnd: string | null })[];
  holdings: {
    assetName: string;
    assetType: string;
    isin: string | null;
    value: number;
    percentageOfFund: number;
    currency: string;
  }[];
  filings: { kind: ActivityKind; periodEnd: string; dueDate: string; filedAt: Date; late: boolean }[];
}

export interface GeneratedDocument {
  documentRecId: string;
  documentType: string;
  noticeRecId: string | null;
  title: string;
  addedAt: Date;
}

/** A notice of the regulator on an offer or a scheme; its documents are the record's that name it. */
export interface GeneratedNotice {
  noticeRecId: string;
  noticeType: string;
  /** New Zealand date, YYYY-MM-DD. */
  noticeDate: string;
  summary: string;
  recordedAt: Date;
}

export interface GeneratedParticipant {
  role: string;
  name: string;
  nzbn: string | null;
}

export interface GeneratedScheme {
  schemeNumber: string;
  name: string;
  status: string;
  schemeType: string;
  manager: { name: string; nzbn: string };
  supervisor: { name: string; nzbn: string } | null;
  versions: GeneratedVersion[];
  participants: GeneratedParticipant[];
  documents: GeneratedDocument[];
  notices: GeneratedNotice[];
}

export interface GeneratedOffer {
  offerNumber: string;
  schemeNumber: string | null;
  name: string;
  status: string;
  productType: string;
  issuer: { name: string; nzbn: string };
  openDate: string;
  closeDate: string | null;
  versions: GeneratedVersion[];
  participants: GeneratedParticipant[];
  documents: GeneratedDocument[];
  notices: GeneratedNotice[];
  funds: GeneratedFund[];
}

export interface GeneratedRegister {
  schemes: GeneratedScheme[];
  offers: GeneratedOffer[];
}

export const SCHEME_TYPES = [
  'KiwiSaver scheme',
  'Superannuation scheme',
  'Managed investment scheme',
  'Restricted scheme',
] as const;
/** How often each scheme type is generated, in the order of `SCHEME_TYPES`. */
const SCHEME_TYPE_WEIGHTS = [1, 3, 12, 2];
/** The share of generated schemes that may be KiwiSaver schemes (the sandbox's invariants). */
export const KIWISAVER_SHARE = 0.2;
export const SCHEME_STATUSES = [
  'Open',
  'Closed to new investors',
  'Closed to all investment',
  'Wound up',
] as const;
export const PRODUCT_TYPES = [
  'Managed investment products',
  'Debt securities',
  'Equity securities',
  'Derivatives',
] as const;
/** What an offer of each product type outside a scheme is called (`<issuer> Bond Offer`, …). */
export const OFFER_NAMES: Readonly<Record<string, string>> = {
  'Debt securities': 'Bond',
  'Equity securities': 'Share',
  Derivatives: 'Derivatives',
};
export const OFFER_STATUSES = ['Open', 'Closed'] as const;
const PEOPLE = [
  'Aroha Ngata',
  'James Wilson',
  'Mei Chen',
  'Sione Tupou',
  'Priya Patel',
  'Liam Murphy',
  'Hana Walker',
  'Tom Brown',
  'Ana Silva',
  'Rawiri Henare',
  'Grace Lee',
  'Sam Taylor',
];

export interface GeneratorOptions {
  schemes: number;
  standaloneOffers: number;
  now: Date;
}

const DAY = 86_400_000;
const pad = (n: number) => String(n).padStart(5, '0');

/** Times of the versions of a record between `from` and `now`, oldest first. */
function versionTimes(random: Random, count: number, from: Date, now: Date): Date[] {
  const span = now.getTime() - from.getTime();
  return Array.from({ length: count }, (_, i) =>
    i === 0 ? from : new Date(from.getTime() + Math.floor(span * (i / count + random.next() / (count * 2)))),
  );
}

export interface FixtureShape {
  participants?: number;
  documents?: number;
  funds?: number;
  /**
   * Filings of the first fund: every FPH period, none, or all but the last ended period of both kinds
   * (so its last fund update and FPH are Upcoming or Overdue on the sandbox clock).
   */
  fphFiled?: 'all' | 'none' | 'all-but-last';
  /** Offers of the fixture's scheme besides its first (numbered after every other offer). */
  furtherOffers?: number;
  /** The regulator's notices on the scheme and on the offer: each the number of its documents. */
  schemeNotices?: readonly number[];
  offerNotices?: readonly number[];
}

/** What the making of one register shares: the clock, the companies and the running numbers. */
interface Generation extends FundMaking, DocumentMaking {
  readonly source: OrganisationSource;
  /** How many schemes are fixed test cases (the first ones). */
  readonly fixtures: number;
}

function generation(source: OrganisationSource, now: Date, fixtures: number): Generation {
  let documentNumber = 100_000;
  let fundNumber = 10_000;
  return {
    source,
    now,
    today: nzDate(now.getTime()),
    fixtures,
    nextDoc: () => `DOC${++documentNumber}`,
    nextFund: () => `FND${pad(++fundNumber)}`,
  };
}

/** A company of the business number register, drawn. */
const company = (g: Generation, random: Random) => g.source.organisation(random.int(0, g.source.count - 1));

const OFFER_CHANGES = [
  'Offer registered',
  'Product disclosure statement replaced',
  'Offer details amended',
  'Register entry updated',
];

/** What every version of an offer states; the name, status and close date vary by version. */
interface OfferFacts {
  offerNumber: string;
  name: string;
  status: string;
  productType: string;
  schemeNumber: string | null;
  issuer: { name: string; nzbn: string };
  openDate: string;
  closeDate: string | null;
}

/** An offer's 2–4 versions since its registration: the last one states its current facts. */
function offerVersions(
  g: Generation,
  random: Random,
  facts: OfferFacts,
  registered: Date,
): GeneratedVersion[] {
  const { name, status, closeDate } = facts;
  const count = random.int(2, 4);
  const times = versionTimes(random, count, registered, g.now);
  const versions = times.map((at, i) => ({
    version: i + 1,
    at,
    change: OFFER_CHANGES[i % OFFER_CHANGES.length]!,
    document: {
      offerNumber: facts.offerNumber,
      name: i === 0 || random.chance(0.7) ? name : `${name} (${i + 1})`,
      status: i === times.length - 1 ? status : 'Open',
      productType: facts.productType,
      schemeNumber: facts.schemeNumber,
      issuer: facts.issuer,
      openDate: facts.openDate,
      closeDate: i === times.length - 1 ? closeDate : null,
    },
  }));
  versions.at(-1)!.document.name = name;
  return versions;
}

/** An offer's participants: the offeror first, then directors and service providers. */
function offerParticipants(
  g: Generation,
  random: Random,
  issuer: { name: string; nzbn: string },
  shape: FixtureShape | undefined,
): GeneratedParticipant[] {
  const participants: GeneratedParticipant[] = [{ role: 'Offeror', ...issuer }];
  const wanted = shape?.participants ?? random.int(2, 6);
  while (participants.length < wanted) {
    participants.push(
      participants.length % 3 === 1
        ? { role: random.pick(['Auditor', 'Registrar', 'Custodian', 'Promoter']), ...company(g, random) }
        : { role: 'Director', name: `${random.pick(PEOPLE)} ${participants.length}`, nzbn: null },
    );
  }
  return participants;
}

/** An offer's funds: 1–4 in a scheme (a fixture's count), none outside one; each from a fork. */
function offerFunds(
  g: Generation,
  random: Random,
  offer: {
    name: string;
    scheme: GeneratedScheme | null;
    shape: FixtureShape | undefined;
    registered: Date;
    versions: GeneratedVersion[];
  },
): GeneratedFund[] {
  const { scheme, shape } = offer;
  const fphRequired = !!scheme && scheme.schemeType !== 'Restricted scheme' && scheme.status !== 'Wound up';
  const fundCount = shape?.funds ?? (scheme ? random.int(1, 4) : 0);
  const firstKind = random.int(0, FUND_KINDS.length - 1);
  return Array.from({ length: fundCount }, (_, i) =>
    makeFund(g, random.fork(`fund-${i}`), {
      offerName: offer.name,
      fphRequired,
      registered: new Date(offer.registered.getTime() + i * DAY),
      offerVersions: offer.versions,
      fphFiled: i === 0 ? shape?.fphFiled : undefined,
      index: i,
      firstKind,
    }),
  );
}

/**
 * An offer: of a scheme (its manager the offeror), or outside one (debt or equity, a drawn offeror). A
 * scheme's further offers are its `edition` 2, 3, … (named so).
 */
function makeOffer(
  g: Generation,
  random: Random,
  offerNumber: string,
  scheme: GeneratedScheme | null,
  shape: FixtureShape | undefined,
  edition = 1,
): GeneratedOffer {
  const now = g.now;
  const issuer = scheme ? scheme.manager : company(g, random);
  const productType = scheme ? PRODUCT_TYPES[0] : random.pick(PRODUCT_TYPES.slice(1));
  const name = scheme
    ? `${scheme.name.replace(/Scheme$/, 'Offer')}${edition > 1 ? ` ${edition}` : ''}`
    : `${issuer.name} ${OFFER_NAMES[productType]} Offer`;
  const registered = new Date(now.getTime() - random.int(400, 2500) * DAY);
  const status = scheme ? (scheme.status === 'Open' ? 'Open' : 'Closed') : random.pick(OFFER_STATUSES);
  const openDate = nzDate(registered.getTime());
  const closeDate = status === 'Closed' ? nzDate(now.getTime() - random.int(10, 300) * DAY) : null;
  const schemeNumber = scheme?.schemeNumber ?? null;
  const facts = { offerNumber, name, status, productType, schemeNumber, issuer, openDate, closeDate };
  const versions = offerVersions(g, random, facts, registered);
  const participants = offerParticipants(g, random, issuer, shape);
  const { documents, notices } = offerDocuments(g, random, {
    number: offerNumber,
    name,
    issuer: issuer.name,
    registered,
    shape,
    inScheme: !!scheme,
  });
  const funds = offerFunds(g, random, { name, scheme, shape, registered, versions });
  return {
    offerNumber,
    schemeNumber,
    name,
    status,
    productType,
    issuer,
    openDate,
    closeDate,
    versions,
    participants,
    documents,
    notices,
    funds,
  };
}

const SCHEME_CHANGES = [
  'Scheme registered',
  'Trust deed amended',
  'Supervisor changed',
  'Scheme details amended',
];

/** A scheme's 2–4 versions since its registration; the first with another supervisor. */
function schemeVersions(
  g: Generation,
  random: Random,
  facts: Omit<GeneratedScheme, 'versions' | 'participants' | 'documents' | 'notices'>,
  registered: Date,
): GeneratedVersion[] {
  const { status, supervisor } = facts;
  const times = versionTimes(random, random.int(2, 4), registered, g.now);
  return times.map((at, i) => ({
    version: i + 1,
    at,
    change: SCHEME_CHANGES[i % 4]!,
    document: {
      schemeNumber: facts.schemeNumber,
      name: facts.name,
      status: i === times.length - 1 ? status : 'Open',
      schemeType: facts.schemeType,
      manager: facts.manager,
      supervisor: i === times.length - 1 || i > 0 ? supervisor : company(g, random.fork('first-supervisor')),
    },
  }));
}

/** A scheme's participants: its manager and supervisor first, then directors and service providers. */
function schemeParticipants(
  g: Generation,
  random: Random,
  manager: { name: string; nzbn: string },
  supervisor: { name: string; nzbn: string },
  shape: FixtureShape | undefined,
): GeneratedParticipant[] {
  const participants: GeneratedParticipant[] = [
    { role: 'Manager', ...manager },
    { role: 'Supervisor', ...supervisor },
  ];
  const wanted = shape?.participants ?? random.int(3, 7);
  while (participants.length < wanted) {
    participants.push(
      participants.length % 2 === 0
        ? {
            role: random.pick(['Custodian', 'Administration manager', 'Investment manager', 'Auditor']),
            ...company(g, random),
          }
        : {
            role: 'Director of the manager',
            name: `${random.pick(PEOPLE)} ${participants.length}`,
            nzbn: null,
          },
    );
  }
  return participants;
}

/** Scheme `n`: a fixture's shape for the first ones (an open KiwiSaver scheme), else drawn. */
function makeScheme(
  g: Generation,
  random: Random,
  n: number,
  shape: FixtureShape | undefined,
): GeneratedScheme {
  const schemeNumber = `SCH${pad(10_000 + n)}`;
  const manager = company(g, random);
  const supervisor = company(g, random.fork('supervisor'));
  const fixed = n < g.fixtures;
  // KiwiSaver schemes are few (a handful of large managers run them); most are managed investment schemes.
  const schemeType = fixed
    ? SCHEME_TYPES[0]
    : random.weighted(SCHEME_TYPES.map((t, i) => [t, SCHEME_TYPE_WEIGHTS[i]!] as const));
  const status = fixed
    ? 'Open'
    : random.weighted(SCHEME_STATUSES.map((s, i) => [s, [6, 2, 1, 1][i]!] as const));
  const name = `${manager.name.replace(/ (Limited|Ltd)$/i, '')} ${schemeType === 'KiwiSaver scheme' ? 'KiwiSaver' : 'Investment'} Scheme`;
  const registered = new Date(g.now.getTime() - random.int(800, 3000) * DAY);
  const facts = { schemeNumber, name, status, schemeType, manager, supervisor };
  const versions = schemeVersions(g, random, facts, registered);
  const participants = schemeParticipants(g, random, manager, supervisor, shape);
  const { documents, notices } = schemeDocuments(g, random, {
    number: schemeNumber,
    name,
    issuer: manager.name,
    registered,
    shape,
  });
  return {
    schemeNumber,
    name,
    status,
    schemeType,
    manager,
    supervisor,
    versions,
    participants,
    documents,
    notices,
  };
}

export function generateRegister(
  source: OrganisationSource,
  options: GeneratorOptions,
  fixtures: readonly FixtureShape[],
): GeneratedRegister {
  const g = generation(source, options.now, fixtures.length);
  const schemes: GeneratedScheme[] = [];
  const offers: GeneratedOffer[] = [];
  let offerNumber = 10_000;
  for (let n = 0; n < options.schemes; n++) {
    const shape = fixtures[n];
    const random = seeded('disclose-sandbox-v1', 'scheme', n);
    const scheme = makeScheme(g, random, n, shape);
    schemes.push(scheme);
    offers.push(makeOffer(g, random.fork('offer'), `OFR${pad(++offerNumber)}`, scheme, shape));
  }
  for (let n = 0; n < options.standaloneOffers; n++) {
    const random = seeded('disclose-sandbox-v1', 'offer', n);
    offers.push(makeOffer(g, random, `OFR${pad(++offerNumber)}`, null, undefined));
  }
  // Further offers of a scheme (a fixture's `furtherOffers`, else one for a few), numbered after the
  // others and drawn from sources of their own: the rest of the register is as it would be without them.
  for (const [n, scheme] of schemes.entries()) {
    const random = seeded('disclose-sandbox-v1', 'further-offers', n);
    const count = n < fixtures.length ? (fixtures[n]!.furtherOffers ?? 0) : random.chance(0.1) ? 1 : 0;
    for (let k = 0; k < count; k++) {
      const number = `OFR${pad(++offerNumber)}`;
      offers.push(makeOffer(g, random.fork(`offer-${k}`), number, scheme, undefined, k + 2));
    }
  }
  return { schemes, offers };
}
