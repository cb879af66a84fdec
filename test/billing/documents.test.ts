import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { invoiceCsv } from '../../src/billing/documents/invoice-csv.ts';
import { invoicePdf } from '../../src/billing/documents/invoice-pdf.ts';
import { allocateGst } from '../../src/billing/domain/invoice-gst.ts';
import { periodEnd, periodStart } from '../../src/billing/domain/invoice-month.ts';
import type { InvoiceWithLines } from '../../src/billing/store/invoices.ts';

const PDFTOTEXT = '/usr/bin/pdftotext';
if (!existsSync(PDFTOTEXT)) {
  console.warn(`skipping the PDF read-back test: ${PDFTOTEXT} is missing (Debian package poppler-utils)`);
}

function sampleInvoice(lineCount: number): InvoiceWithLines {
  const allocated = allocateGst(
    Array.from({ length: lineCount }, (_, index) => ({
      lineNumber: index + 1,
      service: index % 2 === 0 ? 'ppsr' : 'iponz',
      feeCode: index % 2 === 0 ? 'SEARCH' : 'RENEWAL',
      description: index % 2 === 0 ? `Debtor search ${index + 1}` : `Trade mark renewal ${index + 1}`,
      channel: index % 3 === 0 ? 'Web' : 'API',
      quantity: index + 1,
      unitCents: 199 + index,
      netCents: (index + 1) * (199 + index),
    })),
  );
  return {
    id: '1',
    kind: 'invoice',
    number: 42,
    reference: 'INV-000042',
    organisationId: '00000000-0000-4000-8000-000000000001',
    organisationName: 'Kōwhai Holdings, "North" Ltd',
    period: '2026-09',
    periodStart: periodStart('2026-09'),
    periodEnd: periodEnd('2026-09'),
    issuedAt: new Date('2026-09-30T11:00:01Z'),
    currency: 'NZD',
    netCents: allocated.netCents,
    gstCents: allocated.gstCents,
    totalCents: allocated.totalCents,
    creditsReference: null,
    reason: null,
    lines: allocated.lines,
    creditNotes: [],
  };
}

describe('invoice documents', () => {
  it('the CSV has one row per line and a total row that the lines add up to', () => {
    const invoice = sampleInvoice(5);
    const rows = parse(invoiceCsv(invoice), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(6);
    expect(rows[0]).toMatchObject({
      document: 'INV-000042',
      kind: 'tax invoice',
      organisation: 'Kōwhai Holdings, "North" Ltd',
      period: '2026-09',
      issued: '2026-10-01',
      line: '1',
      service: 'ppsr',
      fee_code: 'SEARCH',
      description: 'Debtor search 1',
      channel: 'Web',
      quantity: '1',
      unit_nzd: '1.99',
      net_nzd: '1.99',
    });
    const total = rows.at(-1)!;
    expect(total.line).toBe('TOTAL');
    const cents = (value: string) => Math.round(Number(value) * 100);
    for (const column of ['net_nzd', 'gst_nzd', 'total_nzd']) {
      const sum = rows.slice(0, -1).reduce((acc, row) => acc + cents(row[column]!), 0);
      expect(sum).toBe(cents(total[column]!));
    }
    expect(cents(total.total_nzd!)).toBe(invoice.totalCents);
    expect(cents(total.gst_nzd!)).toBe(invoice.gstCents);
  });

  it.skipIf(!existsSync(PDFTOTEXT))(
    'the PDF opens and carries every line and the total (read back with pdftotext)',
    async () => {
      const invoice = sampleInvoice(60); // more than a page
      const pdf = await invoicePdf(invoice);
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      const dir = mkdtempSync(join(tmpdir(), 'rsg-invoice-'));
      try {
        const file = join(dir, 'invoice.pdf');
        writeFileSync(file, pdf);
        const info = execFileSync('/usr/bin/pdfinfo', [file], { encoding: 'utf8' });
        expect(info).toMatch(/Title:\s+Tax invoice INV-000042/);
        expect(Number(/Pages:\s+(\d+)/.exec(info)![1])).toBeGreaterThan(1);
        const text = execFileSync(PDFTOTEXT, ['-layout', file, '-'], { encoding: 'utf8' });
        expect(text).toContain('Tax invoice');
        expect(text).toContain('INV-000042');
        expect(text).toContain('Kōwhai Holdings, "North" Ltd');
        expect(text).toContain('September 2026');
        for (const line of invoice.lines) {
          const row = text.split('\n').find((candidate) => candidate.includes(line.description));
          expect(row, line.description).toBeDefined();
          expect(row).toContain(
            (line.totalCents / 100).toLocaleString('en-NZ', { minimumFractionDigits: 2 }),
          );
        }
        const total = text.split('\n').find((candidate) => /^\s*Total\s/.test(candidate));
        expect(total).toContain(
          (invoice.totalCents / 100).toLocaleString('en-NZ', { minimumFractionDigits: 2 }),
        );
        expect(total).toContain(
          (invoice.gstCents / 100).toLocaleString('en-NZ', { minimumFractionDigits: 2 }),
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
