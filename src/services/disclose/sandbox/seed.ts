/**
 * The sandbox seed hook of the offers register (`rsg seed`): the generated register (generator.ts, with
 * the fixed test cases of fixtures.ts first) written in one transaction, its documents as PDFs that say
 * what their type says (document-content.ts) in the document store, and authority over the fixtures' funds for the operators' sandbox organisation.
 * Idempotent: a register already there is kept as it is (filings made through the API survive).
 */
import type { SeedContext, SeedScale } from '../../contract.ts';
import { type DocumentFiles, documentFolder, folderDocumentFiles } from '../store/document-files.ts';
import { insertRegister, registerIsSeeded, type SeedRows } from '../store/seed.ts';
import { type DocumentOwner, documentContent } from './document-content.ts';
import { FIXTURES } from './fixtures.ts';
import {
  type GeneratedDocument,
  type GeneratedFund,
  type GeneratedNotice,
  type GeneratedOffer,
  type GeneratedRegister,
  type GeneratedScheme,
  generateRegister,
  type OrganisationSource,
} from './generator.ts';
import { documentPdf } from './pdf.ts';

export const SCALES: Record<SeedScale, { schemes: number; standaloneOffers: number }> = {
  small: { schemes: 30, standaloneOffers: 20 },
  full: { schemes: 300, standaloneOffers: 200 },
};

export interface DiscloseSeedOptions {
  /** Where managers, supervisors and offerors come from (default: the sandbox business number register). */
  organisations?: OrganisationSource;
  files?: DocumentFiles;
  schemes?: number;
  standaloneOffers?: number;
}

export async function seedDisclose(context: SeedContext, options: DiscloseSeedOptions = {}): Promise<string> {
  const pool = context.database.pool;
  if (await registerIsSeeded(pool)) return 'offers register already seeded';
  let source = options.organisations;
  if (!source) {
    const companies = (await context.registers?.businessNumbers?.companies(500)) ?? [];
    if (companies.length === 0) return 'skipped: the sandbox business number register has no companies yet';
    source = { count: companies.length, organisation: (i) => companies[i]! };
  }
  const scale = SCALES[context.scale];
  const now = context.clock.now();
  const register = generateRegister(
    source,
    {
      schemes: options.schemes ?? scale.schemes,
      standaloneOffers: options.standaloneOffers ?? scale.standaloneOffers,
      now,
    },
    FIXTURES,
  );
  const files = options.files ?? folderDocumentFiles(documentFolder('sandbox'));
  const sizes = await writeDocuments(register, files);
  const inserted = await insertRegister(pool, rowsOf(register, sizes));
  if (!inserted) return 'offers register already seeded';
  let organisation = '';
  for (const [index, fixture] of FIXTURES.entries()) {
    if (!fixture.authority) continue;
    for (const fund of register.offers[index]?.funds ?? []) {
      if (context.identity.grantOperatorsOrganisationAuthority) {
        organisation = await context.identity.grantOperatorsOrganisationAuthority(
          'disclose',
          'fund',
          fund.fundNumber,
        );
      }
      await context.identity.grantOperatorsAuthority('disclose', 'fund', fund.fundNumber);
    }
  }
  const funds = register.offers.reduce((n, o) => n + o.funds.length, 0);
  return `${register.schemes.length} schemes, ${register.offers.length} offers, ${funds} funds${organisation ? `; organisation ${organisation} has authority over the fixtures' funds` : ''}`;
}

/** Every generated document with the record it belongs to, in the order they were made. */
function ownedDocuments(
  register: GeneratedRegister,
): { owner: DocumentOwner; document: GeneratedDocument }[] {
  return [
    ...register.schemes.flatMap((scheme) =>
      scheme.documents.map((document) => ({ owner: { kind: 'scheme', scheme } as const, document })),
    ),
    ...register.offers.flatMap((offer) =>
      offer.documents.map((document) => ({ owner: { kind: 'offer', offer } as const, document })),
    ),
    ...register.offers.flatMap((offer) =>
      offer.funds.flatMap((fund) =>
        fundUpdateDocument(fund.fundNumber, fund.versions.at(-1)!.at).map((document) => ({
          owner: { kind: 'fund', fund, offer } as const,
          document,
        })),
      ),
    ),
  ];
}

/** Each document as a PDF in the document store (its content: document-content.ts); their sizes. */
async function writeDocuments(
  register: GeneratedRegister,
  files: DocumentFiles,
): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const { owner, document } of ownedDocuments(register)) {
    const bytes = await documentPdf(documentContent(owner, document));
    await files.put(`${document.documentRecId}.pdf`, bytes);
    sizes.set(document.documentRecId, bytes.length);
  }
  return sizes;
}

/** The fund update document of a fund: one per fund, its record id from the fund number. */
const fundUpdateDocument = (fundNumber: string, at: Date): GeneratedDocument[] => [
  {
    documentRecId: `DOC9${fundNumber.slice(3).padStart(6, '0')}`,
    documentType: 'fund-update-document',
    noticeRecId: null,
    title: 'Fund update',
    addedAt: at,
  },
];

/** A generated document as its row, of the record it belongs to (its size from the document store). */
type DocumentOf = (
  kind: string,
  number: string,
  d: {
    documentRecId: string;
    documentType: string;
    noticeRecId: string | null;
    title: string;
    addedAt: Date;
  },
) => SeedRows['disclose_documents'][number];

const documentRow =
  (sizes: Map<string, number>): DocumentOf =>
  (kind, number, d) => ({
    document_rec_id: d.documentRecId,
    subject_kind: kind,
    subject_number: number,
    document_type: d.documentType,
    notice_rec_id: d.noticeRecId,
    title: d.title,
    file_name: `${d.documentRecId}.pdf`,
    content_type: 'application/pdf',
    size_bytes: sizes.get(d.documentRecId) ?? 1,
    storage_key: `${d.documentRecId}.pdf`,
    added_at: d.addedAt,
  });

const participantRow =
  (kind: string, number: string) =>
  (p: { role: string; name: string; nzbn: string | null }, position: number) => ({
    subject_kind: kind,
    subject_number: number,
    position,
    role: p.role,
    name: p.name,
    nzbn: p.nzbn,
  });

const noticeRow = (kind: string, number: string) => (n: GeneratedNotice) => ({
  notice_rec_id: n.noticeRecId,
  subject_kind: kind,
  subject_number: number,
  notice_type: n.noticeType,
  notice_date: n.noticeDate,
  summary: n.summary,
  recorded_at: n.recordedAt,
});

/** A record's version as its filing-history entry (a register entry). */
const historyRow = (kind: string, number: string, v: { at: Date; change: string }) => ({
  subject_kind: kind,
  subject_number: number,
  fund_number: null,
  filed_at: v.at,
  filing_type: 'REGISTER_ENTRY',
  description: v.change,
  late: false,
  filed_by: null,
});

/** The rows of the generated register, table by table, in the order they are inserted. */
function rowsOf(register: GeneratedRegister, sizes: Map<string, number>): SeedRows {
  const rows: SeedRows = {
    disclose_schemes: [],
    disclose_scheme_versions: [],
    disclose_offers: [],
    disclose_offer_versions: [],
    disclose_funds: [],
    disclose_fund_versions: [],
    disclose_fund_holdings: [],
    disclose_participants: [],
    disclose_notices: [],
    disclose_documents: [],
    disclose_filing_history: [],
    disclose_compliance_activities: [],
  };
  const document = documentRow(sizes);
  for (const s of register.schemes) addScheme(rows, document, s);
  for (const o of register.offers) {
    addOffer(rows, document, o);
    for (const f of o.funds) addFund(rows, document, o, f);
  }
  return rows;
}

/** A scheme, its versions (each a filing-history entry), participants and documents. */
function addScheme(rows: SeedRows, document: DocumentOf, s: GeneratedScheme): void {
  const last = s.versions.at(-1)!;
  rows.disclose_schemes.push({
    scheme_number: s.schemeNumber,
    name: s.name,
    status: s.status,
    scheme_type: s.schemeType,
    manager_nzbn: s.manager.nzbn,
    manager_name: s.manager.name,
    supervisor_nzbn: s.supervisor?.nzbn ?? null,
    supervisor_name: s.supervisor?.name ?? null,
    version: last.version,
    first_registered: s.versions[0]!.at,
    last_changed: last.at,
  });
  for (const v of s.versions) {
    rows.disclose_scheme_versions.push({
      scheme_number: s.schemeNumber,
      version: v.version,
      changed_at: v.at,
      change: v.change,
      document: v.document,
    });
    rows.disclose_filing_history.push(historyRow('scheme', s.schemeNumber, v));
  }
  rows.disclose_participants.push(...s.participants.map(participantRow('scheme', s.schemeNumber)));
  rows.disclose_notices.push(...s.notices.map(noticeRow('scheme', s.schemeNumber)));
  rows.disclose_documents.push(...s.documents.map((d) => document('scheme', s.schemeNumber, d)));
}

/** An offer (its last change the latest of its own and its funds'), versions, participants and documents. */
function addOffer(rows: SeedRows, document: DocumentOf, o: GeneratedOffer): void {
  const last = o.versions.at(-1)!;
  let lastChanged = last.at;
  for (const f of o.funds) for (const v of f.versions) if (v.at > lastChanged) lastChanged = v.at;
  rows.disclose_offers.push({
    offer_number: o.offerNumber,
    scheme_number: o.schemeNumber,
    name: o.name,
    status: o.status,
    product_type: o.productType,
    issuer_nzbn: o.issuer.nzbn,
    issuer_name: o.issuer.name,
    open_date: o.openDate,
    close_date: o.closeDate,
    version: last.version,
    first_registered: o.versions[0]!.at,
    last_changed: lastChanged,
  });
  for (const v of o.versions) {
    rows.disclose_offer_versions.push({
      offer_number: o.offerNumber,
      version: v.version,
      changed_at: v.at,
      change: v.change,
      document: v.document,
    });
    rows.disclose_filing_history.push(historyRow('offer', o.offerNumber, v));
  }
  rows.disclose_participants.push(...o.participants.map(participantRow('offer', o.offerNumber)));
  rows.disclose_notices.push(...o.notices.map(noticeRow('offer', o.offerNumber)));
  rows.disclose_documents.push(...o.documents.map((d) => document('offer', o.offerNumber, d)));
}

/** A fund of offer `o`: its versions, holdings, filings (activities and history) and fund update document. */
function addFund(rows: SeedRows, document: DocumentOf, o: GeneratedOffer, f: GeneratedFund): void {
  const fLast = f.versions.at(-1)!;
  rows.disclose_funds.push({
    fund_number: f.fundNumber,
    offer_number: o.offerNumber,
    name: f.name,
    fund_type: f.fundType,
    registered_on: f.registeredOn,
    fph_required: f.fphRequired,
    version: fLast.version,
    last_changed: fLast.at,
  });
  const holdingsVersion =
    f.versions.findLast((v) => v.change === 'Full portfolio holdings filed')?.version ?? null;
  for (const v of f.versions) {
    const fph = v.holdingsPeriodEnd !== null;
    rows.disclose_fund_versions.push({
      fund_number: f.fundNumber,
      version: v.version,
      offer_version: v.offerVersion,
      changed_at: v.at,
      change: v.change,
      document: v.document,
      // Seeded holdings are stored once, with the last FPH version; earlier FPH versions point at them.
      holdings_version: fph ? holdingsVersion : null,
      holdings_period_end: v.holdingsPeriodEnd,
    });
  }
  if (holdingsVersion !== null) addHoldings(rows, f, holdingsVersion);
  addFilings(rows, o, f);
  rows.disclose_documents.push(
    ...fundUpdateDocument(f.fundNumber, fLast.at).map((d) => document('fund', f.fundNumber, d)),
  );
}

/** The fund's holdings, stored once with the version of its last FPH filing. */
function addHoldings(rows: SeedRows, f: GeneratedFund, holdingsVersion: number): void {
  for (const [line, h] of f.holdings.entries()) {
    rows.disclose_fund_holdings.push({
      fund_number: f.fundNumber,
      fund_version: holdingsVersion,
      line,
      asset_name: h.assetName,
      asset_type: h.assetType,
      isin: h.isin,
      value: h.value,
      percentage_of_fund: h.percentageOfFund,
      currency: h.currency,
    });
  }
}

/**
 * The fund's filings: each a completed activity (the fund version it made: the second onwards, in
 * order) and an entry in the filing history of its scheme (or of the offer outside a scheme).
 */
function addFilings(rows: SeedRows, o: GeneratedOffer, f: GeneratedFund): void {
  let version = 1;
  for (const filing of f.filings) {
    version++;
    rows.disclose_compliance_activities.push({
      fund_number: f.fundNumber,
      kind: filing.kind,
      period_end: filing.periodEnd,
      due_date: filing.dueDate,
      filed_at: filing.filedAt,
      late: filing.late,
      fund_version: version,
      filed_by: null,
    });
    rows.disclose_filing_history.push({
      subject_kind: o.schemeNumber ? 'scheme' : 'offer',
      subject_number: o.schemeNumber ?? o.offerNumber,
      fund_number: f.fundNumber,
      filed_at: filing.filedAt,
      filing_type: filing.kind,
      description: `${filing.kind === 'FUND_UPDATE' ? 'Fund update' : 'Full portfolio holdings'} for the period ending ${filing.periodEnd}${filing.late ? ' (filed late)' : ''}`,
      late: filing.late,
      filed_by: null,
    });
  }
}
