import type { Pool } from 'pg';
import type { Caller, HeldAuthority, ServiceIdentity } from '../../gateway/service-context.ts';
import type { Clock } from '../../platform/clock.ts';
import type { MailMessage } from '../../platform/mail.ts';
import type { Environment } from '../../services/contract.ts';
import type { Authority } from '../domain/authorities.ts';
import { listAuthorities, mayAct, objectsActorMayActOn, revokeAuthority } from '../store/authorities.ts';
import { findOrganisation, findOrganisationById } from '../store/organisations.ts';
import { findUserByEmail } from '../store/users.ts';
import { grantAuthority } from './authorities.ts';
import { registerDirectory } from './register-directory.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const held = (authority: Authority): HeldAuthority => ({
  id: authority.id,
  userEmail: authority.userId ? authority.holderName : null,
  organisationIdentifier: authority.organisationId ? authority.holderName : null,
  role: authority.role,
  grantedAt: authority.grantedAt,
});

/**
 * What a service may ask identity/, bound to its environment and service. Grants and revocations are
 * dated by the environment's clock (the sandbox's virtual clock when it runs one), as the register's
 * own records are. `mail` sends what the directory mails (an organisation user's invitation).
 */
export function serviceIdentity(
  pool: Pool,
  environment: Environment,
  service: string,
  clock: Clock,
  mail: (message: MailMessage) => Promise<void> = async () => {},
): ServiceIdentity {
  const actor = (caller: Caller | undefined) => ({
    userId: caller?.userId,
    organisationId: caller?.organisationId,
  });
  const object = (kind: string, id: string) => ({ environment, service, kind, id });
  return {
    mayAct: (caller, kind, objectId) =>
      caller?.userId || caller?.organisationId
        ? mayAct(pool, { environment, service, kind, id: objectId }, actor(caller))
        : Promise.resolve(false),
    objectsCallerMayActOn: (caller, kind) =>
      objectsActorMayActOn(pool, { environment, service, kind }, actor(caller)),
    listAuthorities: async (kind, objectId) =>
      (await listAuthorities(pool, object(kind, objectId))).map(held),
    async grantAuthority(kind, objectId, holder, options) {
      let resolved: { userId: string } | { organisationId: string } | undefined;
      if ('userId' in holder) resolved = UUID.test(holder.userId) ? { userId: holder.userId } : undefined;
      else if ('email' in holder) {
        const user = await findUserByEmail(pool, holder.email);
        resolved = user && { userId: user.id };
      } else {
        const organisation = await findOrganisation(pool, environment, holder.organisation);
        resolved = organisation && { organisationId: organisation.id };
      }
      if (!resolved) return undefined;
      const grantedBy = options?.grantedBy && UUID.test(options.grantedBy) ? options.grantedBy : undefined;
      return held(
        await grantAuthority(pool, object(kind, objectId), resolved, {
          ...options,
          grantedBy,
          at: clock.now(),
        }),
      );
    },
    async organisation(organisationId) {
      if (!UUID.test(organisationId)) return undefined;
      return findOrganisationById(pool, environment, organisationId);
    },
    directory: registerDirectory(pool, environment, service, clock, mail),
    revokeAuthority: (kind, objectId, authorityId) =>
      UUID.test(authorityId)
        ? revokeAuthority(pool, object(kind, objectId), authorityId, clock.now())
        : Promise.resolve(false),
  };
}
