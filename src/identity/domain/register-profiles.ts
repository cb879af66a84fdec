/**
 * The register profile of identity's users and organisations, their memberships as a register's
 * organisation users (invitations included) and business authorities with the register's statuses: the
 * types and rules of what a register (the business number register's users, organisations and
 * authorities) may ask identity through `ServiceIdentity.directory`. The rows are identity's own
 * (migration 007): the register shows them, it keeps no copy.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { MembershipRole } from './organisations.ts';

/** A published Phone. */
export interface Phone {
  areaCode: string | null;
  countryCode: string | null;
  number: string | null;
}

/** A published Address (kept as given, with its identifier and start date). */
export type ProfileAddress = Record<string, string | null>;

/** Profile fields a user and an organisation share. */
export interface ContactProfile {
  postalAddress: ProfileAddress | null;
  physicalAddress: ProfileAddress | null;
  phone: Phone | null;
  fax: Phone | null;
  mobile: Phone | null;
}

export type RegisterStatus = 'ACTIVE' | 'INACTIVE';

export interface UserProfile extends ContactProfile {
  id: string;
  email: string;
  name: string;
  firstName: string | null;
  middleNames: string | null;
  lastName: string | null;
  acceptTerms: boolean;
  status: RegisterStatus;
  isOperator: boolean;
  updatedAt: Date;
}

export type UserProfilePatch = Partial<
  Pick<UserProfile, 'email' | 'firstName' | 'middleNames' | 'lastName' | 'acceptTerms' | 'status'> &
    ContactProfile
>;

export interface OrganisationProfile extends ContactProfile {
  id: string;
  /** The register's organisation identifier (the published `organisationId`). */
  identifier: string;
  name: string;
  email: string | null;
  categoryCode: string | null;
  updatedAt: Date;
}

export type OrganisationProfilePatch = Partial<
  Pick<OrganisationProfile, 'name' | 'email' | 'categoryCode'> & ContactProfile
>;

/** A membership (ACTIVE) or an open invitation (INACTIVE) of one organisation. */
export interface OrganisationMember {
  /** The membership's id; an invitation's, which the membership it makes keeps. */
  id: string;
  organisationId: string;
  organisationIdentifier: string;
  userId: string | null;
  role: MembershipRole;
  status: RegisterStatus;
  email: string;
  firstName: string | null;
  middleNames: string | null;
  lastName: string | null;
  name: string | null;
  phone: Phone | null;
  updatedAt: Date;
}

export type OrganisationMemberPatch = Partial<{
  role: 'admin' | 'member';
  firstName: string | null;
  middleNames: string | null;
  lastName: string | null;
  phone: Phone | null;
}>;

export const AUTHORITY_STATUSES = [
  'PENDING',
  'ACCEPTED',
  'EXPIRED',
  'REVOKED',
  'SURRENDERED',
  'REJECTED',
  'REMOVED',
] as const;
export type AuthorityStatus = (typeof AUTHORITY_STATUSES)[number];
export type AuthorityType = 'DELEGATED' | 'EXECUTIVE';
export type ApprovalType = 'REGISTRAR_LETTER' | 'REGISTRAR_ID_PROOF' | 'USER' | 'PROFESSIONAL_AUTHORITY';

/** The statuses of an authority that is still current (the others end it, and it stays for the record). */
export const CURRENT_STATUSES: readonly AuthorityStatus[] = ['PENDING', 'ACCEPTED'];

/** A business authority with the register's facts: who holds it, for whom, its status and evidence. */
export interface RegisterAuthority {
  id: string;
  objectId: string;
  userId: string | null;
  userName: string | null;
  userEmail: string | null;
  /** The organisation's register identifier, when one holds it or the user holds it for one. */
  organisationIdentifier: string | null;
  organisationName: string | null;
  status: AuthorityStatus;
  authorityType: AuthorityType;
  approvalType: ApprovalType | null;
  supportingInformation: unknown[];
  documents: unknown[];
  reason: string | null;
  comment: string | null;
  grantedAt: Date;
  updatedAt: Date;
}

export interface AuthoritySearch {
  kind: string;
  objectId?: string | undefined;
  userId?: string | undefined;
  /** A register identifier of this environment's organisations. */
  organisationIdentifier?: string | undefined;
  /** Ended ones too. */
  historic: boolean;
  statuses: readonly AuthorityStatus[];
  /** Only those this user may see (their own, their organisations', those over objects they act on); null: all. */
  visibleTo: string | null;
  sortBy: 'authorityStartDate' | 'nzbn' | 'status';
  sortOrder: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

export interface AuthorityRequest {
  kind: string;
  objectId: string;
  userId: string | null;
  organisationIdentifier: string | null;
  status: 'PENDING' | 'ACCEPTED';
  authorityType: AuthorityType;
  approvalType: ApprovalType;
  supportingInformation: unknown[];
  documents: unknown[];
  reason: string | null;
  comment: string | null;
  requestedBy: string;
}

/**
 * The moves between statuses: from PENDING an operator accepts or rejects it, or its holder withdraws it
 * (REMOVED); an ACCEPTED one is surrendered by its holder, revoked by an operator or another holder of
 * the object, and ends (REMOVED) with the membership it was held through.
 */
export const STATUS_MOVES: Readonly<Record<AuthorityStatus, readonly AuthorityStatus[]>> = {
  PENDING: ['ACCEPTED', 'REJECTED', 'REMOVED'],
  ACCEPTED: ['REVOKED', 'SURRENDERED', 'REMOVED', 'EXPIRED'],
  EXPIRED: [],
  REVOKED: [],
  SURRENDERED: [],
  REJECTED: [],
  REMOVED: [],
};

/** A new invitation's activation code (sent by mail) and the hash kept of it. */
export function activationCode(): { code: string; hash: string } {
  const code = randomBytes(12).toString('base64url');
  return { code, hash: hashActivationCode(code) };
}

export const hashActivationCode = (code: string): string =>
  createHash('sha256').update(code.trim(), 'utf8').digest('hex');

/** Published roles of an organisation user: owners and admins administer it. */
export const publishedRole = (role: MembershipRole): 'ADMINISTRATOR' | 'MEMBER' =>
  role === 'member' ? 'MEMBER' : 'ADMINISTRATOR';

export const administers = (role: MembershipRole | undefined): boolean =>
  role === 'owner' || role === 'admin';
