import type { Pool } from 'pg';
import { organisationBillingFacts } from '../../identity/store/organisations.ts';

/**
 * What the month end needs to know about organisations, which live in the gateway database (identity):
 * the name printed on the invoice and, when the organisation has no billing email of its own
 * (`billing_accounts`), its owners' addresses.
 */
export interface OrganisationDirectory {
  lookup(ids: readonly string[]): Promise<Map<string, { name: string; ownerEmails: string[] }>>;
}

export function identityDirectory(gateway: Pool): OrganisationDirectory {
  return { lookup: (ids) => organisationBillingFacts(gateway, ids) };
}
