/**
 * What each sandbox document says, by its type, made from the generated record it belongs to: a product
 * disclosure statement's key information, a register entry's facts, a statement of investment policy and
 * objectives, other material information, financial statements (figures drawn from a source keyed by the
 * document), a governing document, a consent, a fund update, and a notice of the regulator. Deterministic:
 * the same register gives the same content.
 */
import { nzDate } from '../../../platform/calendar.ts';
import { seeded } from '../../../platform/random.ts';
import type {
  GeneratedDocument,
  GeneratedFund,
  GeneratedNotice,
  GeneratedOffer,
  GeneratedScheme,
} from './generator.ts';
import type { PdfContent, PdfSection } from './pdf.ts';

/** The record a document belongs to, as generated. */
export type DocumentOwner =
  | { kind: 'scheme'; scheme: GeneratedScheme }
  | { kind: 'offer'; offer: GeneratedOffer }
  | { kind: 'fund'; fund: GeneratedFund; offer: GeneratedOffer };

type Row = readonly [string, string];

const thousands = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const money = (n: number) => `${n < 0 ? '-' : ''}NZD ${thousands(Math.abs(n))}`;
const withNzbn = (c: { name: string; nzbn: string | null }) =>
  c.nzbn ? `${c.name} (NZBN ${c.nzbn})` : c.name;

function offerFacts(offer: GeneratedOffer): Row[] {
  return [
    ['Offer number', offer.offerNumber],
    ['Name', offer.name],
    ['Status', offer.status],
    ['Product type', offer.productType],
    ['Offeror', withNzbn(offer.issuer)],
    ['Opening date', offer.openDate],
    ['Closing date', offer.closeDate ?? 'Not closed'],
    ['Scheme', offer.schemeNumber ?? 'Not offered under a scheme'],
  ];
}

/** What the product is, in the words of a key information summary. */
function whatThisIs(offer: GeneratedOffer): string {
  const issuer = offer.issuer.name;
  if (offer.productType === 'Debt securities')
    return `This is an offer of bonds. You give ${issuer} money, and in return ${issuer} promises to pay you interest and to repay the money at the end of the term.`;
  if (offer.productType === 'Equity securities')
    return `This is an offer of ordinary shares in ${issuer}. Your shares give you a stake in the ownership of ${issuer}; you may receive a return if dividends are paid or the shares increase in value.`;
  if (offer.productType === 'Derivatives')
    return `This is an offer of derivatives by ${issuer}. Their value depends on the value of an underlying asset, and you may lose more than you invest.`;
  return `This is an offer of interests in ${offer.name}. Your money will be pooled with other investors' money and invested in the funds below. ${issuer} will charge you fees for managing your investment.`;
}

/** A fund's first version's figures: its fee and target allocation. */
const fundFigures = (fund: GeneratedFund) =>
  fund.versions[0]!.document as {
    fees: { feeType: string; percentage: number }[];
    assetAllocation: { assetType: string; targetPercentage: number }[];
  };

const assetName = (type: string) => type.toLowerCase().replaceAll('_', ' ');

function productDisclosureStatement(offer: GeneratedOffer): PdfSection[] {
  return [
    { heading: 'Key information summary', paragraphs: [whatThisIs(offer)] },
    { heading: 'The offer', rows: offerFacts(offer) },
    ...(offer.funds.length > 0
      ? [
          {
            heading: 'The funds and their fees',
            rows: offer.funds.map(
              (f): Row => [f.name, `${f.fundType}; total annual fee ${fundFigures(f).fees[0]?.percentage}%`],
            ),
          },
        ]
      : []),
    {
      heading: 'How can you get your money out?',
      paragraphs: [
        offer.funds.length > 0
          ? 'You may withdraw your investment by giving notice to the manager; withdrawals are paid at the unit price of the day they are processed.'
          : 'The products are not redeemable on demand; you may be able to sell them to another investor, but there is no guarantee of a buyer.',
      ],
    },
  ];
}

function registerEntry(offer: GeneratedOffer): PdfSection[] {
  return [
    { heading: 'Register entry', rows: offerFacts(offer) },
    { heading: 'Participants', rows: offer.participants.map((p): Row => [p.role, withNzbn(p)]) },
    { heading: 'Funds', rows: offer.funds.map((f): Row => [f.fundNumber, f.name]) },
  ];
}

function investmentPolicy(offer: GeneratedOffer): PdfSection[] {
  return [
    {
      heading: 'Investment objectives',
      paragraphs: [
        `This statement sets out the investment governance of ${offer.name}: the objectives of each fund, the strategy that pursues them and the limits within which ${offer.issuer.name} manages it.`,
      ],
      rows: offer.funds.map((f): Row => [f.name, `${f.fundType} fund`]),
    },
    ...offer.funds.slice(0, 3).map((f) => ({
      heading: `Target asset allocation: ${f.name}`,
      rows: fundFigures(f).assetAllocation.map(
        (a): Row => [assetName(a.assetType), `${a.targetPercentage}%`],
      ),
    })),
    {
      heading: 'Monitoring and review',
      paragraphs: [
        'Each fund is rebalanced when its allocation moves more than five percentage points from its target. The statement is reviewed every year.',
      ],
    },
  ];
}

function otherMaterialInformation(offer: GeneratedOffer): PdfSection[] {
  const service = offer.participants.find((p) => p.nzbn && p.role !== 'Offeror');
  return [
    {
      heading: 'Material contracts',
      paragraphs: [
        service
          ? `${offer.issuer.name} has appointed ${service.name} as ${service.role.toLowerCase()} under an agreement that either party may end on six months' notice.`
          : `${offer.issuer.name} has no material contracts other than those described in the product disclosure statement.`,
      ],
    },
    {
      heading: 'Related-party transactions',
      paragraphs: [
        `No transaction with a related party of ${offer.issuer.name} was entered into on terms other than arm's length.`,
      ],
    },
    {
      heading: 'Risks',
      paragraphs: [
        'Returns may be affected by changes in interest rates, exchange rates and the value of the assets held. Past performance is not a guarantee of future returns.',
      ],
    },
  ];
}

/** The 31 March on or before `date` (YYYY-MM-DD): the end of the financial year reported. */
const yearEnd = (date: string) => {
  const year = Number(date.slice(0, 4));
  return date.slice(5) >= '03-31' ? `${year}-03-31` : `${year - 1}-03-31`;
};

function financialStatements(name: string, document: GeneratedDocument): PdfSection[] {
  const random = seeded('disclose-sandbox-v1', 'financial-statements', document.documentRecId);
  const end = yearEnd(nzDate(document.addedAt.getTime()));
  const years = [end, `${Number(end.slice(0, 4)) - 1}-03-31`];
  const assets = random.int(5, 900) * 1_000_000 + random.int(0, 999) * 1_000;
  // The year before: the same business, grown or shrunk a little.
  const figures = [assets, Math.round(assets * (0.8 + random.next() * 0.3))].map((total) => {
    const liabilities = Math.round(total * (0.05 + random.next() * 0.5));
    const revenue = Math.round(total * (0.04 + random.next() * 0.08));
    const expenses = Math.round(revenue * (0.3 + random.next() * 0.6));
    return { assets: total, liabilities, revenue, expenses };
  });
  return [
    {
      heading: `Statement of financial position as at ${years[0]}`,
      paragraphs: [`The financial statements of ${name}.`],
      rows: [
        ['', `${years[0]} / ${years[1]}`],
        ['Total assets', figures.map((f) => money(f.assets)).join(' / ')],
        ['Total liabilities', figures.map((f) => money(f.liabilities)).join(' / ')],
        ['Net assets', figures.map((f) => money(f.assets - f.liabilities)).join(' / ')],
      ],
    },
    {
      heading: `Statement of comprehensive income for the year ended ${years[0]}`,
      rows: [
        ['Revenue', figures.map((f) => money(f.revenue)).join(' / ')],
        ['Expenses', figures.map((f) => money(-f.expenses)).join(' / ')],
        ['Profit for the year', figures.map((f) => money(f.revenue - f.expenses)).join(' / ')],
      ],
    },
    {
      heading: 'Audit',
      paragraphs: ['These financial statements have been audited; the auditor’s report is unqualified.'],
    },
  ];
}

function noticeSections(
  notice: GeneratedNotice,
  document: GeneratedDocument,
  addressee: string,
): PdfSection[] {
  const facts: PdfSection = {
    heading: 'Notice of the Financial Markets Authority',
    rows: [
      ['Notice', `${notice.noticeType} (${notice.noticeRecId})`],
      ['Date', notice.noticeDate],
      ['To', addressee],
    ],
  };
  if (document.title === notice.noticeType)
    return [facts, { heading: 'Summary', paragraphs: [notice.summary] }];
  return [
    facts,
    {
      heading: document.title,
      paragraphs: [
        document.title === 'Statement of reasons'
          ? `The Financial Markets Authority gives these reasons for its ${notice.noticeType.toLowerCase()}: ${notice.summary}`
          : `Correspondence between the Financial Markets Authority and ${addressee} about its ${notice.noticeType.toLowerCase()} of ${notice.noticeDate}.`,
      ],
    },
  ];
}

function schemeSections(scheme: GeneratedScheme, document: GeneratedDocument): PdfSection[] {
  const supervisor = scheme.supervisor?.name ?? 'the supervisor';
  if (document.documentType === 'manager-and-supervisor-consent-documents')
    return [
      {
        heading: 'Consent',
        paragraphs: [
          `${scheme.manager.name}, the manager, and ${supervisor}, the supervisor, consent to the registration of ${scheme.name} and to being named in its offer documents.`,
        ],
      },
    ];
  return [
    {
      heading: 'Trust deed',
      paragraphs: [
        `This deed establishes ${scheme.name}, a ${scheme.schemeType.toLowerCase()}, between ${scheme.manager.name} as manager and ${supervisor} as supervisor.`,
      ],
      rows: [
        ['Scheme number', scheme.schemeNumber],
        ['Manager', withNzbn(scheme.manager)],
        ['Supervisor', scheme.supervisor ? withNzbn(scheme.supervisor) : 'None'],
        ['Status', scheme.status],
      ],
    },
  ];
}

function fundUpdate(fund: GeneratedFund): PdfSection[] {
  const last = fund.versions.at(-1)!.document as {
    unitPrice: { price: number; currency: string };
    returns: { period: string; percentage: number }[];
    fees: { feeType: string; percentage: number }[];
    assetAllocation: { assetType: string; actualPercentage: number }[];
  };
  return [
    {
      heading: `Fund update: ${fund.name}`,
      rows: [
        ['Fund', `${fund.fundNumber}, ${fund.fundType}`],
        ['Unit price', `${last.unitPrice.price} ${last.unitPrice.currency}`],
        ...last.returns.map((r): Row => [`Return over ${r.period}`, `${r.percentage}%`]),
        ...last.fees.map(
          (f): Row => [`Fee (${f.feeType.toLowerCase().replaceAll('_', ' ')})`, `${f.percentage}%`],
        ),
      ],
    },
    {
      heading: 'Actual asset allocation',
      rows: last.assetAllocation.map((a): Row => [assetName(a.assetType), `${a.actualPercentage}%`]),
    },
  ];
}

/** The sections of an offer's document, by its type. */
function offerSections(offer: GeneratedOffer, document: GeneratedDocument): PdfSection[] {
  switch (document.documentType) {
    case 'product-disclosure-statements':
      return productDisclosureStatement(offer);
    case 'register-entries':
      return registerEntry(offer);
    case 'statements-of-investment-policy-and-objectives':
      return investmentPolicy(offer);
    case 'other-material-information':
      return otherMaterialInformation(offer);
    default:
      return financialStatements(offer.issuer.name, document);
  }
}

/** A document's content: its title, its record and what it says. */
export function documentContent(owner: DocumentOwner, document: GeneratedDocument): PdfContent {
  const record =
    owner.kind === 'scheme'
      ? { number: owner.scheme.schemeNumber, name: owner.scheme.name, notices: owner.scheme.notices }
      : owner.kind === 'offer'
        ? { number: owner.offer.offerNumber, name: owner.offer.name, notices: owner.offer.notices }
        : { number: owner.fund.fundNumber, name: owner.fund.name, notices: [] };
  const notice = record.notices.find((n) => n.noticeRecId === document.noticeRecId);
  const addressee =
    owner.kind === 'scheme'
      ? owner.scheme.manager.name
      : owner.kind === 'offer'
        ? owner.offer.issuer.name
        : '';
  const sections = notice
    ? noticeSections(notice, document, addressee)
    : owner.kind === 'scheme'
      ? schemeSections(owner.scheme, document)
      : owner.kind === 'offer'
        ? offerSections(owner.offer, document)
        : fundUpdate(owner.fund);
  return {
    title: document.title,
    subject: `${record.name} (${record.number})`,
    recId: document.documentRecId,
    date: nzDate(document.addedAt.getTime()),
    sections,
  };
}
