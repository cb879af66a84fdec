/**
 * The fee schedule of the business number register. The spec says only that "fees may apply for
 * creating more than two organisation parts for one entity"; the amounts are ours.
 *
 * | fee code            | when                                                              | amount (GST exclusive) | GST (15 %) |
 * |---------------------|-------------------------------------------------------------------|------------------------|------------|
 * | ORGANISATION_PART   | an organisation part is created and the entity already has two or more (active or not) | NZ$5.00 | NZ$0.75 |
 *
 * Each fee is one record (`nzbn_fee_records`), charged when the part is created, in the same
 * transaction; invoices (a later issue) collect the records not yet invoiced.
 */

export interface Fee {
  readonly code: 'ORGANISATION_PART';
  readonly description: string;
  readonly amountCents: number;
  readonly gstCents: number;
}

export const GST_RATE = 0.15;
/** Parts an entity may create without a fee. */
export const FREE_ORGANISATION_PARTS = 2;

export const ORGANISATION_PART_FEE: Fee = {
  code: 'ORGANISATION_PART',
  description: 'Organisation part beyond the second for one entity',
  amountCents: 500,
  gstCents: Math.round(500 * GST_RATE),
};

/** The fee for creating a part when the entity already has `existingParts` parts, or null when free. */
export function organisationPartFee(existingParts: number): Fee | null {
  return existingParts >= FREE_ORGANISATION_PARTS ? ORGANISATION_PART_FEE : null;
}
