/**
 * The sandbox register's documents and the regulator's notices: an offer's documents of every kind a
 * real offer lodges, a scheme's governing documents and consents, and the Financial Markets Authority's
 * notices on both, each with its documents. Deterministic: the times of the documents the register has
 * always had are drawn from the record's own source, in the order they always were (so every later draw
 * of the record, its offer and its funds is unchanged); what came with the other kinds and the notices
 * is drawn from sources keyed by the record's number.
 */
import { nzDate } from '../../../platform/calendar.ts';
import { type Random, seeded } from '../../../platform/random.ts';
import { NOTICE_DOCUMENTS } from '../domain/records.ts';
import type { FixtureShape, GeneratedDocument, GeneratedNotice } from './generator.ts';

/** The kinds of an offer's documents: each type (a path segment) and its title. */
export const OFFER_DOCUMENT_KINDS = [
  ['product-disclosure-statements', 'Product disclosure statement'],
  ['register-entries', 'Register entry'],
  ['statements-of-investment-policy-and-objectives', 'Statement of investment policy and objectives'],
  ['other-material-information', 'Other material information'],
  ['financial-statements', 'Financial statements'],
] as const;
const SIPO = OFFER_DOCUMENT_KINDS[2][0];

/** What a notice's text names: the record and who it is addressed to. */
interface NoticeSubject {
  name: string;
  issuer: string;
}

const PROBLEMS = [
  'its product disclosure statement omits the fees of one of its funds',
  'its register entry describes an investment strategy a fund does not follow',
  'its other material information has not been kept up to date',
  'its annual financial statements were not lodged when due',
];
const CORRECTIONS = [
  'the description of a fund’s risk in the product disclosure statement',
  'the fees stated in the register entry',
  'advertising that was inconsistent with the product disclosure statement',
];
const EXEMPTIONS = [
  'lodging a fund update for one quarter',
  'stating the unit price of one fund in its fund update',
  'the date its annual financial statements are due, for one year',
];

/** The types of the regulator's notices and the summary each states. */
export const NOTICE_TYPES: readonly {
  type: string;
  summary: (s: NoticeSubject, random: Random) => string;
}[] = [
  {
    type: 'Stop order',
    summary: (s, random) =>
      `The Financial Markets Authority ordered that no offer, issue or transfer of products be made under ${s.name} because ${random.pick(PROBLEMS)}.`,
  },
  {
    type: 'Temporary stop order',
    summary: (s, random) =>
      `The Financial Markets Authority stopped offers under ${s.name} while it considers whether ${random.pick(PROBLEMS)}.`,
  },
  {
    type: 'Direction order',
    summary: (s, random) =>
      `The Financial Markets Authority directed ${s.issuer} to correct ${random.pick(CORRECTIONS)} and to tell investors of the correction.`,
  },
  {
    type: 'Designation notice',
    summary: (s) =>
      `The Financial Markets Authority designated the interests offered under ${s.name} as managed investment products.`,
  },
  {
    type: 'Exemption notice',
    summary: (s, random) =>
      `The Financial Markets Authority exempted ${s.issuer} from ${random.pick(EXEMPTIONS)}, on the conditions the notice states.`,
  },
];

/** What the making of a record's documents shares: the clock, the record's life and the numbering. */
export interface DocumentMaking {
  readonly now: Date;
  /** The next document record identifier (`DOC100001`, …), in the order documents are made. */
  nextDoc(): string;
}

/** A time between `from` and `now`, `u` of the way (a draw in [0, 1)). */
const between = (from: Date, now: Date, u: number) =>
  new Date(from.getTime() + u * (now.getTime() - from.getTime()));

/** Documents of one type, titled `<title> <n>`, each at a time drawn from `random` (one draw each). */
function documentsOf(
  g: DocumentMaking,
  random: Random,
  kind: readonly [type: string, title: string],
  count: number,
  from: Date,
): GeneratedDocument[] {
  return Array.from({ length: count }, (_, i) => ({
    documentRecId: g.nextDoc(),
    documentType: kind[0],
    noticeRecId: null,
    title: `${kind[1]} ${i + 1}`,
    addedAt: between(from, g.now, random.next()),
  }));
}

/** The titles of a notice's documents: the notice itself, its reasons, then correspondence. */
const noticeDocumentTitle = (type: string, i: number) =>
  i === 0 ? type : i === 1 ? 'Statement of reasons' : `Correspondence ${i - 1}`;

/**
 * A notice recorded at `at` with `count` documents (an hour apart, never after now): its type and
 * summary drawn from `random`.
 */
function makeNotice(
  g: DocumentMaking,
  random: Random,
  subject: NoticeSubject,
  at: Date,
  count: number,
): { notice: GeneratedNotice; documents: GeneratedDocument[] } {
  const { type, summary } = random.pick(NOTICE_TYPES);
  const noticeRecId = g.nextDoc();
  const notice = {
    noticeRecId,
    noticeType: type,
    noticeDate: nzDate(at.getTime()),
    summary: summary(subject, random),
    recordedAt: at,
  };
  const documents = Array.from({ length: count }, (_, i) => ({
    documentRecId: g.nextDoc(),
    documentType: NOTICE_DOCUMENTS,
    noticeRecId,
    title: noticeDocumentTitle(type, i),
    addedAt: new Date(Math.min(at.getTime() + i * 3_600_000, g.now.getTime())),
  }));
  return { notice, documents };
}

/** Notices of a record, one per entry of `plan` (when, and how many documents), drawn from `keyed`. */
function noticesOf(
  g: DocumentMaking,
  keyed: Random,
  subject: NoticeSubject,
  plan: readonly { documents: number; at: Date }[],
): { notices: GeneratedNotice[]; documents: GeneratedDocument[] } {
  const notices: GeneratedNotice[] = [];
  const documents: GeneratedDocument[] = [];
  for (const entry of plan) {
    const made = makeNotice(g, keyed, subject, entry.at, entry.documents);
    notices.push(made.notice);
    documents.push(...made.documents);
  }
  return { notices, documents };
}

/** What a record's documents are made from: its number, name, issuer, registration and fixture shape. */
export interface DocumentsPlan extends NoticeSubject {
  number: string;
  registered: Date;
  shape: FixtureShape | undefined;
}

/**
 * An offer's documents and notices. A fixture's `documents` take the kinds in turn (every kind, the
 * statement of investment policy and objectives only in a scheme); a generated offer has 1–3 product
 * disclosure statements, 1–2 register entries and pieces of other material information, 1–3 financial
 * statements, a statement of investment policy and objectives in a scheme, and sometimes a notice.
 */
export function offerDocuments(
  g: DocumentMaking,
  random: Random,
  plan: DocumentsPlan & { inScheme: boolean },
): { documents: GeneratedDocument[]; notices: GeneratedNotice[] } {
  const { shape, registered } = plan;
  const keyed = seeded('disclose-sandbox-v1', 'offer-documents', plan.number);
  const kinds = OFFER_DOCUMENT_KINDS.filter(([type]) => plan.inScheme || type !== SIPO);
  const documents: GeneratedDocument[] = [];
  let noticePlan: { documents: number; at: Date }[];
  if (shape?.documents !== undefined) {
    // The kinds in turn: as many documents, and so as many draws from the record's source, as always.
    const total = shape.documents;
    kinds.forEach((kind, k) => {
      const count = Math.max(0, Math.ceil((total - k) / kinds.length));
      documents.push(...documentsOf(g, random, kind, count, registered));
    });
    noticePlan = (shape.offerNotices ?? []).map((count) => ({
      documents: count,
      at: between(registered, g.now, keyed.next()),
    }));
  } else {
    const statements = random.int(1, 3);
    const withNotice = random.chance(0.3);
    documents.push(...documentsOf(g, random, kinds[0]!, statements, registered));
    const noticeAt = withNotice ? between(registered, g.now, random.next()) : undefined;
    for (const kind of kinds.slice(1)) {
      const count = kind[0] === SIPO ? 1 : keyed.int(1, kind[0] === 'financial-statements' ? 3 : 2);
      documents.push(...documentsOf(g, keyed, kind, count, registered));
    }
    noticePlan = noticeAt ? [{ documents: keyed.int(1, 3), at: noticeAt }] : [];
  }
  const notices = noticesOf(g, keyed, plan, noticePlan);
  return { documents: [...documents, ...notices.documents], notices: notices.notices };
}

/**
 * A scheme's documents and notices: governing documents (a fixture's `documents`, else 1–3), the
 * manager's and supervisor's consent, and notices (a fixture's `schemeNotices`, else one for a few).
 */
export function schemeDocuments(
  g: DocumentMaking,
  random: Random,
  plan: DocumentsPlan,
): { documents: GeneratedDocument[]; notices: GeneratedNotice[] } {
  const { shape, registered } = plan;
  const keyed = seeded('disclose-sandbox-v1', 'scheme-documents', plan.number);
  const governing = shape?.documents ?? random.int(1, 3);
  const withNotice = !shape && random.chance(0.2);
  const documents = [
    ...documentsOf(g, random, ['governing-documents', 'Governing document'], governing, registered),
    ...documentsOf(
      g,
      random,
      ['manager-and-supervisor-consent-documents', 'Consent of the manager and supervisor'],
      1,
      registered,
    ),
  ];
  // A fixture's scheme has always drawn two times here: drawn still, so its offer's draws are unchanged.
  const legacy = Array.from({ length: shape ? 2 : withNotice ? 1 : 0 }, () => random.next());
  const noticePlan = shape
    ? (shape.schemeNotices ?? []).map((count) => ({
        documents: count,
        at: between(registered, g.now, keyed.next()),
      }))
    : legacy.map((u) => ({ documents: keyed.int(1, 2), at: between(registered, g.now, u) }));
  const notices = noticesOf(g, keyed, plan, noticePlan);
  return { documents: [...documents, ...notices.documents], notices: notices.notices };
}
