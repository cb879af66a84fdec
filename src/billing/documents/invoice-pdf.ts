import { createRequire } from 'node:module';
import path from 'node:path';
import type PDFKit from 'pdfkit';
import { lazyRequire } from '../../platform/lazy-require.ts';

const pdfkit = lazyRequire<typeof PDFKit>('pdfkit');

import { formatCents } from '../domain/invoice-gst.ts';
import { describePeriod, formatNzDate } from '../domain/invoice-month.ts';
import type { InvoiceWithLines } from '../store/invoices.ts';

/** Who issues the documents (printed at the top). */
export const ISSUER = 'Register Services Gateway';

/**
 * DejaVu Sans Condensed from the `dejavu-fonts-ttf` package, embedded (subset) in each PDF: the PDF
 * standard fonts only know Windows-1252, which has no macrons (Kōwhai, Māori names), so they would print
 * garbage; DejaVu covers every Latin, Greek and Cyrillic letter.
 */
const FONT_DIR = path.join(
  path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')),
  'ttf',
);
const REGULAR = path.join(FONT_DIR, 'DejaVuSansCondensed.ttf');
const BOLD = path.join(FONT_DIR, 'DejaVuSansCondensed-Bold.ttf');

const A4_WIDTH = 595.28;
const MARGIN = 50;
const COLUMNS = [
  { key: 'line', title: '#', width: 22, align: 'left' },
  { key: 'description', title: 'Description', width: 205, align: 'left' },
  { key: 'channel', title: 'Channel', width: 45, align: 'left' },
  { key: 'quantity', title: 'Qty', width: 35, align: 'right' },
  { key: 'net', title: 'Net NZD', width: 65, align: 'right' },
  { key: 'gst', title: 'GST NZD', width: 55, align: 'right' },
  { key: 'total', title: 'Total NZD', width: 68, align: 'right' },
] as const;

/**
 * An invoice or credit note as a PDF, laid out by pdfkit (A4, DejaVu Sans Condensed embedded). Resolves
 * with the whole file.
 */
export function invoicePdf(invoice: InvoiceWithLines): Promise<Buffer> {
  const document = new (pdfkit())({
    size: 'A4',
    margin: MARGIN,
    info: {
      Title: `${invoice.kind === 'invoice' ? 'Tax invoice' : 'Credit note'} ${invoice.reference}`,
      Author: ISSUER,
      Subject: `${invoice.organisationName}, ${invoice.period}`,
    },
  });
  document.registerFont('Body', REGULAR);
  document.registerFont('Bold', BOLD);
  document.font('Body');
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    document.on('data', (chunk: Buffer) => chunks.push(chunk));
    document.on('end', () => resolve(Buffer.concat(chunks)));
    document.on('error', reject);
  });
  const { label } = describePeriod(invoice.period);
  document
    .font('Bold')
    .fontSize(18)
    .text(invoice.kind === 'invoice' ? 'Tax invoice' : 'Credit note');
  document.font('Body').fontSize(10).fillColor('#56606b').text(ISSUER).moveDown(1);
  document.fillColor('#1b1f24');
  const facts: [string, string][] = [
    ['Number', invoice.reference],
    ['Organisation', invoice.organisationName],
    ['Period', `${label} (New Zealand time)`],
    ['Issued', formatNzDate(invoice.issuedAt)],
    ...(invoice.creditsReference
      ? ([['Credits invoice', invoice.creditsReference]] as [string, string][])
      : []),
    ...(invoice.reason ? ([['Reason', invoice.reason]] as [string, string][]) : []),
  ];
  for (const [name, value] of facts) {
    const y = document.y;
    document.font('Bold').text(name, MARGIN, y, { width: 100 });
    document.font('Body').text(value, MARGIN + 100, y, { width: A4_WIDTH - 2 * MARGIN - 100 });
  }
  document.moveDown(1);
  const row = (cells: Record<string, string>, bold = false) => {
    if (document.y > 760) document.addPage();
    const y = document.y;
    let x = MARGIN;
    let bottom = y;
    document.font(bold ? 'Bold' : 'Body').fontSize(9);
    for (const column of COLUMNS) {
      document.text(cells[column.key] ?? '', x, y, { width: column.width - 4, align: column.align });
      bottom = Math.max(bottom, document.y);
      x += column.width;
    }
    document.y = bottom + 3;
    document.x = MARGIN;
  };
  row(Object.fromEntries(COLUMNS.map((column) => [column.key, column.title])), true);
  for (const line of invoice.lines) {
    row({
      line: String(line.lineNumber),
      description: `${line.description} (${line.service} ${line.feeCode}, ${formatCents(line.unitCents)} each)`,
      channel: line.channel,
      quantity: String(line.quantity),
      net: formatCents(line.netCents),
      gst: formatCents(line.gstCents),
      total: formatCents(line.totalCents),
    });
  }
  document.moveDown(0.5);
  row(
    {
      description: 'Total',
      quantity: String(invoice.lines.reduce((sum, line) => sum + line.quantity, 0)),
      net: formatCents(invoice.netCents),
      gst: formatCents(invoice.gstCents),
      total: formatCents(invoice.totalCents),
    },
    true,
  );
  if (invoice.paidByDirectCreditCents) {
    row({
      description: 'Paid from the direct credit account',
      total: `-${formatCents(invoice.paidByDirectCreditCents)}`,
    });
    row(
      {
        description: 'Balance due',
        total: formatCents(invoice.totalCents - (invoice.paidByDirectCreditCents ?? 0)),
      },
      true,
    );
  }
  document
    .moveDown(1)
    .font('Body')
    .fontSize(8)
    .fillColor('#56606b')
    .text(
      'GST at 15% is computed once on the net total (rounded half up to the cent) and shared among the lines by the largest-remainder method, so the lines add up to the total.',
      MARGIN,
      document.y,
      { width: A4_WIDTH - 2 * MARGIN },
    );
  document.end();
  return done;
}
