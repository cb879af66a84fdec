/**
 * Granting authority over a register object (the CLI, the portal's approvals, a service through
 * `ServiceContext.identity`, the sandbox seed). The reads and the revocation are single statements:
 * store/authorities.ts.
 */
import type { Pool } from 'pg';
import { withTransaction } from '../../platform/db/pool.ts';
import {
  type Authority,
  checkHolderEnvironment,
  type Holder,
  type RegisterObject,
} from '../domain/authorities.ts';
import { findAuthority, insertAuthority } from '../store/authorities.ts';
import { organisationEnvironment } from '../store/organisations.ts';
import { lockPendingAuthority, updateAuthorityStatus } from '../store/register-authorities.ts';

/**
 * The holder's authority over the object: recorded now, or the one it holds already. An organisation
 * of the other environment is refused (`organisation-environment`).
 */
export async function grantAuthority(
  pool: Pool,
  object: RegisterObject,
  holder: Holder,
  options: { grantedBy?: string; role?: string; at?: Date } = {},
): Promise<Authority> {
  if ('organisationId' in holder && holder.organisationId) {
    checkHolderEnvironment(await organisationEnvironment(pool, holder.organisationId), object);
  }
  const id = await insertAuthority(pool, object, holder, {
    grantedBy: options.grantedBy ?? null,
    role: options.role ?? 'authority',
    at: options.at ?? null,
  });
  return (await findAuthority(pool, id))!;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An operator's decision on a request for authority (the portal's approvals, `rsg users
 * decide-authority`; a register's API decides through `ServiceIdentity.directory`): ACCEPTED lets its
 * holder act at once, REJECTED ends it. False when no request with this id is waiting.
 */
export async function decideAuthority(
  pool: Pool,
  authorityId: string,
  decision: 'ACCEPTED' | 'REJECTED',
  options: { by: string | null; reason?: string | undefined; at?: Date },
): Promise<boolean> {
  if (!UUID.test(authorityId)) return false;
  return withTransaction(pool, async (client) => {
    if (!(await lockPendingAuthority(client, authorityId))) return false;
    await updateAuthorityStatus(
      client,
      authorityId,
      { status: decision, by: options.by, reason: options.reason || null },
      options.at ?? new Date(),
    );
    return true;
  });
}
