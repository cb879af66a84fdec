/**
 * Filings of companies (NZBN_004_13 `GET /entities/{nzbn}/filings`, the published Filing with its
 * `attachments`) and the document filings of NZBN_905 (the published DocumentFiling, its DocumentType
 * and DocumentFilingResponse). A filing is the same whoever made it — the sandbox's generator (a
 * company's registration, constitution, annual returns, director changes, insolvencies, removal) or a
 * company's own upload — and is published from this one record. Filing codes and their descriptions are
 * ours (the definition names the fields only), but for the five published DocumentType values. Pure.
 */

/** The published DocumentType: the documents a company files through NZBN_905 (business debt hibernation). */
export const DOCUMENT_TYPES = ['BDHNOTICE', 'BDHNOTAPPR', 'BDHDECDECL', 'BDHEXTENS', 'BDHCANCELL'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** Every filing code with its description (ours, after the companies register's document names). */
export const FILING_CODES = {
  INC: 'Certificate of Incorporation',
  CON: 'Constitution',
  AR: 'Annual Return',
  FS: 'Financial Statements',
  DIRAPP: 'Consent and Certificate of Director',
  DIRCEASE: 'Notice of Change of Directors: director ceased',
  LIQAPP: 'Appointment of Liquidator',
  RECAPP: 'Appointment of Receiver',
  VAAPP: 'Appointment of Administrator',
  INSREP: 'Insolvency Practitioner’s First Report',
  REMNOTICE: 'Notice of Intention to Remove the Company',
  REMOVED: 'Removal from the Register',
  BDHNOTICE: 'Business Debt Hibernation: Notice of Application',
  BDHNOTAPPR: 'Business Debt Hibernation: Not Approved by Creditors',
  BDHDECDECL: 'Business Debt Hibernation: Decision Declined',
  BDHEXTENS: 'Business Debt Hibernation: Extension',
  BDHCANCELL: 'Business Debt Hibernation: Cancellation',
} as const satisfies Record<string, string> & Record<DocumentType, string>;
export type FilingCode = keyof typeof FILING_CODES;

/** One document of a filing, by its identifier. */
export interface FilingAttachment {
  documentId: string;
  documentType: string;
}

/** A filing as both the generator and the store give it. */
export interface FilingRecord {
  filingId: string;
  filingCode: FilingCode;
  /** When the register registered it, as the register writes dates. */
  registrationDate: string;
  attachments: FilingAttachment[];
}

/** A generated filing, with the name of the company as it was filed (its document shows it). */
export interface GeneratedFiling extends FilingRecord {
  entityName: string;
}

/** The published Link. */
export interface Link {
  rel: string;
  href: string;
  methods: string[];
}

/** The published Document: its identifier, its type and where its bytes are read. */
export interface PublishedDocument {
  documentId: string;
  documentType: string | null;
  url: Link | null;
  document: Link | null;
}

/** The published Filing. */
export interface PublishedFiling {
  filingId: string;
  archived: boolean;
  filingCode: string;
  filingCodeDescription: string;
  registrationDate: string;
  url: Link | null;
  attachments: PublishedDocument[];
}

/** Entity statuses of a company no longer on the register: its filings are archived with it (ours). */
const REMOVED_STATUSES = new Set(['80', '91']);

/**
 * A filing as published, given each attachment as published (with its links). `url` reads the filing's
 * first document (null when it has none); `archived` is true once the company is removed.
 */
export function publishedFiling(
  record: FilingRecord,
  attachments: PublishedDocument[],
  entityStatusCode: string,
): PublishedFiling {
  const first = attachments[0]?.document ?? null;
  return {
    filingId: record.filingId,
    archived: REMOVED_STATUSES.has(entityStatusCode),
    filingCode: record.filingCode,
    filingCodeDescription: FILING_CODES[record.filingCode],
    registrationDate: record.registrationDate,
    url: first && { rel: 'filing', href: first.href, methods: ['GET'] },
    attachments,
  };
}

/** Filings in the order they were registered (the identifier breaks ties), as the list answers them. */
export const byRegistration = (a: FilingRecord & { at: number }, b: FilingRecord & { at: number }): number =>
  a.at - b.at || (a.filingId < b.filingId ? -1 : a.filingId > b.filingId ? 1 : 0);

/** The lines of a generated filing's stand-in document (a one-page PDF). */
export const generatedDocumentLines = (
  filing: GeneratedFiling,
  nzbn: string,
  documentId: string,
): string[] => [
  `Sandbox document ${documentId}`,
  FILING_CODES[filing.filingCode],
  `${filing.entityName} (${nzbn})`,
  `Registered ${filing.registrationDate}`,
  'Sandbox test data of the business number register: not a real filing.',
];
