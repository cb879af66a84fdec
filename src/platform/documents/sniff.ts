/**
 * What a file is, from its first bytes (its "magic number"), not from the name or type its sender gave:
 * a register that accepts only some kinds of document checks the content itself, so a script renamed
 * `letter.pdf` is refused. Knows the formats documents come in, by the signatures of the WHATWG MIME
 * Sniffing standard (each at the very start of the file): PDF, PNG, JPEG, GIF, TIFF (both byte orders),
 * WebP, and ZIP (Office documents are ZIP files); anything else is undefined.
 */

/** How many leading bytes `sniffMediaType` needs: the longest signature's. */
export const SNIFF_BYTES = 12;

const startsWith = (head: Uint8Array, bytes: readonly number[], at = 0) =>
  head.length >= at + bytes.length && bytes.every((byte, i) => head[at + i] === byte);

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const SIGNATURES: readonly (readonly [string, (head: Uint8Array) => boolean])[] = [
  ['image/png', (head) => startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  ['image/jpeg', (head) => startsWith(head, [0xff, 0xd8, 0xff])],
  ['image/gif', (head) => startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))],
  [
    'image/tiff',
    (head) => startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a]),
  ],
  ['image/webp', (head) => startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)],
  ['application/zip', (head) => startsWith(head, [0x50, 0x4b, 0x03, 0x04])],
  ['application/pdf', (head) => startsWith(head, ascii('%PDF-'))],
];

/** The media type the first bytes of a file show (give at least SNIFF_BYTES of them), or undefined. */
export function sniffMediaType(head: Uint8Array): string | undefined {
  return SIGNATURES.find(([, matches]) => matches(head))?.[0];
}
