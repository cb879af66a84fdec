import { writeFileSync } from 'node:fs';
import { invoiceCsv, invoiceTransactionsCsv } from '../billing/documents/invoice-csv.ts';
import { invoicePdf } from '../billing/documents/invoice-pdf.ts';
import { formatCents } from '../billing/domain/invoice-gst.ts';
import { isPeriod } from '../billing/domain/invoice-month.ts';
import { identityDirectory } from '../billing/store/directory.ts';
import {
  findInvoice,
  type Invoice,
  type InvoiceWithLines,
  invoiceTransactions,
  issueCreditNote,
  listInvoices,
  parseReference,
} from '../billing/store/invoices.ts';
import { closeDueMonths, type MonthEndResult, runMonthEnd } from '../billing/store/month-end.ts';
import type { Config } from '../config.ts';
import { findOrganisation } from '../identity/store/organisations.ts';
import { readClock } from '../platform/environment-clocks.ts';
import { RuleError } from '../platform/errors.ts';
import { ENVIRONMENTS, type Environment } from '../services/contract.ts';
import { optional, parse, print, required, UsageError, withDatabases } from './args.ts';

/** `rsg invoices`: the month end's invoices and credit notes, per environment (the operator's side). */
export const INVOICES_USAGE = `invoices list [--environment E] [--organisation ID] [--period YYYY-MM] [--json]
invoices show NUMBER --environment E [--json] [--csv FILE|-] [--pdf FILE] [--transactions FILE|-]
                                 --transactions: each fee of the invoice with its line, request id and
                                 billing reference, as CSV (for reconciliation)
invoices run [--environment E] [--period YYYY-MM]   month end now: every month ended on the environment's
                                 clock (New Zealand time) that holds fees not yet invoiced, or just --period
invoices credit NUMBER --environment E --reason TEXT [--amount CENTS]   a credit note (whole invoice
                                 unless --amount, net cents)`;

function environments(values: Record<string, unknown>, needed: boolean): Environment[] {
  const value = values.environment;
  if (value === undefined && !needed) return [...ENVIRONMENTS];
  if (value !== 'sandbox' && value !== 'production')
    throw new UsageError('--environment must be sandbox or production');
  return [value];
}

const summary = (environment: Environment, invoice: Invoice) =>
  [
    invoice.reference,
    environment,
    invoice.period,
    invoice.issuedAt.toISOString(),
    invoice.organisationName,
    `net ${formatCents(invoice.netCents)}`,
    `GST ${formatCents(invoice.gstCents)}`,
    `total NZ$${formatCents(invoice.totalCents)}`,
    invoice.creditsReference ? `credits ${invoice.creditsReference}` : '',
  ]
    .filter(Boolean)
    .join('\t');

function details(environment: Environment, invoice: InvoiceWithLines): string {
  return [
    summary(environment, invoice),
    ...(invoice.reason ? [`reason: ${invoice.reason}`] : []),
    ...invoice.lines.map(
      (line) =>
        `  ${line.lineNumber}\t${line.service}\t${line.feeCode}\t${line.channel}\t${line.quantity} × ${formatCents(line.unitCents)}\tnet ${formatCents(line.netCents)}\tGST ${formatCents(line.gstCents)}\ttotal ${formatCents(line.totalCents)}\t${line.description}`,
    ),
    ...(invoice.creditNotes.length > 0 ? [`credit notes: ${invoice.creditNotes.join(', ')}`] : []),
  ].join('\n');
}

const runLine = (environment: Environment, result: MonthEndResult) =>
  `${environment} ${result.period}: ${
    result.ran
      ? `${result.invoices} invoices, ${result.fees} fees${result.firstNumber !== undefined ? ` (numbers ${result.firstNumber}–${result.lastNumber})` : ''}`
      : 'closed already'
  }`;

/** Rule errors from the store become usage errors (exit 2, the message names the field). */
async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RuleError) throw new UsageError(error.message);
    throw error;
  }
}

export async function invoicesCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    environment: { type: 'string' },
    organisation: { type: 'string' },
    period: { type: 'string' },
    reason: { type: 'string' },
    amount: { type: 'string' },
    csv: { type: 'string' },
    pdf: { type: 'string' },
    transactions: { type: 'string' },
    json: { type: 'boolean' },
  });
  const json = values.json === true;
  const [action, number] = positionals;
  const period = optional(values, 'period');
  if (period !== undefined && !isPeriod(period))
    throw new UsageError('--period must be a month such as 2026-11');
  if ((action === 'show' || action === 'credit') && number === undefined)
    throw new UsageError(`invoices ${action} needs the invoice number, e.g. INV-000001`);
  if (number !== undefined) await asUsage(async () => parseReference(number));
  return withDatabases(config, async (databases) => {
    const now = async (environment: Environment) => (await readClock(databases.gateway, environment)).now;
    switch (action) {
      case 'list': {
        const rows: (Invoice & { environment: Environment })[] = [];
        for (const environment of environments(values, false)) {
          const identifier = optional(values, 'organisation');
          const organisation = identifier
            ? await findOrganisation(databases.gateway, environment, identifier)
            : undefined;
          if (identifier && !organisation) {
            if (values.environment) throw new UsageError(`no ${environment} organisation "${identifier}"`);
            continue;
          }
          const found = await listInvoices(databases.environments[environment], {
            ...(organisation ? { organisationIds: [organisation.id] } : {}),
            ...(period ? { period } : {}),
          });
          rows.push(...found.map((invoice) => ({ ...invoice, environment })));
        }
        print(rows, json, () =>
          rows.length === 0 ? 'no invoices' : rows.map((row) => summary(row.environment, row)).join('\n'),
        );
        return 0;
      }
      case 'show': {
        const [environment] = environments(values, true) as [Environment];
        const invoice = await findInvoice(databases.environments[environment], number!);
        if (!invoice) throw new UsageError(`no ${number} in ${environment} (rsg invoices list)`);
        const csv = optional(values, 'csv');
        const pdf = optional(values, 'pdf');
        const transactions = optional(values, 'transactions');
        if (transactions && invoice.kind !== 'invoice')
          throw new UsageError(
            `${invoice.reference} is a credit note: it corrects amounts, not transactions`,
          );
        const breakdown = async () =>
          invoiceTransactionsCsv(
            invoice,
            await invoiceTransactions(databases.environments[environment], invoice),
          );
        if (csv === '-') {
          process.stdout.write(invoiceCsv(invoice));
          return 0;
        }
        if (transactions === '-') {
          process.stdout.write(await breakdown());
          return 0;
        }
        if (csv) writeFileSync(csv, invoiceCsv(invoice));
        if (transactions) writeFileSync(transactions, await breakdown());
        if (pdf) writeFileSync(pdf, await invoicePdf(invoice));
        print({ environment, ...invoice }, json, () => details(environment, invoice));
        return 0;
      }
      case 'run': {
        const directory = identityDirectory(databases.gateway);
        const results: { environment: Environment; result: MonthEndResult }[] = [];
        for (const environment of environments(values, false)) {
          const pool = databases.environments[environment];
          const at = await now(environment);
          const done = period
            ? [await asUsage(() => runMonthEnd(pool, { period, now: at, directory }))]
            : await closeDueMonths(pool, at, directory);
          results.push(...done.map((result) => ({ environment, result })));
        }
        print(results, json, () =>
          results.length === 0
            ? 'no month has ended with fees not yet invoiced'
            : results.map(({ environment, result }) => runLine(environment, result)).join('\n'),
        );
        return 0;
      }
      case 'credit': {
        const [environment] = environments(values, true) as [Environment];
        const amount = optional(values, 'amount');
        if (amount !== undefined && !/^\d{1,12}$/.test(amount))
          throw new UsageError('--amount must be a whole number of cents above 0');
        const reason = required(values, 'reason');
        const at = await now(environment);
        const note = await asUsage(() =>
          issueCreditNote(databases.environments[environment], {
            invoice: number!,
            reason,
            ...(amount !== undefined ? { netCents: Number(amount) } : {}),
            now: at,
          }),
        );
        print({ environment, ...note }, json, () => details(environment, note));
        return 0;
      }
      default:
        throw new UsageError(INVOICES_USAGE.replaceAll('\n', ' | '));
    }
  });
}
