import type PDFKit from 'pdfkit';
import { lazyRequire } from '../../../platform/lazy-require.ts';

const pdfkit = lazyRequire<typeof PDFKit>('pdfkit');

/** A part of a sandbox document: a heading, then paragraphs and label–value rows. */
export interface PdfSection {
  heading: string;
  paragraphs?: readonly string[];
  rows?: readonly (readonly [label: string, value: string])[];
}

/** What a sandbox document says (document-content.ts makes it from the generated register). */
export interface PdfContent {
  title: string;
  /** The record it belongs to, e.g. `Harbour KiwiSaver Scheme (SCH10000)`. */
  subject: string;
  recId: string;
  /** The day it was lodged, YYYY-MM-DD: the PDF's creation date too, so the bytes repeat. */
  date: string;
  sections: readonly PdfSection[];
}

const LABEL_WIDTH = 230;

/**
 * A sandbox document as a PDF, made with a real PDF library so viewers open it: its title, the record,
 * its sections. The same content gives the same bytes (no clock is read).
 */
export function documentPdf(content: PdfContent): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new (pdfkit())({
      size: 'A4',
      margin: 56,
      info: {
        Title: content.title,
        Subject: content.subject,
        Author: 'Offers register (sandbox)',
        CreationDate: new Date(`${content.date}T00:00:00Z`),
      },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.font('Helvetica-Bold').fontSize(18).text(content.title);
    doc.moveDown(0.5).font('Helvetica').fontSize(11).text(content.subject);
    doc.text(`Document ${content.recId}, lodged ${content.date}.`);
    for (const section of content.sections) {
      doc.moveDown().font('Helvetica-Bold').fontSize(13).text(section.heading);
      doc.font('Helvetica').fontSize(10.5);
      for (const paragraph of section.paragraphs ?? []) doc.moveDown(0.4).text(paragraph);
      for (const [label, value] of section.rows ?? []) {
        // A row starts on the page it fits on: its label and value side by side.
        if (doc.y > doc.page.height - doc.page.margins.bottom - 40) doc.addPage();
        const y = doc.moveDown(0.3).y;
        doc.text(label, doc.page.margins.left, y, { width: LABEL_WIDTH - 10 });
        const below = doc.y;
        doc.text(value, doc.page.margins.left + LABEL_WIDTH, y);
        doc.y = Math.max(doc.y, below);
        doc.x = doc.page.margins.left;
      }
    }
    doc
      .moveDown(2)
      .fontSize(9)
      .text('Sandbox test data of the offers register: not a real disclosure document.');
    doc.end();
  });
}
