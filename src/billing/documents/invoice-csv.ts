import { stringify } from 'csv-stringify/sync';
import { formatNzDateTime } from '../../platform/nz-time.ts';
import { formatNzDate } from '../domain/invoice-month.ts';
import type { InvoiceTransaction, InvoiceWithLines } from '../store/invoices.ts';

const dollars = (cents: number) => (cents / 100).toFixed(2);

/**
 * A value the caller chose (a request id, a billing reference), made inert for spreadsheets: one that
 * starts like a formula gets a leading apostrophe, so opening the file never runs it.
 */
const callerText = (text: string | null) => (text && /^[=+\-@\t\r]/.test(text) ? `'${text}` : (text ?? ''));

/**
 * An invoice (or credit note) as CSV: one row per line, then one `TOTAL` row (and, when a direct credit
 * account paid some of it, a `DIRECT CREDIT` row, negative, and the `BALANCE DUE`); amounts in NZD with two
 * decimals (a credit note's are positive: the document says it is a credit note).
 */
export function invoiceCsv(invoice: InvoiceWithLines): string {
  const head = [
    'document',
    'kind',
    'organisation',
    'period',
    'issued',
    'line',
    'service',
    'fee_code',
    'description',
    'channel',
    'quantity',
    'unit_nzd',
    'net_nzd',
    'gst_nzd',
    'total_nzd',
  ];
  const common = [
    invoice.reference,
    invoice.kind === 'invoice' ? 'tax invoice' : 'credit note',
    invoice.organisationName,
    invoice.period,
    formatNzDate(invoice.issuedAt),
  ];
  const rows = invoice.lines.map((line) => [
    ...common,
    line.lineNumber,
    line.service,
    line.feeCode,
    line.description,
    line.channel,
    line.quantity,
    dollars(line.unitCents),
    dollars(line.netCents),
    dollars(line.gstCents),
    dollars(line.totalCents),
  ]);
  const total = [
    ...common,
    'TOTAL',
    '',
    '',
    '',
    '',
    invoice.lines.reduce((sum, line) => sum + line.quantity, 0),
    '',
    dollars(invoice.netCents),
    dollars(invoice.gstCents),
    dollars(invoice.totalCents),
  ];
  // Paid from the organisation's direct credit account: what it paid, then what is left to pay.
  const credit = invoice.paidByDirectCreditCents
    ? [
        [
          ...common,
          'DIRECT CREDIT',
          '',
          '',
          'Paid from the direct credit account',
          '',
          '',
          '',
          '',
          '',
          dollars(-(invoice.paidByDirectCreditCents ?? 0)),
        ],
        [
          ...common,
          'BALANCE DUE',
          '',
          '',
          '',
          '',
          '',
          '',
          '',
          '',
          dollars(invoice.totalCents - (invoice.paidByDirectCreditCents ?? 0)),
        ],
      ]
    : [];
  return stringify([head, ...rows, total, ...credit]);
}

/**
 * An invoice's lines broken down by transaction, for reconciliation: one row per fee, oldest first, with
 * the line it went to, when it was charged (New Zealand time), the operation, the caller's request id and
 * billing reference and the object it was for; then one `TOTAL` row. The net amounts of a line's rows add
 * up to the line's net amount (GST is worked out per line, so it is on the invoice, not here).
 */
export function invoiceTransactionsCsv(
  invoice: InvoiceWithLines,
  transactions: readonly InvoiceTransaction[],
): string {
  const head = [
    'document',
    'line',
    'charged',
    'service',
    'operation',
    'fee_code',
    'description',
    'channel',
    'request_id',
    'billing_reference',
    'object',
    'net_nzd',
  ];
  const rows = transactions.map((fee) => [
    invoice.reference,
    fee.lineNumber,
    formatNzDateTime(fee.chargedAt.getTime()),
    fee.service,
    fee.operation,
    fee.feeCode,
    fee.description,
    fee.channel,
    callerText(fee.requestId),
    callerText(fee.billingReference),
    fee.objectKind && fee.objectId ? `${fee.objectKind}:${fee.objectId}` : '',
    dollars(fee.netCents),
  ]);
  const net = transactions.reduce((sum, fee) => sum + fee.netCents, 0);
  const total = [invoice.reference, 'TOTAL', '', '', '', '', '', '', '', '', '', dollars(net)];
  return stringify([head, ...rows, total]);
}
