/**
 * Invoices and credit notes in one environment database: their shape and references, reads, credit
 * notes, mailing claims and a subscription's fees of the month. The month end that issues them is
 * `month-end.ts`.
 */
import type pg from 'pg';
import { RuleError } from '../../platform/errors.ts';
import { allocateGst } from '../domain/invoice-gst.ts';
import type { Period } from '../domain/invoice-month.ts';
import { directCreditPaidInPeriod } from './direct-credit.ts';

export type InvoiceKind = 'invoice' | 'credit_note';

export interface InvoiceLine {
  lineNumber: number;
  service: string;
  feeCode: string;
  description: string;
  channel: string;
  quantity: number;
  unitCents: number;
  netCents: number;
  gstCents: number;
  totalCents: number;
}

export interface Invoice {
  id: string;
  kind: InvoiceKind;
  number: number;
  /** `INV-000042` or `CN-000007`. */
  reference: string;
  organisationId: string;
  organisationName: string;
  period: Period;
  periodStart: Date;
  periodEnd: Date;
  issuedAt: Date;
  currency: 'NZD';
  netCents: number;
  gstCents: number;
  totalCents: number;
  /** A credit note: the invoice it corrects. */
  creditsReference: string | null;
  reason: string | null;
}

export interface InvoiceWithLines extends Invoice {
  lines: InvoiceLine[];
  /** Credit notes issued against this invoice. */
  creditNotes: string[];
  /** What the organisation's direct credit account paid of the invoice's fees (0 for a credit note). */
  paidByDirectCreditCents?: number;
}

const PREFIX: Record<InvoiceKind, string> = { invoice: 'INV', credit_note: 'CN' };

export const invoiceReference = (kind: InvoiceKind, number: number): string =>
  `${PREFIX[kind]}-${String(number).padStart(6, '0')}`;

/** `INV-000042`, `INV-42`, `CN-7` → kind and number; anything else is refused naming the field. */
export function parseReference(text: string, field = 'number'): { kind: InvoiceKind; number: number } {
  const match = /^(INV|CN)-?(\d{1,12})$/i.exec(text.trim());
  if (!match || Number(match[2]) === 0) {
    throw new RuleError(
      field,
      'must be an invoice number such as INV-000042 or a credit note number such as CN-000001',
      {
        message: `${field}: "${text.slice(0, 40)}" is not an invoice number such as INV-000042 or a credit note number such as CN-000001`,
      },
    );
  }
  return { kind: match[1]!.toUpperCase() === 'CN' ? 'credit_note' : 'invoice', number: Number(match[2]) };
}

const COLUMNS = `i.id::text AS id, i.kind, i.number, i.organisation_id, i.organisation_name, i.period,
  i.period_start, i.period_end, i.issued_at, i.currency, i.net_cents, i.gst_cents, i.total_cents,
  c.kind AS credits_kind, c.number AS credits_number, i.reason`;

interface InvoiceRow {
  id: string;
  kind: InvoiceKind;
  number: string;
  organisation_id: string;
  organisation_name: string;
  period: string;
  period_start: Date;
  period_end: Date;
  issued_at: Date;
  currency: 'NZD';
  net_cents: string;
  gst_cents: string;
  total_cents: string;
  credits_kind: InvoiceKind | null;
  credits_number: string | null;
  reason: string | null;
}

function toInvoice(row: InvoiceRow): Invoice {
  return {
    id: row.id,
    kind: row.kind,
    number: Number(row.number),
    reference: invoiceReference(row.kind, Number(row.number)),
    organisationId: row.organisation_id,
    organisationName: row.organisation_name,
    period: row.period,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    issuedAt: row.issued_at,
    currency: row.currency,
    netCents: Number(row.net_cents),
    gstCents: Number(row.gst_cents),
    totalCents: Number(row.total_cents),
    creditsReference:
      row.credits_kind && row.credits_number
        ? invoiceReference(row.credits_kind, Number(row.credits_number))
        : null,
    reason: row.reason,
  };
}

/** One fee of an invoice: the transaction it was charged for, and the invoice line it went to. */
export interface InvoiceTransaction {
  lineNumber: number;
  chargedAt: Date;
  service: string;
  operation: string;
  feeCode: string;
  description: string;
  channel: string;
  requestId: string | null;
  billingReference: string | null;
  objectKind: string | null;
  objectId: string | null;
  netCents: number;
}

/**
 * The fees an invoice is made of, oldest first, each with the number of the line it went to (the month end
 * makes one line per service, fee code, description, channel and amount: the same key finds it here). A
 * credit note corrects amounts, not transactions: it has none.
 */
export async function invoiceTransactions(
  pool: pg.Pool,
  invoice: InvoiceWithLines,
): Promise<InvoiceTransaction[]> {
  if (invoice.kind !== 'invoice') return [];
  const key = (parts: readonly (string | number)[]) => JSON.stringify(parts);
  const lineOf = new Map(
    invoice.lines.map((line) => [
      key([line.service, line.feeCode, line.description, line.channel, line.unitCents]),
      line.lineNumber,
    ]),
  );
  const rows = await pool.query<Record<string, string | Date | null>>(
    `SELECT charged_at, service, operation, fee_code, description, channel, request_id, billing_reference,
            object_kind, object_id, amount_cents
       FROM fee_records WHERE organisation_id = $1 AND billing_period = $2
      ORDER BY charged_at, id`,
    [invoice.organisationId, invoice.period],
  );
  return rows.rows.map((row) => {
    const netCents = Number(row.amount_cents);
    const lineNumber = lineOf.get(
      key([
        row.service as string,
        row.fee_code as string,
        row.description as string,
        row.channel as string,
        netCents,
      ]),
    );
    // Invoices and fee records are both immutable once the month is invoiced: a fee without its line
    // is a broken ledger, not a caller's mistake.
    if (lineNumber === undefined)
      throw new Error(`${invoice.reference}: a fee of ${row.charged_at} has no line`);
    return {
      lineNumber,
      chargedAt: row.charged_at as Date,
      service: row.service as string,
      operation: row.operation as string,
      feeCode: row.fee_code as string,
      description: row.description as string,
      channel: row.channel as string,
      requestId: row.request_id as string | null,
      billingReference: row.billing_reference as string | null,
      objectKind: row.object_kind as string | null,
      objectId: row.object_id as string | null,
      netCents,
    };
  });
}

/** Invoices and credit notes, newest first; of some organisations only when `organisationIds` is given. */
export async function listInvoices(
  pool: pg.Pool,
  options: { organisationIds?: readonly string[]; period?: Period; limit?: number } = {},
): Promise<Invoice[]> {
  const result = await pool.query<InvoiceRow>(
    `SELECT ${COLUMNS} FROM invoices i LEFT JOIN invoices c ON c.id = i.credits_invoice_id
      WHERE ($1::uuid[] IS NULL OR i.organisation_id = ANY($1::uuid[]))
        AND ($2::text IS NULL OR i.period = $2)
      ORDER BY i.issued_at DESC, i.kind, i.number DESC LIMIT $3`,
    [options.organisationIds ?? null, options.period ?? null, options.limit ?? 500],
  );
  return result.rows.map(toInvoice);
}

/** One invoice or credit note with its lines, by reference (`INV-000042`). */
export async function findInvoice(
  pool: pg.Pool | pg.PoolClient,
  reference: string,
): Promise<InvoiceWithLines | undefined> {
  const { kind, number } = parseReference(reference);
  const found = await pool.query<InvoiceRow>(
    `SELECT ${COLUMNS} FROM invoices i LEFT JOIN invoices c ON c.id = i.credits_invoice_id
      WHERE i.kind = $1 AND i.number = $2`,
    [kind, number],
  );
  const row = found.rows[0];
  if (!row) return undefined;
  const invoice = toInvoice(row);
  // One after another: `pool` may be a transaction's client, which runs one query at a time.
  const lines = await pool.query<Record<string, string>>(
    `SELECT line_number, service, fee_code, description, channel, quantity, unit_cents, net_cents, gst_cents,
              total_cents
         FROM invoice_lines WHERE invoice_id = $1 ORDER BY line_number`,
    [row.id],
  );
  const credits = await pool.query<{ number: string }>(
    `SELECT number FROM invoices WHERE credits_invoice_id = $1 ORDER BY number`,
    [row.id],
  );
  const paidByDirectCreditCents =
    invoice.kind === 'invoice'
      ? await directCreditPaidInPeriod(pool, invoice.organisationId, invoice.period)
      : 0;
  return {
    ...invoice,
    paidByDirectCreditCents,
    lines: lines.rows.map((line) => ({
      lineNumber: Number(line.line_number),
      service: line.service!,
      feeCode: line.fee_code!,
      description: line.description!,
      channel: line.channel!,
      quantity: Number(line.quantity),
      unitCents: Number(line.unit_cents),
      netCents: Number(line.net_cents),
      gstCents: Number(line.gst_cents),
      totalCents: Number(line.total_cents),
    })),
    creditNotes: credits.rows.map((credit) => invoiceReference('credit_note', Number(credit.number))),
  };
}

/**
 * A credit note against an invoice: the whole invoice (every line reversed) or, with `netCents`, that
 * net amount as one line (GST by the same rule). Never more than what is left to credit. Numbered in
 * the credit notes' own gapless sequence (`CN-000001`), in the same transaction.
 */
export async function issueCreditNote(
  pool: pg.Pool,
  input: { invoice: string; reason: string; netCents?: number; now: Date },
): Promise<InvoiceWithLines> {
  const reason = input.reason.trim();
  if (reason === '' || reason.length > 500) throw new RuleError('reason', 'must be 1 to 500 characters');
  const target = parseReference(input.invoice, 'invoice');
  if (target.kind !== 'invoice')
    throw new RuleError('invoice', 'must be an invoice (INV-…), not a credit note');
  if (input.netCents !== undefined && (!Number.isSafeInteger(input.netCents) || input.netCents <= 0)) {
    throw new RuleError('amount', 'must be a whole number of cents above 0');
  }
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    // The counter row first: credit notes are issued one at a time, so "what is left" cannot race.
    const counter = await client.query<{ last_number: string }>(
      `UPDATE invoice_counters SET last_number = last_number + 1 WHERE kind = 'credit_note' RETURNING last_number`,
    );
    const number = Number(counter.rows[0]!.last_number);
    const invoice = await findInvoice(client, input.invoice);
    if (!invoice) throw new RuleError('invoice', `no invoice ${invoiceReference('invoice', target.number)}`);
    const credited = await client.query<{ net: string }>(
      `SELECT coalesce(sum(net_cents), 0) AS net FROM invoices WHERE credits_invoice_id = $1`,
      [invoice.id],
    );
    const left = invoice.netCents - Number(credited.rows[0]!.net);
    const whole = input.netCents === undefined;
    const lineInputs = whole
      ? invoice.lines.map((line) => ({ ...line }))
      : [
          {
            lineNumber: 1,
            service: 'billing',
            feeCode: 'CREDIT',
            description: reason,
            channel: '-',
            quantity: 1,
            unitCents: input.netCents!,
            netCents: input.netCents!,
          },
        ];
    const allocated = allocateGst(lineInputs);
    if (allocated.netCents > left || (whole && left !== invoice.netCents)) {
      throw new RuleError(
        whole ? 'invoice' : 'amount',
        `${invoice.reference} has ${left} cents (net) left to credit; this credit note would be ${allocated.netCents}`,
      );
    }
    const inserted = await client.query<{ id: string }>(
      `INSERT INTO invoices (kind, number, organisation_id, organisation_name, period, period_start, period_end,
                             issued_at, net_cents, gst_cents, total_cents, credits_invoice_id, reason)
       VALUES ('credit_note', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
      [
        number,
        invoice.organisationId,
        invoice.organisationName,
        invoice.period,
        invoice.periodStart,
        invoice.periodEnd,
        input.now,
        allocated.netCents,
        allocated.gstCents,
        allocated.totalCents,
        invoice.id,
        reason,
      ],
    );
    await client.query(
      `INSERT INTO invoice_lines (invoice_id, line_number, service, fee_code, description, channel, quantity,
                                  unit_cents, net_cents, gst_cents, total_cents)
       SELECT $1, t.n, t.service, t.fee_code, t.description, t.channel, t.quantity, t.unit, t.net, t.gst, t.total
         FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::bigint[],
                     $9::bigint[], $10::bigint[], $11::bigint[])
              AS t(n, service, fee_code, description, channel, quantity, unit, net, gst, total)`,
      [
        inserted.rows[0]!.id,
        allocated.lines.map((_, index) => index + 1),
        allocated.lines.map((line) => line.service),
        allocated.lines.map((line) => line.feeCode),
        allocated.lines.map((line) => line.description),
        allocated.lines.map((line) => line.channel),
        allocated.lines.map((line) => line.quantity),
        allocated.lines.map((line) => line.unitCents),
        allocated.lines.map((line) => line.netCents),
        allocated.lines.map((line) => line.gstCents),
        allocated.lines.map((line) => line.totalCents),
      ],
    );
    const note = await findInvoice(client, invoiceReference('credit_note', number));
    await client.query('COMMIT');
    return note!;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

/** Invoices and credit notes not yet handed to the mail outbox, oldest first. */
export async function unmailedInvoices(pool: pg.Pool, limit = 100): Promise<Invoice[]> {
  const result = await pool.query<InvoiceRow>(
    `SELECT ${COLUMNS} FROM invoices i LEFT JOIN invoices c ON c.id = i.credits_invoice_id
      WHERE NOT EXISTS (SELECT 1 FROM invoice_mailings m WHERE m.invoice_id = i.id)
      ORDER BY i.id LIMIT $1`,
    [limit],
  );
  return result.rows.map(toInvoice);
}

/** Claims an invoice's mailing (false when another process claimed it first). */
export async function claimMailing(pool: pg.Pool, invoiceId: string, to: string): Promise<boolean> {
  const result = await pool.query(
    'INSERT INTO invoice_mailings (invoice_id, sent_to) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [invoiceId, to],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function releaseMailing(pool: pg.Pool, invoiceId: string): Promise<void> {
  await pool.query('DELETE FROM invoice_mailings WHERE invoice_id = $1', [invoiceId]);
}

/** The organisations' own billing emails (`billing_accounts`). */
export async function billingEmails(pool: pg.Pool, ids: readonly string[]): Promise<Map<string, string>> {
  const result = await pool.query<{ organisation_id: string; billing_email: string }>(
    `SELECT organisation_id, billing_email FROM billing_accounts
      WHERE organisation_id = ANY($1::uuid[]) AND billing_email IS NOT NULL AND billing_email <> ''`,
    [ids],
  );
  return new Map(result.rows.map((row) => [row.organisation_id, row.billing_email]));
}

export interface FeeLine {
  chargedAt: Date;
  service: string;
  operation: string;
  feeCode: string;
  description: string;
  channel: string;
  amountCents: number;
  gstCents: number;
  invoiceReference: string | null;
}

/** A subscription's fees in [from, to), newest first (the portal's usage page: the month so far). */
export async function subscriptionFees(
  pool: pg.Pool,
  subscriptionId: string,
  from: Date,
  to: Date,
  limit = 200,
): Promise<{ fees: FeeLine[]; count: number; netCents: number; gstCents: number }> {
  const [rows, sums] = await Promise.all([
    pool.query<Record<string, unknown>>(
      `SELECT f.charged_at, f.service, f.operation, f.fee_code, f.description, f.channel, f.amount_cents,
              f.gst_cents, i.number AS invoice_number
         FROM fee_records f LEFT JOIN invoices i
           ON i.kind = 'invoice' AND i.organisation_id = f.organisation_id AND i.period = f.billing_period
        WHERE f.subscription_id = $1 AND f.charged_at >= $2 AND f.charged_at < $3
        ORDER BY f.charged_at DESC, f.id DESC LIMIT $4`,
      [subscriptionId, from, to, limit],
    ),
    pool.query<{ count: string; net: string; gst: string }>(
      `SELECT count(*) AS count, coalesce(sum(amount_cents), 0) AS net, coalesce(sum(gst_cents), 0) AS gst
         FROM fee_records WHERE subscription_id = $1 AND charged_at >= $2 AND charged_at < $3`,
      [subscriptionId, from, to],
    ),
  ]);
  return {
    fees: rows.rows.map((row) => ({
      chargedAt: row.charged_at as Date,
      service: String(row.service),
      operation: String(row.operation),
      feeCode: String(row.fee_code),
      description: String(row.description),
      channel: String(row.channel),
      amountCents: Number(row.amount_cents),
      gstCents: Number(row.gst_cents),
      invoiceReference: row.invoice_number ? invoiceReference('invoice', Number(row.invoice_number)) : null,
    })),
    count: Number(sums.rows[0]!.count),
    netCents: Number(sums.rows[0]!.net),
    gstCents: Number(sums.rows[0]!.gst),
  };
}
