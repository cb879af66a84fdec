/**
 * The bytes of a seeded document (a row of `iponz_case_documents` the generator wrote, whose bytes were
 * never stored): a small file made on demand from its identifier and name, the same every time (ours;
 * nothing is stored for them, so a full-scale seed writes no files). Each is a valid file of its format:
 * a one-page PDF naming the document (platform/documents/one-page-pdf.ts), an 8×8 grey baseline JPEG
 * carrying the identifier in a comment, a 1×1 GIF whose colour comes from the identifier; a trade mark's image (the document `MarkImageName`
 * names) a GIF picture of the mark's title (documents/mark-picture.ts).
 */
import { createHash } from 'node:crypto';
import { onePagePdf } from '../../../platform/documents/one-page-pdf.ts';
import { markPicture } from './mark-picture.ts';

export type ObjectFormat = 'pdf' | 'jpeg' | 'gif';

export function generatedDocument(
  id: string,
  name: string,
  format: ObjectFormat,
  markTitle?: string | null,
): Buffer {
  if (format === 'gif' && markTitle) return markPicture(markTitle);
  if (format === 'gif') return gif(id);
  if (format === 'jpeg') return jpeg(id);
  return onePagePdf([`Sandbox document ${id}`, name]);
}

function gif(id: string): Buffer {
  const [r, g, b] = createHash('sha256').update(id).digest();
  // GIF89a, 1×1, a two-colour global table, one image whose single pixel is colour 0.
  return Buffer.from([
    0x47,
    0x49,
    0x46,
    0x38,
    0x39,
    0x61,
    0x01,
    0x00,
    0x01,
    0x00,
    0x80,
    0x00,
    0x00,
    r!,
    g!,
    b!,
    0x00,
    0x00,
    0x00,
    0x2c,
    0x00,
    0x00,
    0x00,
    0x00,
    0x01,
    0x00,
    0x01,
    0x00,
    0x00,
    0x02,
    0x02,
    0x44,
    0x01,
    0x00,
    0x3b,
  ]);
}

function jpeg(id: string): Buffer {
  const segment = (marker: number, payload: number[]) => [
    0xff,
    marker,
    (payload.length + 2) >> 8,
    (payload.length + 2) & 0xff,
    ...payload,
  ];
  const comment = [...Buffer.from(`Sandbox document ${id}`, 'latin1')];
  return Buffer.from([
    0xff,
    0xd8, // SOI
    ...segment(0xfe, comment), // COM
    ...segment(0xdb, [0x00, ...new Array(64).fill(1)]), // DQT: table 0, all ones
    ...segment(0xc0, [0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x11, 0x00]), // SOF0: 8×8, one component
    // DHT DC table 0: one code of length 1 for category 0; AC table 0: one code of length 1 for EOB.
    ...segment(0xc4, [0x00, 0x01, ...new Array(15).fill(0), 0x00]),
    ...segment(0xc4, [0x10, 0x01, ...new Array(15).fill(0), 0x00]),
    ...segment(0xda, [0x01, 0x01, 0x00, 0x00, 0x3f, 0x00]), // SOS
    0x3f, // DC difference 0, then EOB; padded with ones
    0xff,
    0xd9, // EOI
  ]);
}
