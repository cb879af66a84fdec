/**
 * A one-page PDF of a few lines of text (Helvetica 12 pt, from the top left, 18 pt apart), written by
 * hand so that the same lines give the same bytes on every machine and run: a sandbox's stand-in for a
 * document it never stored (the IP office's seeded documents, the business number register's generated
 * filings). A valid PDF 1.4 with its cross-reference table; characters outside printable ASCII are `?`.
 */
export function onePagePdf(lines: readonly string[]): Buffer {
  const text = (value: string) => value.replace(/[^\x20-\x7e]/g, '?').replace(/[()\\]/g, '\\$&');
  const shown = lines.map((line, i) => `${i === 0 ? '' : ' 0 -18 Td'} (${text(line)}) Tj`).join('');
  const stream = `BT /F1 12 Tf 72 720 Td${shown} ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
