import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { addOrganisation } from '../../../src/identity/operations/organisations.ts';
import { addUser } from '../../../src/identity/operations/users.ts';
import { addMember } from '../../../src/identity/store/memberships.ts';

/** Test helpers for invoices: organisations with an owner, and fee records written as the ledger does. */
export async function organisationWithOwner(
  gateway: pg.Pool,
  name: string,
  environment: 'sandbox' | 'production' = 'sandbox',
): Promise<{ id: string; ownerEmail: string }> {
  const stem = randomBytes(4).toString('hex');
  const organisation = await addOrganisation(gateway, { environment, identifier: `org-${stem}`, name });
  const owner = await addUser(gateway, { email: `owner-${stem}@example.test` });
  await addMember(gateway, organisation.id, owner.id, 'owner');
  return { id: organisation.id, ownerEmail: owner.email };
}

export interface TestFee {
  organisationId: string;
  chargedAt: Date;
  amountCents: number;
  service?: string;
  feeCode?: string;
  channel?: 'API' | 'Web';
  subscriptionId?: string;
  requestId?: string;
  billingReference?: string;
}

export async function insertFees(pool: pg.Pool, fees: readonly TestFee[]): Promise<void> {
  if (fees.length === 0) return;
  await pool.query(
    `INSERT INTO fee_records (organisation_id, subscription_id, service, operation, fee_code, description,
                              amount_cents, gst_cents, channel, charged_at, request_id, billing_reference)
     SELECT t.organisation_id, t.subscription_id, t.service, 'op', t.fee_code, t.fee_code || ' fee', t.amount,
            (t.amount * 15 + 50) / 100, t.channel, t.charged_at, t.request_id, t.billing_reference
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::int[], $6::text[], $7::timestamptz[],
                   $8::text[], $9::text[])
            AS t(organisation_id, subscription_id, service, fee_code, amount, channel, charged_at, request_id,
                 billing_reference)`,
    [
      fees.map((fee) => fee.organisationId),
      fees.map((fee) => fee.subscriptionId ?? null),
      fees.map((fee) => fee.service ?? 'ppsr'),
      fees.map((fee) => fee.feeCode ?? 'SEARCH'),
      fees.map((fee) => fee.amountCents),
      fees.map((fee) => fee.channel ?? 'API'),
      fees.map((fee) => fee.chargedAt),
      fees.map((fee) => fee.requestId ?? null),
      fees.map((fee) => fee.billingReference ?? null),
    ],
  );
}
