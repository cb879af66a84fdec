/**
 * What a register may ask identity of its users, organisations, organisation users and business
 * authorities (`ServiceIdentity.directory`), bound to one environment and service: identity's own rows,
 * so a user changed through a register is the same user the portal and the authorization server know.
 * Every change runs in one transaction with its row locked, and calls the caller's `check` (its access
 * rule and preconditions) on the row as it stands before it changes anything. The membership rules are
 * identity's: nobody joins an organisation uninvited (an invitation mailed to an address, activated by
 * the user signed in with that address), an organisation keeps an administrator, and a membership's end
 * ends the authorities held through it.
 */
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import type { Clock } from '../../platform/clock.ts';
import { withTransaction } from '../../platform/db/pool.ts';
import { RuleError } from '../../platform/errors.ts';
import type { MailMessage } from '../../platform/mail.ts';
import type { Environment } from '../../services/contract.ts';
import type { MembershipRole } from '../domain/organisations.ts';
import { checkedIdentifier, userIdentifierProblem } from '../domain/organisations.ts';
import {
  type AuthorityRequest,
  type AuthoritySearch,
  type AuthorityStatus,
  activationCode,
  administers,
  hashActivationCode,
  type OrganisationMember,
  type OrganisationMemberPatch,
  type OrganisationProfile,
  type OrganisationProfilePatch,
  type RegisterAuthority,
  type UserProfile,
  type UserProfilePatch,
} from '../domain/register-profiles.ts';
import { checkedEmail } from '../domain/users.ts';
import { insertOrganisation } from '../store/organisations.ts';
import {
  endMembershipAuthorities,
  findRegisterAuthority,
  insertAuthorityRequest,
  searchRegisterAuthorities,
  updateAuthorityEvidence,
  updateAuthorityStatus,
} from '../store/register-authorities.ts';
import {
  acceptInvitation,
  administratorCount,
  findOrganisationMember,
  findOrganisationProfile,
  findUserProfile,
  insertInvitation,
  listOrganisationMembers,
  listOrganisationProfiles,
  listUserProfiles,
  lockOpenInvitation,
  lockOrganisationMember,
  ownNewOrganisation,
  removeOrganisationMember,
  roleIn,
  updateOrganisationMember,
  updateOrganisationProfile,
  updateUserProfile,
} from '../store/register-profiles.ts';
import { insertUser } from '../store/users.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuid = (id: string): boolean => UUID.test(id);

/** A change of an authority: a move to another status, or a pending request's evidence. */
export interface AuthorityChange {
  status?: AuthorityStatus;
  by: string;
  reason?: string;
  comment?: string;
  supportingInformation?: unknown[];
  documents?: unknown[];
}

export type Activation =
  | { activated: OrganisationMember }
  | { refused: 'unknown' | 'another-address' | 'member-already' };

export interface RegisterDirectory {
  user(id: string): Promise<UserProfile | undefined>;
  users(): Promise<UserProfile[]>;
  addUser(input: { email: string; name?: string; profile: UserProfilePatch }): Promise<UserProfile>;
  changeUser(
    id: string,
    patch: UserProfilePatch,
    check: (current: UserProfile) => void,
  ): Promise<UserProfile | undefined>;
  organisation(identifier: string): Promise<OrganisationProfile | undefined>;
  /** The environment's organisations (null), or those the user belongs to. */
  organisations(memberId: string | null): Promise<OrganisationProfile[]>;
  addOrganisation(
    input: { identifier?: string | undefined; name: string; profile: OrganisationProfilePatch },
    ownerId: string,
  ): Promise<OrganisationProfile>;
  changeOrganisation(
    identifier: string,
    patch: OrganisationProfilePatch,
    check: (current: OrganisationProfile) => void,
  ): Promise<OrganisationProfile | undefined>;
  roleIn(organisationId: string, userId: string): Promise<MembershipRole | undefined>;
  members(organisationId: string): Promise<OrganisationMember[]>;
  member(organisationId: string, id: string): Promise<OrganisationMember | undefined>;
  invite(
    organisation: OrganisationProfile,
    input: OrganisationMemberPatch & { email: string; role: 'admin' | 'member' },
    invitedBy: string,
    activateAt: string,
  ): Promise<OrganisationMember>;
  activate(code: string, userId: string): Promise<Activation>;
  changeMember(
    organisationId: string,
    id: string,
    patch: OrganisationMemberPatch,
    check: (current: OrganisationMember) => void,
  ): Promise<OrganisationMember | undefined>;
  removeMember(
    organisationId: string,
    id: string,
    check: (current: OrganisationMember) => void,
  ): Promise<boolean>;
  authorities(search: AuthoritySearch): Promise<{ total: number; items: RegisterAuthority[] }>;
  authority(kind: string, id: string): Promise<RegisterAuthority | undefined>;
  requestAuthority(request: AuthorityRequest): Promise<RegisterAuthority | undefined>;
  changeAuthority(
    kind: string,
    id: string,
    change: AuthorityChange,
    check: (current: RegisterAuthority) => void,
  ): Promise<RegisterAuthority | undefined>;
}

/**
 * Refusals as the register names its fields (400, the register's dialect): identity's own codes are for
 * the portal and the CLI.
 */
const refused = (field: string, rule: string) => new RuleError(field, rule);
const lastAdministrator = () =>
  refused('organisationUserId', 'is the organisation’s last administrator: make another user one first');
const emailTaken = (field: string) => refused(field, 'is another user’s email address');

/** An identity rule's value (an email, an identifier) under the register's field name. */
function asField<T>(field: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof RuleError) throw refused(field, error.rule);
    throw error;
  }
}

/** Users and organisations with their register profile. */
function profiles(
  pool: Pool,
  environment: Environment,
  now: () => Date,
): Pick<
  RegisterDirectory,
  | 'user'
  | 'users'
  | 'addUser'
  | 'changeUser'
  | 'organisation'
  | 'organisations'
  | 'addOrganisation'
  | 'changeOrganisation'
> {
  return {
    user: async (id) => (uuid(id) ? findUserProfile(pool, id) : undefined),
    users: () => listUserProfiles(pool),
    async addUser(input) {
      const email = asField('email', () => checkedEmail(input.email));
      const names = [input.profile.firstName, input.profile.middleNames, input.profile.lastName];
      const name = input.name ?? (names.filter(Boolean).join(' ') || email.split('@')[0]!);
      return withTransaction(pool, async (client) => {
        const user = await insertUser(client as unknown as Pool, {
          email,
          name,
          isOperator: false,
          passwordHash: null,
        });
        if (!user) throw emailTaken('email');
        await updateUserProfile(client, user.id, input.profile, undefined, now());
        return (await findUserProfile(client, user.id))!;
      });
    },
    async changeUser(id, patch, check) {
      if (!uuid(id)) return undefined;
      const email =
        patch.email === undefined ? undefined : asField('email', () => checkedEmail(patch.email!));
      return withTransaction(pool, async (client) => {
        const current = await findUserProfile(client, id, true);
        if (!current) return undefined;
        check(current);
        const merged = { ...current, ...patch };
        const named = [merged.firstName, merged.middleNames, merged.lastName].filter(Boolean).join(' ');
        const changesName = ['firstName', 'middleNames', 'lastName'].some((f) => f in patch);
        try {
          await updateUserProfile(
            client,
            id,
            { ...patch, ...(email ? { email } : {}) },
            changesName && named ? named : undefined,
            now(),
          );
        } catch (error) {
          if ((error as { code?: string }).code === '23505') throw emailTaken('email');
          throw error;
        }
        return (await findUserProfile(client, id))!;
      });
    },
    organisation: (identifier) => findOrganisationProfile(pool, environment, identifier),
    organisations: (memberId) => listOrganisationProfiles(pool, environment, memberId),
    async addOrganisation(input, ownerId) {
      const identifier = asField('organisationId', () =>
        checkedIdentifier(input.identifier ?? `org-${randomBytes(6).toString('hex')}`),
      );
      const problem = userIdentifierProblem(identifier);
      if (problem) throw refused('organisationId', problem);
      return withTransaction(pool, async (client) => {
        const made = await insertOrganisation(client as unknown as Pool, {
          environment,
          identifier,
          name: input.name.trim() || identifier,
        });
        if (!made) throw refused('organisationId', 'is another organisation’s identifier');
        await updateOrganisationProfile(client, made.id, input.profile, now());
        await ownNewOrganisation(client, made.id, ownerId);
        return (await findOrganisationProfile(client, environment, identifier))!;
      });
    },
    changeOrganisation: (identifier, patch, check) =>
      withTransaction(pool, async (client) => {
        const current = await findOrganisationProfile(client, environment, identifier, true);
        if (!current) return undefined;
        check(current);
        await updateOrganisationProfile(client, current.id, patch, now());
        return (await findOrganisationProfile(client, environment, identifier))!;
      }),
  };
}

/** Memberships as organisation users, and invitations. */
function members(
  pool: Pool,
  environment: Environment,
  now: () => Date,
  mail: (message: MailMessage) => Promise<void>,
): Pick<
  RegisterDirectory,
  'roleIn' | 'members' | 'member' | 'invite' | 'activate' | 'changeMember' | 'removeMember'
> {
  return {
    roleIn: async (organisationId, userId) =>
      uuid(userId) ? roleIn(pool, organisationId, userId) : undefined,
    members: (organisationId) => listOrganisationMembers(pool, organisationId),
    member: async (organisationId, id) =>
      uuid(id) ? findOrganisationMember(pool, organisationId, id) : undefined,
    async invite(organisation, input, invitedBy, activateAt) {
      const email = asField('email.emailAddress', () => checkedEmail(input.email));
      const { code, hash } = activationCode();
      const member = await withTransaction(pool, async (client) => {
        const present = await listOrganisationMembers(client, organisation.id);
        if (present.some((m) => m.email.toLowerCase() === email)) {
          throw refused('email.emailAddress', 'is a user or an invited user of the organisation already');
        }
        const id = await insertInvitation(client, {
          organisationId: organisation.id,
          email,
          role: input.role,
          firstName: input.firstName ?? null,
          middleNames: input.middleNames ?? null,
          lastName: input.lastName ?? null,
          phone: input.phone ?? null,
          codeHash: hash,
          invitedBy,
          at: now(),
        });
        return (await findOrganisationMember(client, organisation.id, id!))!;
      });
      await mail({
        to: email,
        subject: `You are invited to ${organisation.name}`,
        text:
          `You are invited to join the organisation ${organisation.name} (${organisation.identifier}) ` +
          `of the business number register (${environment}).\n\n` +
          `Activation code: ${code}\n\n` +
          `Sign in as ${email} and send the code to ${activateAt} ({"activationCode": "…"}).\n` +
          'If you did not expect this invitation, ignore this message: nothing happens without the code.\n',
      });
      return member;
    },
    activate: (code, userId) =>
      withTransaction(pool, async (client): Promise<Activation> => {
        const invitation = await lockOpenInvitation(client, hashActivationCode(code));
        if (!invitation) return { refused: 'unknown' };
        const user = await findUserProfile(client, userId);
        if (!user || user.email.toLowerCase() !== invitation.email.toLowerCase()) {
          return { refused: 'another-address' };
        }
        if (!(await acceptInvitation(client, invitation, userId, now()))) {
          return { refused: 'member-already' };
        }
        return {
          activated: (await findOrganisationMember(client, invitation.organisationId, invitation.id))!,
        };
      }),
    async changeMember(organisationId, id, patch, check) {
      if (!uuid(id)) return undefined;
      return withTransaction(pool, async (client) => {
        await lockOrganisationMember(client, organisationId, id);
        const current = await findOrganisationMember(client, organisationId, id);
        if (!current) return undefined;
        check(current);
        await updateOrganisationMember(client, id, patch, now());
        if (administers(current.role) && patch.role === 'member' && current.status === 'ACTIVE') {
          if ((await administratorCount(client, organisationId)) === 0) throw lastAdministrator();
        }
        return (await findOrganisationMember(client, organisationId, id))!;
      });
    },
    async removeMember(organisationId, id, check) {
      if (!uuid(id)) return false;
      return withTransaction(pool, async (client) => {
        await lockOrganisationMember(client, organisationId, id);
        const current = await findOrganisationMember(client, organisationId, id);
        if (!current) return false;
        check(current);
        const at = now();
        await removeOrganisationMember(client, organisationId, id, at);
        if (current.userId) {
          if (administers(current.role) && (await administratorCount(client, organisationId)) === 0) {
            throw lastAdministrator();
          }
          await endMembershipAuthorities(client, organisationId, current.userId, at);
        }
        return true;
      });
    },
  };
}

/** Business authorities with the register's statuses. */
function authorities(
  pool: Pool,
  scope: { environment: Environment; service: string },
  now: () => Date,
): Pick<RegisterDirectory, 'authorities' | 'authority' | 'requestAuthority' | 'changeAuthority'> {
  return {
    authorities: (search) => searchRegisterAuthorities(pool, scope, search),
    authority: async (kind, id) =>
      uuid(id) ? findRegisterAuthority(pool, { ...scope, kind }, id) : undefined,
    async requestAuthority(request) {
      const id = await insertAuthorityRequest(pool, scope, request, now());
      return id === undefined ? undefined : findRegisterAuthority(pool, { ...scope, kind: request.kind }, id);
    },
    async changeAuthority(kind, id, change, check) {
      if (!uuid(id)) return undefined;
      return withTransaction(pool, async (client) => {
        const current = await findRegisterAuthority(client, { ...scope, kind }, id, true);
        if (!current) return undefined;
        check(current);
        const at = now();
        if (change.status !== undefined && change.status !== current.status) {
          await updateAuthorityStatus(
            client,
            id,
            {
              status: change.status,
              by: change.by,
              reason: change.reason ?? null,
              comment: change.comment ?? null,
            },
            at,
          );
        } else {
          await updateAuthorityEvidence(client, id, change, at);
        }
        return (await findRegisterAuthority(client, { ...scope, kind }, id))!;
      });
    },
  };
}

/** The register's view of identity, in one environment and service (`ServiceIdentity.directory`). */
export function registerDirectory(
  pool: Pool,
  environment: Environment,
  service: string,
  clock: Clock,
  mail: (message: MailMessage) => Promise<void>,
): RegisterDirectory {
  const now = () => new Date(clock.now());
  return {
    ...profiles(pool, environment, now),
    ...members(pool, environment, now, mail),
    ...authorities(pool, { environment, service }, now),
  };
}
