import { onePagePdf } from '../../../../src/platform/documents/one-page-pdf.ts';

/**
 * `multipart/form-data` bodies for the business number register's uploads (NZBN_105, NZBN_905): text
 * parts and, optionally, the file part `file`, with the headers that name the boundary.
 */
export const BOUNDARY = '----nzbn-test-boundary-5XbWc1xq';

export interface FilePart {
  name: string;
  type: string;
  bytes: Buffer;
  /** The part's field name (default `file`). */
  field?: string;
}

export function multipartBody(fields: Record<string, string>, ...files: FilePart[]): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  for (const file of files) {
    parts.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

export const MULTIPART = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

/** A small valid PDF, different for each text. */
export const pdf = (text = 'A letter'): FilePart => ({
  name: 'letter.pdf',
  type: 'application/pdf',
  bytes: onePagePdf([text]),
});

/** A 1×1 PNG's signature and header: enough for the register's content check. */
export const png = (): FilePart => ({
  name: 'scan.png',
  type: 'image/png',
  bytes: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(40, 1)]),
});
