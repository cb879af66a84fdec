/**
 * Base64, a piece at a time. `Base64Decoder` takes text as it arrives (whitespace allowed anywhere, as
 * in xs:base64Binary) and gives the bytes of every complete quantum at once, so nothing but up to three
 * characters waits between pieces; `base64Chunks` encodes a byte stream in pieces that are multiples of
 * three bytes, so their base64 texts concatenate to the base64 of the whole.
 */
const ALPHABET = /^[A-Za-z0-9+/=]*$/;
const EMPTY = Buffer.alloc(0);
const WHITESPACE = /[\s]+/g;

export class Base64Decoder {
  private rest = '';
  private padded = false;

  /** The bytes of the complete quanta so far; undefined when the text is not base64. */
  push(text: string): Buffer | undefined {
    const clean = text.replace(WHITESPACE, '');
    if (!clean) return EMPTY;
    if (this.padded || !ALPHABET.test(clean)) return undefined;
    const joined = this.rest + clean;
    const pad = joined.indexOf('=');
    // Padding ends the text: at most two '=', nothing after them.
    if (pad >= 0 && !/^={1,2}$/.test(joined.slice(pad))) return undefined;
    const whole = joined.length - (joined.length % 4);
    this.rest = joined.slice(whole);
    if (pad >= 0 && !this.rest) this.padded = true;
    return whole ? Buffer.from(joined.slice(0, whole), 'base64') : EMPTY;
  }

  /** The end of the text: undefined when a quantum is left incomplete. */
  end(): Buffer | undefined {
    return this.rest ? undefined : EMPTY;
  }
}

const ENCODE = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');

/**
 * Base64 of `bytes` written into `out` from its start (it must hold `ceil(n / 3) * 4` bytes); answers
 * the length written. No string is made: a download reuses the same buffers for every piece.
 */
export function base64Into(bytes: Uint8Array, out: Buffer): number {
  const whole = bytes.length - (bytes.length % 3);
  let o = 0;
  for (let i = 0; i < whole; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = ENCODE[n >>> 18]!;
    out[o++] = ENCODE[(n >>> 12) & 63]!;
    out[o++] = ENCODE[(n >>> 6) & 63]!;
    out[o++] = ENCODE[n & 63]!;
  }
  if (whole < bytes.length)
    o += out.write(Buffer.from(bytes.subarray(whole)).toString('base64'), o, 'latin1');
  return o;
}

/** Base64 of `bytes` in a new Buffer. */
export function base64Buffer(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(Math.ceil(bytes.length / 3) * 4);
  return out.subarray(0, base64Into(bytes, out));
}

/** Bytes to base64 in pieces (Buffers of ASCII); each piece but the last a multiple of 3 bytes (no padding inside). */
export async function* base64Pieces(source: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<Buffer> {
  let carry: Uint8Array = new Uint8Array(0);
  for await (const piece of source) {
    const bytes = carry.length ? Buffer.concat([carry, piece]) : piece;
    const whole = bytes.length - (bytes.length % 3);
    carry = bytes.subarray(whole);
    if (whole) yield base64Buffer(bytes.subarray(0, whole));
  }
  if (carry.length) yield base64Buffer(carry);
}

/** Bytes to base64 text in pieces; each piece but the last a multiple of 3 bytes (no padding inside). */
export async function* base64Chunks(source: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<string> {
  let carry: Buffer = Buffer.alloc(0);
  for await (const piece of source) {
    const bytes = carry.length ? Buffer.concat([carry, piece]) : Buffer.from(piece);
    const whole = bytes.length - (bytes.length % 3);
    carry = bytes.subarray(whole);
    if (whole) yield bytes.subarray(0, whole).toString('base64');
  }
  if (carry.length) yield carry.toString('base64');
}
