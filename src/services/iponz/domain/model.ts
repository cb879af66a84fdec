/**
 * The register's records as the store reads and writes them and the answers are built from: clients
 * with their three address types, and cases (patents, trade marks, designs) with their status history
 * and renewals, parties by role, documents and goods and services. Pure types and small computations only.
 */
import type { AddressType, ClientAddress } from './client-search.ts';
import type { PatentDetail } from './patent-detail.ts';
import { type CaseKind, expiryDateOf, type RenewalCase } from './renewals.ts';

export interface Client {
  clientId: number;
  name: string;
  clientType: 'Organisation' | 'Person';
  /** Business clients: their business number (13 digits); null for people and others. */
  nzbn: string | null;
  addresses: Partial<Record<AddressType, ClientAddress>>;
}

/** Roles of parties in a case (ours: the published dictionaries print applicant, owner, agent, inventor). */
export const PARTY_ROLES = ['Applicant', 'Owner', 'Agent', 'Inventor', 'Address for Service'] as const;
export type PartyRole = (typeof PARTY_ROLES)[number];

export interface CaseParty {
  role: PartyRole;
  clientId: number;
  name: string;
  /** The client's country (its physical address's, else service, else postal); absent: no address. */
  countryCode?: string | null;
}

export interface StatusChange {
  status: string;
  statusDate: string;
}

/**
 * A renewal in a case's history (ours): a renewal or maintenance fee paid on `renewalDate`, which renewed
 * the expiry (due) date `renewedExpiryDate` to `newExpiryDate`. Not a status change.
 */
export interface RenewalEvent {
  renewalDate: string;
  renewedExpiryDate: string;
  newExpiryDate: string;
}

export interface CaseDocument {
  documentIdentifier: string;
  documentName: string;
  objectFormat: 'pdf' | 'jpeg' | 'gif';
  createdOn: string;
}

export interface GoodsAndServices {
  classNumber: number;
  description: string;
}

export interface CaseRecord {
  kind: CaseKind;
  caseNumber: number;
  title: string;
  status: string;
  statusDate: string;
  applicationDate: string;
  /** The date renewal terms count from (renewals.ts `filingDate`). */
  termDate: string;
  registrationDate: string | null;
  lastRenewalDueDate: string | null;
  internationalApplicationNumber: string | null;
  internationalPublicationNumber: string | null;
  internationalRegistrationNumber: string | null;
  priorityCountryCode: string | null;
  markImageName: string | null;
  noveltyStatement: string | null;
  /** A patent's abstract, claims, classifications, priority claims, PCT publication; null if none. */
  patentDetail: PatentDetail | null;
  version: number;
  updatedAt: Date;
  history: StatusChange[];
  /** The renewals, oldest first. */
  renewals: RenewalEvent[];
  parties: CaseParty[];
  documents: CaseDocument[];
  goodsAndServices: GoodsAndServices[];
}

/** The renewal rules' view of a case. */
export function renewalCaseOf(record: CaseRecord): RenewalCase {
  return {
    kind: record.kind,
    status: record.status,
    filingDate: record.termDate,
    registrationDate: record.registrationDate ?? undefined,
    lastRenewalDueDate: record.lastRenewalDueDate ?? undefined,
    classes: record.kind === 'trademark' ? Math.max(1, record.goodsAndServices.length) : undefined,
  };
}

/** The published `ExpiryDate`: paid to, or the term's end; null in a status that takes no fee. */
export const expiryOf = (record: CaseRecord): string | null => expiryDateOf(renewalCaseOf(record));

/** The case's ETag: its kind, number and version (a strong validator: any change bumps the version). */
export const caseEtag = (record: Pick<CaseRecord, 'kind' | 'caseNumber' | 'version'>): string =>
  `"${record.kind}-${record.caseNumber}-v${record.version}"`;
