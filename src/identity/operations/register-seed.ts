/**
 * The sandbox's organisations with users and authorities, as a register's seed asks for them
 * (`SeedIdentity.seedOrganisation`): identity's own rows with their register profile, made once.
 */
import type { Pool } from 'pg';
import { withTransaction } from '../../platform/db/pool.ts';
import type { SeedOrganisation } from '../../services/contract.ts';
import { addMember } from '../store/memberships.ts';
import { findOrganisation, insertOrganisation } from '../store/organisations.ts';
import { insertAuthorityRequest } from '../store/register-authorities.ts';
import {
  ownNewOrganisation,
  updateOrganisationProfile,
  updateUserProfile,
} from '../store/register-profiles.ts';
import { findUserByEmail, insertUser } from '../store/users.ts';

/** Makes the organisation, its users and their authorities, unless the organisation is there already. */
export async function seedRegisterOrganisation(
  pool: Pool,
  seed: SeedOrganisation,
  at: Date,
): Promise<boolean> {
  if (await findOrganisation(pool, 'sandbox', seed.identifier)) return false;
  return withTransaction(pool, async (client) => {
    const db = client as unknown as Pool;
    const organisation = await insertOrganisation(db, {
      environment: 'sandbox',
      identifier: seed.identifier,
      name: seed.name,
    });
    if (!organisation) return false;
    await updateOrganisationProfile(client, organisation.id, { categoryCode: seed.categoryCode }, at);
    const ids = new Map<string, string>();
    for (const user of seed.users) {
      const made =
        (await findUserByEmail(db, user.email)) ??
        (await insertUser(db, {
          email: user.email,
          name: `${user.firstName} ${user.lastName}`,
          isOperator: false,
          passwordHash: null,
        }))!;
      await updateUserProfile(
        client,
        made.id,
        { firstName: user.firstName, lastName: user.lastName, acceptTerms: true },
        undefined,
        at,
      );
      if (user.role === 'owner') await ownNewOrganisation(client, organisation.id, made.id);
      else await addMember(db, organisation.id, made.id, user.role);
      ids.set(user.email, made.id);
    }
    for (const authority of seed.authorities) {
      const userId = authority.holder === 'organisation' ? null : (ids.get(authority.holder.email) ?? null);
      await insertAuthorityRequest(
        client,
        { environment: 'sandbox', service: authority.service },
        {
          kind: authority.kind,
          objectId: authority.objectId,
          userId,
          organisationIdentifier: seed.identifier,
          status: authority.status,
          authorityType: 'DELEGATED',
          approvalType: authority.approvalType,
          supportingInformation: [],
          documents:
            authority.approvalType === 'USER'
              ? []
              : [
                  {
                    documentId: '1',
                    documentType: 'LETTER',
                    url: { rel: 'letter', href: 'https://sandbox.example/letters/1.pdf', methods: ['GET'] },
                    document: null,
                  },
                ],
          reason: null,
          comment: 'Sandbox organisation',
          requestedBy: [...ids.values()][0]!,
        },
        at,
      );
    }
    return true;
  });
}
