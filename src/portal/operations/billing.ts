import { directCreditOf, parseNzdAmount, topUp } from '../../billing/direct-credit.ts';
import { describePeriod, periodEnd, periodOf, periodStart } from '../../billing/domain/invoice-month.ts';
import {
  approveAuthority,
  currentAuthority,
  type DirectDebitAuthority,
  declineAuthority,
  findAuthority,
  listAuthorities,
  requestAuthority,
} from '../../billing/store/authorities.ts';
import {
  findInvoice,
  type Invoice,
  type InvoiceTransaction,
  type InvoiceWithLines,
  invoiceTransactions,
  listInvoices,
  parseReference,
  subscriptionFees,
} from '../../billing/store/invoices.ts';
import type { MembershipRole, Organisation } from '../../identity/domain/organisations.ts';
import { organisationsOf } from '../../identity/store/memberships.ts';
import { findOrganisation, organisationBillingFacts } from '../../identity/store/organisations.ts';
import { RuleError } from '../../platform/errors.ts';
import { sendMail } from '../../platform/mail.ts';
import { ENVIRONMENTS, type Environment } from '../../services/contract.ts';
import { UUID } from '../domain/values.ts';
import { notFound } from '../errors.ts';
import type { PortalDeps } from '../index.ts';
import type { PortalUser } from '../session.ts';
import type { MySubscription } from './subscriptions.ts';
import { mailOperators, userEmails } from './users.ts';

/**
 * Billing in the portal, through billing's store (the ledger, authorities and invoices are billing's
 * tables, one set per environment database) and identity's (organisations and memberships): a member's
 * organisations with their direct debit authority and invoices, the operators' decisions on
 * authorities, a subscription's fees of the month so far.
 */
export interface OrganisationBilling {
  organisation: Organisation & { role: MembershipRole };
  authority: DirectDebitAuthority | undefined;
  invoices: Invoice[];
  /** The organisation's direct credit account and its last movements, when it has one. */
  directCredit: Awaited<ReturnType<typeof directCreditOf>>;
}

const poolOf = (deps: PortalDeps, environment: Environment) => deps.runtime.environments[environment].pool;
const nowIn = (deps: PortalDeps, environment: Environment) => deps.runtime.clocks.for(environment).now();

/** Each of the user's organisations with its authority and its last invoices and credit notes. */
export async function billingOf(deps: PortalDeps, userId: string): Promise<OrganisationBilling[]> {
  const organisations = await organisationsOf(deps.runtime.gateway.pool, userId);
  const found: OrganisationBilling[] = [];
  for (const organisation of organisations) {
    const pool = poolOf(deps, organisation.environment);
    const [authority, invoices, directCredit] = await Promise.all([
      currentAuthority(pool, organisation.id),
      listInvoices(pool, { organisationIds: [organisation.id], limit: 36 }),
      directCreditOf(pool, organisation.id, 10),
    ]);
    found.push({ organisation, authority, invoices, directCredit });
  }
  return found;
}

/**
 * A member requests a direct debit authority for their organisation: the sandbox's is a dummy one,
 * approved at once; a production one waits for an operator (the operators are mailed). Answers its state.
 */
export async function requestDirectDebit(
  deps: PortalDeps,
  user: PortalUser,
  input: { organisationId: string; accountName: string; accountNumber: string },
): Promise<DirectDebitAuthority['state']> {
  const gateway = deps.runtime.gateway.pool;
  const organisation = UUID.test(input.organisationId)
    ? (await organisationsOf(gateway, user.id)).find((candidate) => candidate.id === input.organisationId)
    : undefined;
  if (!organisation) {
    throw new RuleError('organisation', 'must be an organisation you are a member of', {
      message: 'organisation: must be an organisation you are a member of',
    });
  }
  const environment = organisation.environment;
  const { accountName, accountNumber } = input;
  const created = await requestAuthority(poolOf(deps, environment), environment, {
    organisationId: organisation.id,
    requestedBy: user.id,
    ...(accountName.trim() !== '' || environment === 'production' ? { accountName } : {}),
    ...(accountNumber.trim() !== '' || environment === 'production' ? { accountNumber } : {}),
    now: nowIn(deps, environment),
  });
  if (created.state === 'requested') {
    await mailOperators(deps.mail, {
      subject: `Direct debit authority requested for ${organisation.name} (${environment})`,
      text: [
        `${user.email} requested a direct debit authority for ${organisation.name} in ${environment}.`,
        '',
        `Approve or decline it in the developer portal: ${deps.runtime.publicUrl.base}/portal/operator/approvals`,
      ].join('\n'),
    });
  }
  return created.state;
}

/**
 * The invoice or credit note with this number, for a member of its organisation or an operator. The
 * same 404 for "no such invoice" and "not yours": nothing tells one from the other.
 */
export async function visibleInvoice(
  deps: PortalDeps,
  user: PortalUser,
  environment: Environment,
  reference: string,
): Promise<InvoiceWithLines> {
  let invoice: InvoiceWithLines | undefined;
  try {
    parseReference(reference);
    invoice = await findInvoice(poolOf(deps, environment), reference);
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
  }
  if (!invoice || !(await canSee(deps, user, invoice.organisationId, environment))) {
    throw notFound('You have no invoice with that number.');
  }
  return invoice;
}

/** The fees a visible invoice is made of, each with its line (a credit note has none). */
export async function visibleInvoiceTransactions(
  deps: PortalDeps,
  environment: Environment,
  invoice: InvoiceWithLines,
): Promise<InvoiceTransaction[]> {
  return invoiceTransactions(poolOf(deps, environment), invoice);
}

/** Operators see every organisation's invoices; a member those of their organisations in that environment. */
async function canSee(deps: PortalDeps, user: PortalUser, organisationId: string, environment: Environment) {
  if (user.isOperator) return true;
  const mine = await organisationsOf(deps.runtime.gateway.pool, user.id);
  return mine.some(
    (organisation) => organisation.id === organisationId && organisation.environment === environment,
  );
}

/**
 * An operator tops up an organisation's direct credit account (named by environment and identifier, as
 * `rsg billing credit top-up`); the amount in NZ dollars. Answers the new balance in cents.
 */
export async function topUpDirectCreditAsOperator(
  deps: PortalDeps,
  operator: PortalUser,
  input: { environment: string; organisation: string; amount: string; note: string },
): Promise<number> {
  if (!(ENVIRONMENTS as readonly string[]).includes(input.environment))
    throw new RuleError('environment', 'must be sandbox or production');
  const environment = input.environment as Environment;
  const organisation = await findOrganisation(
    deps.runtime.gateway.pool,
    environment,
    input.organisation.trim(),
  );
  if (!organisation)
    throw new RuleError('organisation', `must be the identifier of a ${environment} organisation`);
  const account = await topUp(poolOf(deps, environment), {
    organisationId: organisation.id,
    amountCents: parseNzdAmount(input.amount),
    note: input.note,
    madeBy: operator.email,
    at: nowIn(deps, environment),
  });
  return account.balanceCents;
}

/** An operator approves or declines a requested authority; the member who asked is mailed. Answers its state. */
export async function decideDirectDebit(
  deps: PortalDeps,
  operator: PortalUser,
  environment: Environment,
  id: string,
  input: { decision: string; note: string },
): Promise<DirectDebitAuthority['state']> {
  const gateway = deps.runtime.gateway.pool;
  const authority = UUID.test(id) ? await findAuthority(poolOf(deps, environment), id) : undefined;
  if (!authority) throw notFound('No direct debit authority has that id.');
  const { decision, note } = input;
  if (decision !== 'approve' && decision !== 'decline') {
    throw new RuleError('decision', 'must be approve or decline');
  }
  const move = decision === 'approve' ? approveAuthority : declineAuthority;
  const decided = await move(poolOf(deps, environment), authority.id, {
    by: operator.id,
    note,
    now: nowIn(deps, environment),
  });
  const [facts, emails] = await Promise.all([
    organisationBillingFacts(gateway, [decided.organisationId]),
    userEmails(gateway, decided.requestedBy ? [decided.requestedBy] : []),
  ]);
  const name = facts.get(decided.organisationId)?.name ?? decided.organisationId;
  const to = decided.requestedBy ? emails.get(decided.requestedBy) : undefined;
  if (to) {
    await sendMail(deps.mail, {
      to,
      subject: `Direct debit authority for ${name} ${decided.state}`,
      text: [
        `The direct debit authority for ${name} (${environment}) was ${decided.state}.`,
        ...(note ? ['', `Note from the operator: ${note}`] : []),
        '',
        '— Register Services Gateway',
      ].join('\n'),
    });
  }
  return decided.state;
}

export interface WaitingAuthority extends DirectDebitAuthority {
  environment: Environment;
  organisationName: string;
  /** Who asked: a member's email, `undefined` for a member identity no longer knows, null for an operator. */
  requesterEmail: string | undefined | null;
}

/** Authorities waiting for a decision in every environment, oldest first. */
export async function waitingAuthorities(deps: PortalDeps): Promise<WaitingAuthority[]> {
  const waiting: (DirectDebitAuthority & { environment: Environment })[] = [];
  for (const environment of ENVIRONMENTS) {
    const found = await listAuthorities(poolOf(deps, environment), { state: 'requested', limit: 200 });
    waiting.push(...found.map((authority) => ({ ...authority, environment })));
  }
  waiting.sort((a, b) => a.requestedAt.getTime() - b.requestedAt.getTime());
  const gateway = deps.runtime.gateway.pool;
  const [facts, emails] = await Promise.all([
    organisationBillingFacts(gateway, [...new Set(waiting.map((authority) => authority.organisationId))]),
    userEmails(gateway, [
      ...new Set(waiting.flatMap((authority) => (authority.requestedBy ? [authority.requestedBy] : []))),
    ]),
  ]);
  return waiting.map((authority) => ({
    ...authority,
    organisationName: facts.get(authority.organisationId)?.name ?? authority.organisationId,
    requesterEmail: authority.requestedBy ? emails.get(authority.requestedBy) : null,
  }));
}

export interface MonthFees {
  environment: Environment;
  /** The environment's clock when asked. */
  now: Date;
  /** The month, as its invoice names it. */
  label: string;
  fees: Awaited<ReturnType<typeof subscriptionFees>>;
}

/** A subscription's fees in the month so far (New Zealand time, on the environment's clock). */
export async function feesOfMonth(deps: PortalDeps, subscription: MySubscription): Promise<MonthFees> {
  const environment: Environment = subscription.productId.startsWith('sandbox-') ? 'sandbox' : 'production';
  const now = nowIn(deps, environment);
  const period = periodOf(now);
  const fees = await subscriptionFees(
    poolOf(deps, environment),
    subscription.id,
    periodStart(period),
    periodEnd(period),
  );
  return { environment, now, label: describePeriod(period).label, fees };
}
