/**
 * The customer organisation (PPSR_44/45), its secured party groups (PPSR_34), its fees (SEC_43) and its
 * transactions (SEC_56).
 */
import type { Static } from '@sinclair/typebox';
import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import type { Preconditions, ResourceValidators } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { checkSecuredParties, EMAIL } from '../domain/parties.ts';
import { PPSR_ERRORS } from '../errors.ts';
import type { SecuredPartyGroupRequest } from '../schemas.ts';
import {
  type CustomerOrganisationRow,
  deleteUnusedGroup,
  ensureCustomerOrganisation,
  type GroupRow,
  getGroup,
  insertGroup,
  listGroups,
  lockCustomerOrganisation,
  updateCustomerOrganisation,
  updateGroup,
} from '../store/account.ts';
import { findEndedTransactions, type TransactionRow } from '../store/transactions.ts';
import { organisationOf } from './support.ts';
import type { Answer, InTransaction } from './transaction.ts';

const presentOrganisation = (row: CustomerOrganisationRow) => ({
  organisationId: row.organisationId,
  name: row.name,
  email: row.email,
  version: row.version,
});

/** An organisation's or a group's validators: its version, and when it was last changed. */
const validatorsOf = (row: { version: number; updatedAt: Date }): ResourceValidators => ({
  etag: `"${row.version}"`,
  lastModified: row.updatedAt,
});

/** Validators as headers of a write's answer (kept with it for repeats). */
const validatorHeaders = (row: { version: number; updatedAt: Date }): Record<string, string> => ({
  ETag: `"${row.version}"`,
  'Last-Modified': row.updatedAt.toUTCString(),
});

const presentGroup = (row: GroupRow) => ({
  securedPartyGroupId: row.securedPartyGroupId,
  name: row.name,
  email: row.email,
  securedParties: row.securedParties,
  version: row.version,
});

function presentTransaction(row: TransactionRow) {
  return {
    requestId: row.requestId,
    billingReference: row.billingReference,
    channel: row.channel,
    correlationId: row.correlationId,
    paymentSessionId: row.paymentSessionId,
    receivedDate: formatNzDateTime(row.receivedAt.getTime()),
    receivedUtcDate: row.receivedAt.toISOString(),
    registrationNumber: row.registrationNumber,
    spgId: row.spgId,
    statusCode: row.statusCode,
    response: (row.response as { body?: unknown } | null)?.body ?? null,
  };
}

const stale = (holds: string) =>
  new HttpError(
    PLATFORM_ERRORS.preconditionFailed,
    `Precondition Failed: If-Match or If-Unmodified-Since does not hold; ${holds}.`,
  );

const groupNotFound = (id: string) =>
  new HttpError(PLATFORM_ERRORS.notFound, `Your organisation has no secured party group ${id}.`);

/** The customer organisation the caller acts for, made on first use with its name from identity. */
async function organisationRow(
  context: ServiceContext,
  caller: Caller | undefined,
): Promise<CustomerOrganisationRow> {
  const organisationId = await organisationOf(context, caller);
  const found = await context.identity.organisation(organisationId);
  return ensureCustomerOrganisation(
    context.database.pool,
    organisationId,
    found?.name ?? organisationId,
    context.clock.now(),
  );
}

/** The customer organisation the caller acts for, with its validators (PPSR_44). */
export async function customerOrganisation(context: ServiceContext, input: { caller: Caller | undefined }) {
  const row = await organisationRow(context, input.caller);
  return { organisation: presentOrganisation(row), validators: validatorsOf(row) };
}

/**
 * Before an update of the organisation's email address is recorded (PPSR_45): the organisation the
 * caller acts for, and the address checked (an email address, or null for none).
 */
export async function admitOrganisationUpdate(
  context: ServiceContext,
  input: { caller: Caller | undefined; email: string | null },
): Promise<{ organisationId: string; email: string | null }> {
  const current = await organisationRow(context, input.caller);
  const email = input.email === null ? null : input.email.trim();
  if (email !== null && !EMAIL.test(email)) throw new RuleError('email', 'must be an email address or null');
  return { organisationId: current.organisationId, email };
}

/** The organisation's email address replaced (PPSR_45), its preconditions checked under its lock. */
export async function updateOrganisationEmail(
  context: ServiceContext,
  input: { organisationId: string; email: string | null; preconditions: Preconditions },
  { client }: InTransaction,
): Promise<Answer> {
  const locked = await lockCustomerOrganisation(client, input.organisationId);
  input.preconditions(locked && validatorsOf(locked), () =>
    stale(`the organisation is at version ${locked?.version}`),
  );
  const row = await updateCustomerOrganisation(
    client,
    input.organisationId,
    { email: input.email, expectedVersion: locked?.version },
    context.clock.now(),
  );
  if (!row) throw stale('the organisation has changed');
  return { httpStatus: 200, body: presentOrganisation(row), headers: validatorHeaders(row) };
}

/** A secured party group as sent, checked: its name, email and secured parties. */
export function checkGroup(body: Static<typeof SecuredPartyGroupRequest>) {
  const name = body.name.trim();
  if (name === '' || name.length > 200) throw new RuleError('name', 'must be 1 to 200 characters');
  const email = body.email.trim();
  if (!EMAIL.test(email)) throw new RuleError('email', 'must be an email address');
  return { name, email, securedParties: checkSecuredParties(body.securedParties) };
}

export type CheckedGroup = ReturnType<typeof checkGroup>;

/** A new secured party group of the organisation (PPSR_34). */
export async function createGroup(
  context: ServiceContext,
  input: { organisationId: string; group: CheckedGroup },
  { client }: InTransaction,
): Promise<Answer> {
  const row = await insertGroup(
    client,
    { organisationId: input.organisationId, ...input.group },
    context.clock.now(),
  );
  return {
    httpStatus: 201,
    body: presentGroup(row),
    headers: { ...validatorHeaders(row), Location: `secured-party-groups/${row.securedPartyGroupId}` },
    spgId: row.securedPartyGroupId,
  };
}

/** The organisation's secured party groups (PPSR_34_LIST). */
export async function groupsOf(context: ServiceContext, input: { organisationId: string }) {
  const groups = await listGroups(context.database.pool, input.organisationId);
  return { securedPartyGroups: groups.map(presentGroup) };
}

/** One secured party group of the organisation, with its validators (PPSR_34_GET). */
export async function readGroup(context: ServiceContext, input: { organisationId: string; groupId: string }) {
  const row = await getGroup(context.database.pool, input.groupId);
  if (!row || row.organisationId !== input.organisationId) throw groupNotFound(input.groupId);
  return { group: presentGroup(row), validators: validatorsOf(row) };
}

/** Before a group's replacement is recorded: another organisation's group (or none) is refused. */
export async function admitGroupReplacement(
  context: ServiceContext,
  input: { organisationId: string; groupId: string },
): Promise<void> {
  const existing = await getGroup(context.database.pool, input.groupId);
  if (!existing || existing.organisationId !== input.organisationId) throw groupNotFound(input.groupId);
}

/** A secured party group replaced (PPSR_34_UPDATE), its preconditions checked under its lock. */
export async function replaceGroup(
  context: ServiceContext,
  input: { organisationId: string; groupId: string; group: CheckedGroup; preconditions: Preconditions },
  { client }: InTransaction,
): Promise<Answer> {
  const id = input.groupId;
  const row = await getGroup(client, id, { forUpdate: true });
  if (!row || row.organisationId !== input.organisationId) throw groupNotFound(id);
  input.preconditions(validatorsOf(row), () => stale(`the group is at version ${row.version}`));
  const updated = await updateGroup(client, id, input.group, context.clock.now());
  return { httpStatus: 200, body: presentGroup(updated), headers: validatorHeaders(updated), spgId: id };
}

/**
 * A secured party group deleted (ours: no published operation), its preconditions checked under its
 * lock: refused while a financing statement names it (409, nothing changes), since a statement shows
 * its group's parties and mails its group.
 */
export async function deleteGroup(
  _context: ServiceContext,
  input: { organisationId: string; groupId: string; preconditions: Preconditions },
  { client }: InTransaction,
): Promise<Answer> {
  const id = input.groupId;
  const row = await getGroup(client, id, { forUpdate: true });
  if (!row || row.organisationId !== input.organisationId) throw groupNotFound(id);
  input.preconditions(validatorsOf(row), () => stale(`the group is at version ${row.version}`));
  const outcome = await deleteUnusedGroup(client, id);
  if (!outcome.deleted) {
    const named =
      outcome.statements === 1 ? '1 financing statement' : `${outcome.statements} financing statements`;
    throw new HttpError(
      PPSR_ERRORS.groupInUse,
      `Secured party group ${id} is named by ${named}: it cannot be deleted while they name it.`,
      [{ field: 'securedPartyGroupId', message: `is named by ${named}` }],
    );
  }
  return { httpStatus: 204, body: null, spgId: id };
}

export interface FeeQuery {
  caller: Caller | undefined;
  page: number;
  pageSize: number;
  feeStatus?: 'Unbilled' | 'Invoiced' | undefined;
  requestId?: string | undefined;
  billingReference?: string | undefined;
}

/** The organisation's fees for this register, newest first (SEC_43). */
export async function feesOf(context: ServiceContext, input: FeeQuery) {
  const result = await context.fees.list(input.caller, {
    page: input.page,
    pageSize: input.pageSize,
    ...(input.feeStatus ? { feeStatus: input.feeStatus } : {}),
    ...(input.requestId ? { requestId: input.requestId } : {}),
    ...(input.billingReference ? { billingReference: input.billingReference } : {}),
  });
  const fees = result.records.map((fee) => ({
    transactionType: fee.operation,
    description: fee.description,
    amount: fee.amountCents / 100,
    gst: fee.gstCents / 100,
    currency: fee.currency,
    feeStatus: fee.feeStatus,
    invoiceNumber: fee.invoiceReference,
    paymentSessionId: String(fee.id),
    requestId: fee.requestId,
    billingReference: fee.billingReference,
    registrationNumber: fee.objectKind === 'financing-statement' ? fee.objectId : null,
    chargedDate: formatNzDateTime(fee.chargedAt.getTime()),
  }));
  return { totalResults: result.total, page: result.page, pageSize: result.pageSize, fees };
}

/**
 * The organisation's ended transactions (SEC_56) by request id or by billing reference: exactly one of
 * the two. A transaction still processing is not shown (published).
 */
export async function transactionsOf(
  context: ServiceContext,
  input: {
    caller: Caller | undefined;
    requestId?: string | undefined;
    billingReference?: string | undefined;
  },
) {
  const { requestId, billingReference } = input;
  if (
    (requestId === undefined || requestId === '') ===
    (billingReference === undefined || billingReference === '')
  ) {
    throw new RuleError('request-id', 'give exactly one of request-id and billing-reference');
  }
  const organisationId = await organisationOf(context, input.caller);
  const rows = await findEndedTransactions(
    context.database.pool,
    context.serverKeys,
    organisationId,
    requestId ? { requestId } : { billingReference: billingReference! },
  );
  return { transactions: rows.map(presentTransaction) };
}
