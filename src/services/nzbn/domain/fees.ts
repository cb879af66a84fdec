/**
 * The business number register's fee rule. The spec says only that "fees may apply for creating more
 * than two organisation parts for one entity": creating a part when the entity already has two or more
 * (active or not) carries the fee `NZBN_ORGANISATION_PART`. Its amount (ours: NZ$5.00 + GST) is in the
 * platform's fee schedule (`src/billing/domain/fee-schedule.ts`, overridable by the operator); the fee
 * is charged through `context.fees` in the creating transaction, into the ledger (`fee_records`).
 */

export const ORGANISATION_PART_FEE_CODE = 'NZBN_ORGANISATION_PART';
/** Parts an entity may create without a fee. */
export const FREE_ORGANISATION_PARTS = 2;

/** The fee code for creating a part when the entity already has `existingParts` parts, or null when free. */
export function organisationPartFee(existingParts: number): typeof ORGANISATION_PART_FEE_CODE | null {
  return existingParts >= FREE_ORGANISATION_PARTS ? ORGANISATION_PART_FEE_CODE : null;
}
