import { inflateSync } from 'node:zlib';

/**
 * The text lines of a PDF the sandbox made (pdfkit: Flate-compressed content streams, each line a `TJ`
 * array of hex strings between kerning numbers), so a test can read what a document says. Not a general
 * PDF reader: it fails (no lines) on anything else, which a test then notices.
 */
export function pdfLines(bytes: Buffer): string[] {
  const raw = bytes.toString('latin1');
  const lines: string[] = [];
  for (const match of raw.matchAll(/stream\r?\n/g)) {
    const start = match.index + match[0].length;
    const end = raw.indexOf('endstream', start);
    let content: string;
    try {
      content = inflateSync(bytes.subarray(start, end)).toString('latin1');
    } catch {
      continue; // not a compressed content stream (a font, an image)
    }
    for (const array of content.matchAll(/\[([^\]]*)\]\s*TJ/g)) {
      const hex = [...array[1]!.matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => h[1]).join('');
      lines.push(Buffer.from(hex, 'hex').toString('latin1'));
    }
  }
  return lines;
}
