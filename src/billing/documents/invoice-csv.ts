import { stringify } from 'csv-stringify/sync';
import { formatNzDate } from '../domain/invoice-month.ts';
import type { InvoiceWithLines } from '../store/invoices.ts';

const dollars = (cents: number) => (cents / 100).toFixed(2);

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
