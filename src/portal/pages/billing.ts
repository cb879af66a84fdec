import type { FastifyRequest } from 'fastify';
import { formatCents } from '../../billing/domain/invoice-gst.ts';
import { describePeriod, formatNz, formatNzDate } from '../../billing/domain/invoice-month.ts';
import type { DirectDebitAuthority } from '../../billing/store/authorities.ts';
import type { DirectCreditMovement } from '../../billing/store/direct-credit.ts';
import type { Invoice, InvoiceWithLines } from '../../billing/store/invoices.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { Environment } from '../../services/contract.ts';
import { formatDate } from '../domain/values.ts';
import type { PortalDeps } from '../index.ts';
import type { MonthFees, OrganisationBilling, WaitingAuthority } from '../operations/billing.ts';
import { csrfField } from './layout.ts';
import { mailHint } from './my-mail.ts';
import { makeOrganisationForm } from './organisation-header.ts';

/**
 * Billing's pages: a member's organisations with their direct debit authority (request one) and
 * invoices, an invoice's page, the operators' queue of authorities waiting for a decision (on the
 * approvals page), a subscription's fees of the month so far (on its usage page).
 */
const money = (cents: number) => `NZ$${formatCents(cents)}`;

export const invoicePath = (environment: Environment, invoice: Pick<Invoice, 'reference'>) =>
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
function movementsTable(movements: DirectCreditMovement[]): SafeHtml {
  if (movements.length === 0) return html``;
  return html`<table class="stack"><caption class="muted">Last movements, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Balance after</th></tr></thead>
<tbody>${movements.map(
    (m) => html`<tr><td data-label="When">${formatNz(m.madeAt)}</td>
<td data-label="What">${m.kind === 'top-up' ? html`top-up${m.note ? html` (${m.note})` : ''}` : html`fee, invoiced for ${describePeriod(m.billingPeriod!).label}`}</td>
<td data-label="Amount" class="num">${m.kind === 'top-up' ? '+' : '−'}${formatCents(m.amountCents)}</td>
<td data-label="Balance after" class="num">${money(m.balanceAfterCents)}</td></tr>`,
  )}</tbody></table>`;
}
function directCreditSection({ directCredit }: OrganisationBilling): SafeHtml {
  if (!directCredit)
    return html`<h3>Direct credit</h3><p class="muted">No direct credit account. An operator opens one by topping it up; the IP office then charges its fees to it instead of a direct debit.</p>`;
  return html`<h3>Direct credit</h3>
<p>Balance: <strong data-direct-credit-balance>${money(directCredit.account.balanceCents)}</strong>. The IP office charges each fee and its GST to it; a fee the balance cannot cover is refused and nothing is done.</p>
${movementsTable(directCredit.movements)}`;
}
/** The operators' top-up form (on the approvals page). */
export function directCreditForm(request: FastifyRequest, credited: string): SafeHtml {
  return html`<section class="card" aria-labelledby="direct-credit"><h2 id="direct-credit">Direct credit top-up</h2>
${/^[0-9]+$/.test(credited) ? html`<p class="ok" role="status">Topped up: the balance is now ${money(Number(credited))}.</p>` : ''}
<form method="post" action="/portal/operator/direct-credit">${csrfField(request)}
<label for="credit-environment">Environment</label>
<select id="credit-environment" name="environment"><option value="production">production</option><option value="sandbox">sandbox</option></select>
<label for="credit-organisation">Organisation identifier</label>
<input id="credit-organisation" name="organisation" type="text" maxlength="200" required>
<label for="credit-amount">Amount (NZ$)</label>
<input id="credit-amount" name="amount" type="text" inputmode="decimal" maxlength="20" required>
<label for="credit-note">Note (optional, e.g. the payment's reference)</label>
<input id="credit-note" name="note" type="text" maxlength="500">
<button type="submit">Top up</button></form></section>`;
}
function organisationSection(request: FastifyRequest, billing: OrganisationBilling): SafeHtml {
  const { organisation, authority, invoices } = billing;
  const environment = organisation.environment;
  return html`<section class="card" aria-labelledby="org-${organisation.id}">
<h2 id="org-${organisation.id}">${organisation.name} <span class="badge">${environment}</span></h2>
<p class="muted">Your role: ${organisation.role}.</p>
<h3>Direct debit authority</h3>
<p>State: ${authorityBadge(authority)}${
    authority?.accountNumberMasked
      ? html` — account ${authority.accountName ?? ''} <code>${authority.accountNumberMasked}</code>`
      : ''
  }${authority?.state === 'requested' ? html` — waiting for an operator's decision.` : ''}</p>
${authority ? '' : requestForm(request, organisation.id, environment)}
${directCreditSection(billing)}
<h3>Invoices</h3>
${invoiceTable(environment, invoices, `Invoices and credit notes of ${organisation.name}, newest first`)}
</section>`;
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
export function billingPage(
  request: FastifyRequest,
  deps: PortalDeps,
  billing: OrganisationBilling[],
  requested: string,
): SafeHtml {
  const sections = billing.map((one) => organisationSection(request, one));
  const organisations = billing.map((one) => one.organisation);
  return html`<h1>Billing</h1>
${requested === 'approved' ? html`<p class="ok" role="status">The sandbox authority is approved (a dummy one, at once).</p>` : ''}
${requested === 'requested' ? html`<p class="ok" role="status">The authority is requested; an operator will decide, and you will be told by mail.${mailHint(deps)}</p>` : ''}
<p>Fees of every register are invoiced monthly per organisation, after each month ends in New Zealand time, with GST at 15%.
In production a fee-bearing call needs an approved direct debit authority for the organisation that pays;
the IP office also takes direct credit, a prepaid balance an operator tops up.</p>
${sections.length === 0 ? html`<p class="notice" id="no-organisation">You belong to no organisation yet.</p>` : sections}
${organisationsHelp(request, organisations)}`;
}

export function invoicePage(environment: Environment, invoice: InvoiceWithLines): SafeHtml {
  const { label } = describePeriod(invoice.period);
  return html`<h1>${invoiceTitle(invoice)}</h1>
<section class="card"><dl>
<dt>Organisation</dt><dd>${invoice.organisationName} <span class="badge">${environment}</span></dd>
<dt>Period</dt><dd>${label} (New Zealand time, ${formatNz(invoice.periodStart)} to ${formatNz(new Date(invoice.periodEnd.getTime() - 1))})</dd>
<dt>Issued</dt><dd>${formatNz(invoice.issuedAt)}</dd>
${invoice.creditsReference ? html`<dt>Credits</dt><dd><a href="${invoicePath(environment, { reference: invoice.creditsReference })}">${invoice.creditsReference}</a></dd>` : ''}
${invoice.reason ? html`<dt>Reason</dt><dd>${invoice.reason}</dd>` : ''}
${invoice.creditNotes.length > 0 ? html`<dt>Credit notes</dt><dd>${invoice.creditNotes.map((reference, index) => html`${index > 0 ? ', ' : ''}<a href="${invoicePath(environment, { reference })}">${reference}</a>`)}</dd>` : ''}
</dl>
<p><a href="${invoicePath(environment, invoice)}/csv">Download CSV</a> · <a href="${invoicePath(environment, invoice)}/pdf">Download PDF</a>${invoice.kind === 'invoice' ? html` · <a href="${invoicePath(environment, invoice)}/transactions-csv">Transactions (CSV)</a>` : ''}</p></section>
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
${
  invoice.paidByDirectCreditCents
    ? html`<tr><th scope="row" colspan="7">Paid from the direct credit account</th><td data-label="Direct credit" class="num">−${formatCents(invoice.paidByDirectCreditCents)}</td></tr>
<tr><th scope="row" colspan="7">Balance due</th><td data-label="Balance due" class="num"><strong>${money(invoice.totalCents - (invoice.paidByDirectCreditCents ?? 0))}</strong></td></tr>`
    : ''
}
</tbody></table></section>
<p><a href="/portal/billing">Back to billing</a></p>`;
}

export const invoiceTitle = (invoice: Pick<Invoice, 'kind' | 'reference'>): string =>
  `${invoice.kind === 'invoice' ? 'Tax invoice' : 'Credit note'} ${invoice.reference}`;

/** The operators' queue: direct debit authorities waiting for a decision, in each environment. */
export function authorityQueue(
  request: FastifyRequest,
  waiting: WaitingAuthority[],
  decided: string,
): SafeHtml {
  return html`<h2 id="authorities">Direct debit authorities</h2>
${decided === 'approved' || decided === 'declined' ? html`<p class="ok" role="status">The authority was ${decided}; the member who asked was told by mail.</p>` : ''}
${
  waiting.length === 0
    ? html`<p class="notice">No direct debit authorities are waiting.</p>`
    : html`<table class="stack"><caption class="muted">${waiting.length} waiting, oldest first</caption>
<thead><tr><th scope="col">Requested</th><th scope="col">Organisation</th><th scope="col">Account</th><th scope="col">Decision</th></tr></thead>
<tbody>${waiting.map((authority) => {
        const name = authority.organisationName;
        return html`<tr id="authority-${authority.id}"><td data-label="Requested">${formatDate(authority.requestedAt)}<br><span class="muted">by ${authority.requesterEmail === null ? 'an operator (command line)' : (authority.requesterEmail ?? 'a member')}</span></td>
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
export function feesSection({ environment, now, label, fees }: MonthFees): SafeHtml {
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
