import type { Pool } from 'pg';
import { APIM_ERRORS } from '../platform/http/error-codes.ts';
import { HttpError } from '../platform/http/errors.ts';
import type { Environment } from '../services/contract.ts';
import type { Caller } from './service-context.ts';

/**
 * The `x-organisation` header names the organisation a call is made for (the offers register requires
 * it). It must be an organisation of the call's environment that the acting user — the token's user, or
 * without one the subscriber — belongs to; otherwise 403, the same answer whether or not it exists.
 */
export class OrganisationResolver {
  constructor(private readonly pool: Pool) {}

  async resolve(environment: Environment, identifier: string, caller: Caller): Promise<string> {
    const member = caller.userId ?? caller.subscriberId;
    const result = await this.pool.query<{ id: string }>(
      `SELECT o.id FROM organisations o JOIN memberships m ON m.organisation_id = o.id
        WHERE o.environment = $1 AND o.identifier = $2 AND m.user_id = $3`,
      [environment, identifier, member],
    );
    const id = result.rows[0]?.id;
    if (!id) {
      throw new HttpError(
        APIM_ERRORS.organisationRefused,
        `The caller does not act for the organisation "${identifier}" in this environment.`,
        [{ field: 'x-organisation', message: 'must name an organisation the caller belongs to' }],
      );
    }
    return id;
  }
}
