import PDFDocument from 'pdfkit';

/** A small one-page PDF for a sandbox document (made with a real PDF library, so viewers open it). */
export function samplePdf(lines: {
  title: string;
  subject: string;
  recId: string;
  date: string;
}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'A4',
      info: { Title: lines.title, Subject: lines.subject, CreationDate: new Date(`${lines.date}T00:00:00Z`) },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.fontSize(18).text(lines.title);
    doc.moveDown().fontSize(11).text(lines.subject);
    doc.moveDown().text(`Document ${lines.recId}, lodged ${lines.date}.`);
    doc.moveDown().text('Sandbox test data of the offers register: not a real disclosure document.');
    doc.end();
  });
}
