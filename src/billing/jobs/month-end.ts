/**
 * The month end as a background job, in one environment: closes every month that has ended on the
 * environment's clock (`closeDueMonths`), then mails each new invoice and credit note to its
 * organisation's billing contact. It runs once a second, at once when the sandbox's virtual clock is
 * moved (so `rsg clock advance 1mo` issues the invoices within a second), and when woken. Every process
 * that runs jobs runs it; the month end's advisory lock and `month_end_runs` make the second process a
 * no-op, and `invoice_mailings` (claimed before sending) keeps a mail from going out twice.
 */
import { BackgroundJob } from '../../platform/jobs.ts';
import type { JobContext, RunningJobs } from '../../services/contract.ts';
import { formatCents } from '../domain/invoice-gst.ts';
import { describePeriod } from '../domain/invoice-month.ts';
import type { OrganisationDirectory } from '../store/directory.ts';
import {
  billingEmails,
  claimMailing,
  type Invoice,
  releaseMailing,
  unmailedInvoices,
} from '../store/invoices.ts';
import { closeDueMonths, type MonthEndResult } from '../store/month-end.ts';

/** What the month end needs of the job context the services' jobs get. */
export type BillingJobContext = Pick<
  JobContext,
  'environment' | 'database' | 'clock' | 'mail' | 'onClockMoved' | 'log'
>;

export interface BillingJobOptions {
  directory: OrganisationDirectory;
  /** Where people find their invoices (the portal's billing page). */
  portalUrl: string;
  /** Real milliseconds between runs when nothing wakes the job. */
  intervalMs?: number;
}

/** The billing contact of each organisation: its billing email, else its owners. */
export async function billingContacts(
  context: Pick<JobContext, 'database'>,
  directory: OrganisationDirectory,
  organisationIds: readonly string[],
): Promise<Map<string, string[]>> {
  const own = await billingEmails(context.database.pool, organisationIds);
  const missing = organisationIds.filter((id) => !own.has(id));
  const facts = missing.length > 0 ? await directory.lookup(missing) : new Map();
  return new Map(
    organisationIds.map((id) => [id, own.has(id) ? [own.get(id)!] : (facts.get(id)?.ownerEmails ?? [])]),
  );
}

export function invoiceMailText(invoice: Invoice, portalUrl: string): { subject: string; text: string } {
  const { label } = describePeriod(invoice.period);
  const what = invoice.kind === 'invoice' ? 'Tax invoice' : 'Credit note';
  return {
    subject: `${what} ${invoice.reference} for ${label}: NZ$${formatCents(invoice.totalCents)}`,
    text: [
      `${what} ${invoice.reference} for ${invoice.organisationName}`,
      '',
      `Period: ${label} (New Zealand time)`,
      ...(invoice.creditsReference ? [`Credits invoice: ${invoice.creditsReference}`] : []),
      ...(invoice.reason ? [`Reason: ${invoice.reason}`] : []),
      `Net: NZ$${formatCents(invoice.netCents)}`,
      `GST (15%): NZ$${formatCents(invoice.gstCents)}`,
      `Total: NZ$${formatCents(invoice.totalCents)}`,
      '',
      `The lines, a CSV and a PDF are in the developer portal: ${portalUrl}`,
      '',
      '— Register Services Gateway',
    ].join('\n'),
  };
}

export class BillingJobs extends BackgroundJob implements RunningJobs {
  /** The month ends this process ran (tests, `describe`). */
  readonly closed: MonthEndResult[] = [];

  constructor(
    private readonly context: BillingJobContext,
    private readonly options: BillingJobOptions,
  ) {
    super({
      name: `month end (${context.environment})`,
      intervalMs: options.intervalMs,
      onClockMoved: (handler) => context.onClockMoved(handler),
      log: context.log,
    });
  }

  describe(): string {
    return 'month end (invoices in New Zealand time) and invoice mail';
  }

  protected async run(): Promise<void> {
    const results = await closeDueMonths(
      this.context.database.pool,
      this.context.clock.now(),
      this.options.directory,
    );
    for (const result of results) {
      if (!result.ran) continue;
      this.closed.push(result);
      this.context.log.info(
        { environment: this.context.environment, ...result },
        `month end ${result.period}: ${result.invoices} invoices, ${result.fees} fees`,
      );
    }
    await this.mailInvoices();
  }

  private async mailInvoices(): Promise<void> {
    const { pool } = this.context.database;
    for (let round = 0; round < 1000; round++) {
      const invoices = await unmailedInvoices(pool, 100);
      if (invoices.length === 0) return;
      const contacts = await billingContacts(this.context, this.options.directory, [
        ...new Set(invoices.map((invoice) => invoice.organisationId)),
      ]);
      for (const invoice of invoices) {
        const to = (contacts.get(invoice.organisationId) ?? []).join(', ');
        // No contact at all: recorded as such, so the invoice is not tried again every second.
        if (!(await claimMailing(pool, invoice.id, to || '(no billing contact)'))) continue;
        if (!to) continue;
        try {
          await this.context.mail({ to, ...invoiceMailText(invoice, this.options.portalUrl) });
        } catch (error) {
          await releaseMailing(pool, invoice.id);
          throw error;
        }
      }
    }
  }
}
