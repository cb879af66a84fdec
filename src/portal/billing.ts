import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invoiceCsv } from '../billing/documents/invoice-csv.ts';
import { invoicePdf } from '../billing/documents/invoice-pdf.ts';
import { formatCents } from '../billing/domain/invoice-gst.ts';
import {
  describePeriod,
  formatNz,
  formatNzDate,
  periodEnd,
  periodOf,
  periodStart,
} from '../billing/domain/invoice-month.ts';
import {
  approveAuthority,
  currentAuthority,
  type DirectDebitAuthority,
  declineAuthority,
  findAuthority,
  listAuthorities,
  requestAuthority,
} from '../billing/store/authorities.ts';
import {
  findInvoice,
  type Invoice,
  type InvoiceWithLines,
  listInvoices,
  parseReference,
  subscriptionFees,
} from '../billing/store/invoices.ts';
import { organisationsOf } from '../identity/store/memberships.ts';
import { organisationBillingFacts } from '../identity/store/organisations.ts';
import { operatorEmails } from '../identity/store/users.ts';
import { RuleError } from '../platform/errors.ts';
import { PLATFORM_ERRORS } from '../platform/http/error-codes.ts';
import { HttpError } from '../platform/http/errors.ts';
import { html, type SafeHtml } from '../platform/http/html.ts';
import { sendMail } from '../platform/mail.ts';
import { ENVIRONMENTS, type Environment } from '../services/contract.ts';
import type { PortalDeps } from './index.ts';
import { csrfField, field, formatDate, sendPage, UUID } from './layout.ts';
import { mailHint } from './my-mail.ts';
import { makeOrganisationForm } from './organisation-header.ts';
import { type PortalUser, requireOperator, requireUser } from './session.ts';
import type { MySubscription } from './store.ts';
import { userEmails } from './store.ts';

/**
 * Billing in the portal: a member's organisations with their direct debit authority (request one) and
 * invoices (view, CSV, PDF); the operators' queue of authorities waiting for a decision (shown on the
 * approvals page); a subscription's fees of the month so far (shown on its usage page).
 */

const money = (cents: number) => `NZ$${formatCents(cents)}`;

function environmentParam(value: string): Environment {
  if (value !== 'sandbox' && value !== 'production')
    throw new HttpError(PLATFORM_ERRORS.notFound, 'There is no such page in the portal.');
  return value;
}

const invoicePath = (environment: Environment, invoice: Pick<Invoice, 'reference'>) =>
  `/portal/billing/${environment}/invoices/${invoice.reference}`;

function authorityBadge(authority: DirectDebitAuthority | undefined): SafeHtml {
  if (!authority) return html`<span class="badge">none</span>`;
  return html`<span class="badge state-${authority.state}">${authority.state}</span>`;
}

function invoiceTable(environment: Environment, invoices: Invoice[], caption: string): SafeHtml {
  if (invoices.length === 0)
    return html`<p class="muted">No invoices yet: they are issued after each month ends (New Zealand time).</p>`;
  return html`<table class="stack"><caption class="muted">${caption}</caption>
<thead><tr><th scope="col">Number</th><th scope="col">Period</th><th scope="col">Issued</th><th scope="col" class="num">Net</th><th scope="col" class="num">GST</th><th scope="col" class="num">Total</th><th scope="col">Download</th></tr></thead>
<tbody>${invoices.map(
    (
      invoice,
    ) => html`<tr><td data-label="Number"><a href="${invoicePath(environment, invoice)}">${invoice.reference}</a>${
      invoice.kind === 'credit_note'
        ? html` <span class="badge">credit note for ${invoice.creditsReference ?? ''}</span>`
        : ''
    }</td>
<td data-label="Period">${describePeriod(invoice.period).label}</td>
<td data-label="Issued">${formatNzDate(invoice.issuedAt)}</td>
<td data-label="Net" class="num">${formatCents(invoice.netCents)}</td>
<td data-label="GST" class="num">${formatCents(invoice.gstCents)}</td>
<td data-label="Total" class="num">${money(invoice.totalCents)}</td>
<td data-label="Download"><a href="${invoicePath(environment, invoice)}/csv" aria-label="${invoice.reference} as CSV">CSV</a> · <a href="${invoicePath(environment, invoice)}/pdf" aria-label="${invoice.reference} as PDF">PDF</a></td></tr>`,
  )}</tbody></table>`;
}

function requestForm(request: FastifyRequest, organisationId: string, environment: Environment): SafeHtml {
  const id = organisationId.slice(0, 8);
  return html`<form method="post" action="/portal/billing/authorities">${csrfField(request)}
<input type="hidden" name="organisation" value="${organisationId}">
<label for="account-name-${id}">Account name</label>
<input id="account-name-${id}" name="accountName" type="text" maxlength="100" autocomplete="off"${environment === 'production' ? html` required` : ''}>
<label for="account-number-${id}">Bank account number</label>
<p class="hint" id="account-number-hint-${id}">NZ format, e.g. 12-3456-0123456-00; only the last digits are kept.${environment === 'sandbox' ? ' In the sandbox the authority is a dummy one, approved at once; the fields may stay empty.' : ''}</p>
<input id="account-number-${id}" name="accountNumber" type="text" maxlength="40" inputmode="numeric" autocomplete="off" aria-describedby="account-number-hint-${id}"${environment === 'production' ? html` required` : ''}>
<button type="submit">Request a direct debit authority</button></form>`;
}

/** The user's organisations in one environment, or the one the user may see (operators see all). */
async function canSee(deps: PortalDeps, user: PortalUser, organisationId: string, environment: Environment) {
  if (user.isOperator) return true;
  const mine = await organisationsOf(deps.runtime.gateway.pool, user.id);
  return mine.some(
    (organisation) => organisation.id === organisationId && organisation.environment === environment,
  );
}

async function invoiceFor(
  deps: PortalDeps,
  request: FastifyRequest<{ Params: { environment: string; reference: string } }>,
): Promise<{ environment: Environment; invoice: InvoiceWithLines }> {
  const user = requireUser(request);
  const environment = environmentParam(request.params.environment);
  let invoice: InvoiceWithLines | undefined;
  try {
    parseReference(request.params.reference);
    invoice = await findInvoice(deps.runtime.environments[environment].pool, request.params.reference);
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
  }
  // The same answer for "no such invoice" and "not yours": nothing tells one from the other.
  if (!invoice || !(await canSee(deps, user, invoice.organisationId, environment))) {
    throw new HttpError(PLATFORM_ERRORS.notFound, 'You have no invoice with that number.');
  }
  return { environment, invoice };
}

function download(reply: FastifyReply, name: string, type: string, body: string | Buffer): FastifyReply {
  return reply.type(type).header('Content-Disposition', `attachment; filename="${name}"`).send(body);
}

/**
 * How an organisation is made, as the code allows it: in the sandbox the user makes one (Sandbox access,
 * or the personal one in place); in production the user asks and an operator approves.
 */
function organisationsHelp(request: FastifyRequest, organisations: { environment: Environment }[]): SafeHtml {
  const has = (environment: Environment) => organisations.some((o) => o.environment === environment);
  if (has('sandbox') && has('production')) return html``;
  return html`<section class="card" aria-labelledby="getting-organisations"><h2 id="getting-organisations">Getting an organisation</h2>
<ul>${
    has('sandbox')
      ? ''
      : html`<li><strong>Sandbox:</strong> make one yourself and you become its owner, under
<a href="/portal/sandbox#organisations">Sandbox access</a> (your own identifier), or here (a generated one):
${makeOrganisationForm(request, '/portal/billing')}</li>`
  }${
    has('production')
      ? ''
      : html`<li><strong>Production:</strong> ask for one under <a href="/portal/sandbox#production">Sandbox access</a>;
an operator approves the request and you become its owner.</li>`
  }</ul></section>`;
}

export function billingRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const gateway = deps.runtime.gateway.pool;
  const pools = (environment: Environment) => deps.runtime.environments[environment].pool;
  const now = (environment: Environment) => deps.runtime.clocks.for(environment).now();

  scope.get<{ Querystring: { requested?: string } }>('/billing', async (request, reply) => {
    const user = requireUser(request);
    const organisations = await organisationsOf(gateway, user.id);
    const sections: SafeHtml[] = [];
    for (const organisation of organisations) {
      const environment = organisation.environment;
      const [authority, invoices] = await Promise.all([
        currentAuthority(pools(environment), organisation.id),
        listInvoices(pools(environment), { organisationIds: [organisation.id], limit: 36 }),
      ]);
      sections.push(html`<section class="card" aria-labelledby="org-${organisation.id}">
<h2 id="org-${organisation.id}">${organisation.name} <span class="badge">${environment}</span></h2>
<p class="muted">Your role: ${organisation.role}.</p>
<h3>Direct debit authority</h3>
<p>State: ${authorityBadge(authority)}${
        authority?.accountNumberMasked
          ? html` — account ${authority.accountName ?? ''} <code>${authority.accountNumberMasked}</code>`
          : ''
      }${authority?.state === 'requested' ? html` — waiting for an operator's decision.` : ''}</p>
${authority ? '' : requestForm(request, organisation.id, environment)}
<h3>Invoices</h3>
${invoiceTable(environment, invoices, `Invoices and credit notes of ${organisation.name}, newest first`)}
</section>`);
    }
    const requested = String(request.query?.requested ?? '');
    return sendPage(
      request,
      reply,
      'Billing',
      html`<h1>Billing</h1>
${requested === 'approved' ? html`<p class="ok" role="status">The sandbox authority is approved (a dummy one, at once).</p>` : ''}
${requested === 'requested' ? html`<p class="ok" role="status">The authority is requested; an operator will decide, and you will be told by mail.${mailHint(deps)}</p>` : ''}
<p>Fees of every register are invoiced monthly per organisation, after each month ends in New Zealand time, with GST at 15%.
In production a fee-bearing call needs an approved direct debit authority for the organisation that pays.</p>
${sections.length === 0 ? html`<p class="notice" id="no-organisation">You belong to no organisation yet.</p>` : sections}
${organisationsHelp(request, organisations)}`,
    );
  });

  scope.post('/billing/authorities', async (request, reply) => {
    const user = requireUser(request);
    const organisationId = field(request.body, 'organisation', 60);
    const organisation = UUID.test(organisationId)
      ? (await organisationsOf(gateway, user.id)).find((candidate) => candidate.id === organisationId)
      : undefined;
    if (!organisation) {
      throw new RuleError('organisation', 'must be an organisation you are a member of', {
        message: 'organisation: must be an organisation you are a member of',
      });
    }
    const environment = organisation.environment;
    const accountName = field(request.body, 'accountName', 200);
    const accountNumber = field(request.body, 'accountNumber', 60);
    const created = await requestAuthority(pools(environment), environment, {
      organisationId: organisation.id,
      requestedBy: user.id,
      ...(accountName.trim() !== '' || environment === 'production' ? { accountName } : {}),
      ...(accountNumber.trim() !== '' || environment === 'production' ? { accountNumber } : {}),
      now: now(environment),
    });
    if (created.state === 'requested') {
      const publicUrl = deps.runtime.publicUrl.base;
      for (const operator of await operatorEmails(gateway)) {
        await sendMail(deps.mail, {
          to: operator,
          subject: `Direct debit authority requested for ${organisation.name} (${environment})`,
          text: [
            `${user.email} requested a direct debit authority for ${organisation.name} in ${environment}.`,
            '',
            `Approve or decline it in the developer portal: ${publicUrl}/portal/operator/approvals`,
          ].join('\n'),
        });
      }
    }
    return reply.redirect(`/portal/billing?requested=${created.state}`, 303);
  });

  scope.get<{ Params: { environment: string; reference: string } }>(
    '/billing/:environment/invoices/:reference',
    async (request, reply) => {
      const { environment, invoice } = await invoiceFor(deps, request);
      const { label } = describePeriod(invoice.period);
      const what = invoice.kind === 'invoice' ? 'Tax invoice' : 'Credit note';
      return sendPage(
        request,
        reply,
        `${what} ${invoice.reference}`,
        html`<h1>${what} ${invoice.reference}</h1>
<section class="card"><dl>
<dt>Organisation</dt><dd>${invoice.organisationName} <span class="badge">${environment}</span></dd>
<dt>Period</dt><dd>${label} (New Zealand time, ${formatNz(invoice.periodStart)} to ${formatNz(new Date(invoice.periodEnd.getTime() - 1))})</dd>
<dt>Issued</dt><dd>${formatNz(invoice.issuedAt)}</dd>
${invoice.creditsReference ? html`<dt>Credits</dt><dd><a href="${invoicePath(environment, { reference: invoice.creditsReference })}">${invoice.creditsReference}</a></dd>` : ''}
${invoice.reason ? html`<dt>Reason</dt><dd>${invoice.reason}</dd>` : ''}
${invoice.creditNotes.length > 0 ? html`<dt>Credit notes</dt><dd>${invoice.creditNotes.map((reference, index) => html`${index > 0 ? ', ' : ''}<a href="${invoicePath(environment, { reference })}">${reference}</a>`)}</dd>` : ''}
</dl>
<p><a href="${invoicePath(environment, invoice)}/csv">Download CSV</a> · <a href="${invoicePath(environment, invoice)}/pdf">Download PDF</a></p></section>
<section class="card"><table class="stack"><caption class="muted">${invoice.lines.length} lines; GST at 15% is computed once on the net total and shared among the lines, so they add up to it</caption>
<thead><tr><th scope="col">#</th><th scope="col">Description</th><th scope="col">Channel</th><th scope="col" class="num">Quantity</th><th scope="col" class="num">Unit</th><th scope="col" class="num">Net</th><th scope="col" class="num">GST</th><th scope="col" class="num">Total</th></tr></thead>
<tbody>${invoice.lines.map(
          (
            line,
          ) => html`<tr><td data-label="#">${line.lineNumber}</td><td data-label="Description">${line.description} <span class="muted">(${line.service} ${line.feeCode})</span></td>
<td data-label="Channel">${line.channel}</td><td data-label="Quantity" class="num">${line.quantity}</td><td data-label="Unit" class="num">${formatCents(line.unitCents)}</td>
<td data-label="Net" class="num">${formatCents(line.netCents)}</td><td data-label="GST" class="num">${formatCents(line.gstCents)}</td><td data-label="Total" class="num">${formatCents(line.totalCents)}</td></tr>`,
        )}
<tr><th scope="row" colspan="5">Total</th><td data-label="Net" class="num">${formatCents(invoice.netCents)}</td><td data-label="GST" class="num">${formatCents(invoice.gstCents)}</td><td data-label="Total" class="num"><strong>${money(invoice.totalCents)}</strong></td></tr>
</tbody></table></section>
<p><a href="/portal/billing">Back to billing</a></p>`,
      );
    },
  );

  scope.get<{ Params: { environment: string; reference: string } }>(
    '/billing/:environment/invoices/:reference/csv',
    async (request, reply) => {
      const { invoice } = await invoiceFor(deps, request);
      return download(reply, `${invoice.reference}.csv`, 'text/csv; charset=utf-8', invoiceCsv(invoice));
    },
  );

  scope.get<{ Params: { environment: string; reference: string } }>(
    '/billing/:environment/invoices/:reference/pdf',
    async (request, reply) => {
      const { invoice } = await invoiceFor(deps, request);
      return download(reply, `${invoice.reference}.pdf`, 'application/pdf', await invoicePdf(invoice));
    },
  );

  scope.post<{ Params: { environment: string; id: string } }>(
    '/operator/authorities/:environment/:id',
    async (request, reply) => {
      const operator = requireOperator(request);
      const environment = environmentParam(request.params.environment);
      const id = request.params.id;
      const authority = UUID.test(id) ? await findAuthority(pools(environment), id) : undefined;
      if (!authority) throw new HttpError(PLATFORM_ERRORS.notFound, 'No direct debit authority has that id.');
      const decision = field(request.body, 'decision', 20);
      if (decision !== 'approve' && decision !== 'decline') {
        throw new RuleError('decision', 'must be approve or decline');
      }
      const note = field(request.body, 'note', 500).trim();
      const move = decision === 'approve' ? approveAuthority : declineAuthority;
      const decided = await move(pools(environment), authority.id, {
        by: operator.id,
        note,
        now: now(environment),
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
      return reply.redirect(`/portal/operator/approvals?authority=${decided.state}`, 303);
    },
  );
}

/** The operators' queue: direct debit authorities waiting for a decision, in each environment. */
export async function authorityQueue(request: FastifyRequest, deps: PortalDeps): Promise<SafeHtml> {
  const waiting: (DirectDebitAuthority & { environment: Environment })[] = [];
  for (const environment of ENVIRONMENTS) {
    const found = await listAuthorities(deps.runtime.environments[environment].pool, {
      state: 'requested',
      limit: 200,
    });
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
  const decided = String((request.query as Record<string, unknown> | undefined)?.authority ?? '');
  return html`<h2 id="authorities">Direct debit authorities</h2>
${decided === 'approved' || decided === 'declined' ? html`<p class="ok" role="status">The authority was ${decided}; the member who asked was told by mail.</p>` : ''}
${
  waiting.length === 0
    ? html`<p class="notice">No direct debit authorities are waiting.</p>`
    : html`<table class="stack"><caption class="muted">${waiting.length} waiting, oldest first</caption>
<thead><tr><th scope="col">Requested</th><th scope="col">Organisation</th><th scope="col">Account</th><th scope="col">Decision</th></tr></thead>
<tbody>${waiting.map((authority) => {
        const name = facts.get(authority.organisationId)?.name ?? authority.organisationId;
        return html`<tr id="authority-${authority.id}"><td data-label="Requested">${formatDate(authority.requestedAt)}<br><span class="muted">by ${authority.requestedBy ? (emails.get(authority.requestedBy) ?? 'a member') : 'an operator (command line)'}</span></td>
<td data-label="Organisation">${name} <span class="badge">${authority.environment}</span></td>
<td data-label="Account">${authority.accountName ?? ''}<br><code>${authority.accountNumberMasked ?? ''}</code></td>
<td data-label="Decision"><form method="post" action="/portal/operator/authorities/${authority.environment}/${authority.id}">${csrfField(request)}
<label for="note-${authority.id}">Note to the member (optional)</label>
<input id="note-${authority.id}" name="note" type="text" maxlength="500">
<button type="submit" name="decision" value="approve" aria-label="Approve the authority for ${name}">Approve</button>
<button type="submit" name="decision" value="decline" class="danger" aria-label="Decline the authority for ${name}">Decline</button>
</form></td></tr>`;
      })}</tbody></table>`
}`;
}

/** A subscription's fees in the month so far (New Zealand time, the environment's clock). */
export async function feesOfMonth(deps: PortalDeps, subscription: MySubscription): Promise<SafeHtml> {
  const environment: Environment = subscription.productId.startsWith('sandbox-') ? 'sandbox' : 'production';
  const now = deps.runtime.clocks.for(environment).now();
  const period = periodOf(now);
  const { label } = describePeriod(period);
  const fees = await subscriptionFees(
    deps.runtime.environments[environment].pool,
    subscription.id,
    periodStart(period),
    periodEnd(period),
  );
  return html`<section class="card" aria-labelledby="fees-title"><h2 id="fees-title">Fees in ${label} so far</h2>
${
  fees.count === 0
    ? html`<p class="muted">No fees charged through this subscription this month (${environment} clock: ${formatNz(now)}).</p>`
    : html`<p>${fees.count} fee${fees.count === 1 ? '' : 's'}: ${money(fees.netCents)} + GST ${money(fees.gstCents)} (per fee). They are invoiced to the paying organisation after the month ends.</p>
<table class="stack"><caption class="muted">${fees.fees.length < fees.count ? `The latest ${fees.fees.length} of ${fees.count}` : 'Every fee'}, newest first (New Zealand time)</caption>
<thead><tr><th scope="col">Charged</th><th scope="col">Fee</th><th scope="col">Channel</th><th scope="col" class="num">Amount</th><th scope="col" class="num">GST</th><th scope="col">Status</th></tr></thead>
<tbody>${fees.fees.map(
        (
          fee,
        ) => html`<tr><td data-label="Charged">${formatNz(fee.chargedAt)}</td><td data-label="Fee">${fee.description} <span class="muted">(${fee.feeCode})</span></td>
<td data-label="Channel">${fee.channel}</td><td data-label="Amount" class="num">${formatCents(fee.amountCents)}</td><td data-label="GST" class="num">${formatCents(fee.gstCents)}</td>
<td data-label="Status">${fee.invoiceReference ?? 'Unbilled'}</td></tr>`,
      )}</tbody></table>`
}</section>`;
}
