import { onePagePdf } from '../../../../src/platform/documents/one-page-pdf.ts';
import { multipartBody as body, type FilePart, multipartType } from '../../../support/multipart.ts';

/**
 * `multipart/form-data` bodies for the business number register's uploads (NZBN_105, NZBN_905): text
 * parts and, optionally, the file part `file` (test/support/multipart.ts), with the header that names
 * the boundary, and files the register takes.
 */
export type { FilePart };

export const multipartBody = (fields: Record<string, string>, ...files: FilePart[]): Buffer =>
  body(fields, files);

export const MULTIPART = { 'content-type': multipartType() };

/** A small valid PDF, different for each text. */
export const pdf = (text = 'A letter'): FilePart => ({
  name: 'letter.pdf',
  type: 'application/pdf',
  bytes: onePagePdf([text]),
});

/** A PNG's signature and a few bytes: enough for the register's content check. */
export const png = (): FilePart => ({
  name: 'scan.png',
  type: 'image/png',
  bytes: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(40, 1)]),
});
