import type { Pool } from 'pg';
import { memberOrganisationId } from '../../identity/store/memberships.ts';
import { APIM_ERRORS } from '../../platform/http/error-codes.ts';
import { HttpError } from '../../platform/http/errors.ts';
import type { Environment } from '../../services/contract.ts';
import type { Caller } from '../service-context.ts';

/**
 * The `x-organisation` header names the organisation a call is made for (the offers register requires
 * it). It must be an organisation of the call's environment that the acting user — the token's user, or
 * without one the subscriber — belongs to; otherwise 403, the same answer whether or not it exists.
 */
export class OrganisationResolver {
  constructor(private readonly pool: Pool) {}

  async resolve(environment: Environment, identifier: string, caller: Caller): Promise<string> {
    const member = caller.userId ?? caller.subscriberId;
    const id = await memberOrganisationId(this.pool, environment, identifier, member);
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
