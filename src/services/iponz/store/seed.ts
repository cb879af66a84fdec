/**
 * The sandbox seed's loads: clients and cases with COPY (a chunk in one transaction), and whether the
 * register is already seeded.
 */
import type pg from 'pg';
import { nzDate } from '../../../platform/calendar.ts';
import { copyLine, copyText } from '../../../platform/db/copy-text.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import { ADDRESS_TYPES, addressText, fold } from '../domain/client-search.ts';
import type { CaseDocument, CaseRecord, Client, PartyRole } from '../domain/model.ts';

/**
 * A case as the seed loads it (the sandbox's generator makes them): the stored record without what the
 * store adds (version, updatedAt, names).
 */
export type GeneratedCase = Omit<CaseRecord, 'version' | 'updatedAt' | 'parties'> & {
  parties: { role: PartyRole; clientId: number }[];
};

/** The number of clients and cases already there. */
export async function registerCounts(pool: pg.Pool): Promise<{ clients: number; cases: number }> {
  const { rows } = await pool.query<{ clients: string; cases: string }>(
    `SELECT (SELECT count(*) FROM iponz_clients) AS clients, (SELECT count(*) FROM iponz_cases) AS cases`,
  );
  return { clients: Number(rows[0]!.clients), cases: Number(rows[0]!.cases) };
}

/**
 * After a seed: VACUUM (ANALYZE) the trade mark title words (migration 004), so that the visibility map
 * lets the search read a word's marks from the B-tree alone (an index-only scan) at once, rather than
 * after autovacuum's next pass; and the planner knows how common each word is.
 */
export async function settleTitleWords(pool: pg.Pool): Promise<void> {
  await pool.query('VACUUM (ANALYZE) iponz_title_words');
}

/** Loads clients with their addresses in one transaction. */
export async function loadClients(pool: pg.Pool, clients: readonly Client[], at: Date): Promise<void> {
  await withTransaction(pool, (tx) => copyClients(tx, clients, at));
}

/** Loads clients with their addresses in the caller's transaction. */
export async function copyClients(tx: pg.PoolClient, clients: readonly Client[], at: Date): Promise<void> {
  await copyText(
    tx,
    'COPY iponz_clients (client_id, name, name_folded, client_type, nzbn, updated_at) FROM STDIN',
    clients.map((c) => copyLine([c.clientId, c.name, fold(c.name), c.clientType, c.nzbn, at.toISOString()])),
  );
  await copyText(
    tx,
    'COPY iponz_client_addresses (client_id, address_type, line1, line2, line3, city, search_text, postcode, country_code) FROM STDIN',
    clients.flatMap((c) =>
      ADDRESS_TYPES.flatMap((type) => {
        const a = c.addresses[type];
        return a
          ? [
              copyLine([
                c.clientId,
                type,
                a.line1,
                a.line2,
                a.line3,
                a.city,
                fold(addressText(a)),
                a.postcode ?? null,
                a.countryCode ?? 'NZ',
              ]),
            ]
          : [];
      }),
    ),
  );
}

/** A case's last change: its last status change or its last renewal, whichever is later. */
function lastChangeOf(c: Pick<GeneratedCase, 'history' | 'renewals'>): string {
  const status = c.history.at(-1)!.statusDate;
  const renewal = c.renewals.at(-1)?.renewalDate;
  return renewal && renewal > status ? renewal : status;
}

/**
 * A case's history rows, in date order (a status change before a renewal of the same day): status
 * changes, and renewals with the status the case had on their day.
 */
function historyLines(c: LoadedCase): string[] {
  const events = [
    ...c.history.map((h) => ({ date: h.statusDate, order: 0, status: h.status, renewal: null })),
    ...c.renewals.map((r) => ({
      date: r.renewalDate,
      order: 1,
      status: [...c.history].reverse().find((h) => h.statusDate <= r.renewalDate)?.status ?? c.status,
      renewal: r,
    })),
  ].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.order - b.order));
  return events.map((e, i) =>
    copyLine([
      c.kind,
      c.caseNumber,
      i + 1,
      e.status,
      e.date,
      `${e.date}T00:00:00+12:00`,
      e.renewal ? 'renewal' : 'status',
      e.renewal?.renewedExpiryDate ?? null,
      e.renewal?.newExpiryDate ?? null,
    ]),
  );
}

/**
 * A case as an import loads it: a generated one, or one with its version, last change, mark nature and
 * type and its documents' stored sizes given (absent: the seed's — version 1, the last change from its
 * history, the defaults of migration 003, no stored bytes).
 */
export type LoadedCase = Omit<GeneratedCase, 'documents'> & {
  version?: number;
  updatedAt?: Date;
  markNature?: string | null;
  markType?: string | null;
  documents: (CaseDocument & { storedSize?: number | null })[];
};

/** The parts of a case besides its row. */
export type CasePart = 'history' | 'parties' | 'documents' | 'goods';
const ALL_PARTS: readonly CasePart[] = ['history', 'parties', 'documents', 'goods'];

/** Loads cases with their history, parties, documents and goods in one transaction. */
export async function loadCases(pool: pg.Pool, cases: readonly GeneratedCase[], at: Date): Promise<void> {
  await withTransaction(pool, (tx) => copyCases(tx, cases, at));
}

/** The columns of a case's row, in the order `caseRow` gives their values. */
export const CASE_COLUMNS = [
  'kind',
  'case_number',
  'title',
  'status',
  'status_date',
  'application_date',
  'term_date',
  'registration_date',
  'last_renewal_due_date',
  'international_application_number',
  'international_publication_number',
  'international_registration_number',
  'priority_country_code',
  'mark_image_name',
  'novelty_statement',
  'patent_detail',
  'updated_at',
  'updated_on',
  'version',
  'mark_nature',
  'mark_type',
] as const;

/** A case's row, its values in the order of `CASE_COLUMNS` (its last change as given). */
export function caseRow(c: LoadedCase, updatedAt: string, updatedOn: string): (string | number | null)[] {
  return [
    c.kind,
    c.caseNumber,
    c.title,
    c.status,
    c.statusDate,
    c.applicationDate,
    c.termDate,
    c.registrationDate,
    c.lastRenewalDueDate,
    c.internationalApplicationNumber,
    c.internationalPublicationNumber,
    c.internationalRegistrationNumber,
    c.priorityCountryCode,
    c.markImageName,
    c.noveltyStatement,
    c.patentDetail ? JSON.stringify(c.patentDetail) : null,
    updatedAt,
    updatedOn,
    c.version ?? 1,
    c.markNature ?? null,
    c.markType ?? null,
  ];
}

/** Copies cases with their parts into `tx` (the caller's transaction). */
export async function copyCases(tx: pg.PoolClient, cases: readonly LoadedCase[], at: Date): Promise<void> {
  const stamp = at.toISOString();
  const day = nzDate(at.getTime());
  await copyText(
    tx,
    `COPY iponz_cases (${CASE_COLUMNS.join(', ')}) FROM STDIN`,
    cases.map((c) => {
      // A case was last changed on its last status change or renewal (a case of today: now).
      const changed = lastChangeOf(c);
      const updatedAt = c.updatedAt
        ? c.updatedAt.toISOString()
        : changed >= day
          ? stamp
          : `${changed}T00:00:00+12:00`;
      const updatedOn = c.updatedAt ? nzDate(c.updatedAt.getTime()) : changed >= day ? day : changed;
      return copyLine(caseRow(c, updatedAt, updatedOn));
    }),
  );
  await copyCaseParts(tx, cases, ALL_PARTS);
}

/** Copies the given parts of cases into `tx` (a replaced case's parts, once its old ones are deleted). */
export async function copyCaseParts(
  tx: pg.PoolClient,
  cases: readonly LoadedCase[],
  parts: readonly CasePart[],
): Promise<void> {
  if (parts.includes('history'))
    await copyText(
      tx,
      `COPY iponz_status_history (kind, case_number, seq, status, status_date, recorded_at, event,
        renewed_expiry_date, new_expiry_date) FROM STDIN`,
      cases.flatMap((c) => historyLines(c)),
    );
  if (parts.includes('parties'))
    await copyText(
      tx,
      'COPY iponz_case_parties (kind, case_number, role, position, client_id) FROM STDIN',
      cases.flatMap((c) => {
        const positions = new Map<string, number>();
        return c.parties.map((p) => {
          const position = (positions.get(p.role) ?? 0) + 1;
          positions.set(p.role, position);
          return copyLine([c.kind, c.caseNumber, p.role, position, p.clientId]);
        });
      }),
    );
  if (parts.includes('documents'))
    await copyText(
      tx,
      'COPY iponz_case_documents (document_identifier, kind, case_number, document_name, object_format, created_on, stored_size) FROM STDIN',
      cases.flatMap((c) =>
        c.documents.map((d) =>
          copyLine([
            d.documentIdentifier,
            c.kind,
            c.caseNumber,
            d.documentName,
            d.objectFormat,
            d.createdOn,
            d.storedSize ?? null,
          ]),
        ),
      ),
    );
  if (parts.includes('goods'))
    await copyText(
      tx,
      'COPY iponz_goods_services (kind, case_number, class_number, description) FROM STDIN',
      cases.flatMap((c) =>
        c.goodsAndServices.map((g) => copyLine([c.kind, c.caseNumber, g.classNumber, g.description])),
      ),
    );
}
