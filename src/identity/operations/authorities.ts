/**
 * Granting authority over a register object (the CLI, the portal's approvals, a service through
 * `ServiceContext.identity`, the sandbox seed). The reads and the revocation are single statements:
 * store/authorities.ts.
 */
import type { Pool } from 'pg';
import {
  type Authority,
  checkHolderEnvironment,
  type Holder,
  type RegisterObject,
} from '../domain/authorities.ts';
import { findAuthority, insertAuthority } from '../store/authorities.ts';
import { organisationEnvironment } from '../store/organisations.ts';

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
