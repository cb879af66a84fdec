/**
 * `multipart/form-data` bodies as a browser or `curl -F` sends them: text parts, then file parts (each
 * with its field name, file name and type), closed by the boundary; `multipartType` is the header that
 * names the boundary. The portal's data-request answers and the business number register's uploads are
 * sent with them.
 */
export const BOUNDARY = '----rsg-test-boundary-7MA4YWxkTrZu0gW';

export interface FilePart {
  name: string;
  type: string;
  bytes: Buffer;
  /** The part's field name (default `file`). */
  field?: string;
}

export function multipartBody(
  fields: Record<string, string>,
  files: readonly FilePart[] = [],
  boundary = BOUNDARY,
): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  for (const file of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}

export const multipartType = (boundary = BOUNDARY): string => `multipart/form-data; boundary=${boundary}`;
