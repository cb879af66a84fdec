/**
 * SipHash-2-4 (Aumasson & Bernstein, 2012): a keyed pseudo-random function with a 128-bit key and a
 * 64-bit output, built for exactly this use — short inputs, a secret key, outputs an attacker cannot
 * predict. Written on 32-bit halves because JavaScript has no fast 64-bit integers.
 *
 * Why not HMAC-SHA256 (`keyedUniform` of the platform)? A national SAU2019 query with aggregates
 * publishes some 60,000 rows; at about 4 µs an HMAC that is a quarter of a second of keyed draws, while
 * this function takes a fraction of a microsecond. The key itself is derived with the platform's HMAC.
 */
export type SipKey = readonly [number, number, number, number];

const encoder = new TextEncoder();
let scratch = new Uint8Array(256);

/** The 64-bit SipHash-2-4 of `message` (UTF-8) under `key` (four 32-bit words, k0 low/high, k1 low/high). */
export function sipHash24(key: SipKey, message: string | Uint8Array): { hi: number; lo: number } {
  sipHash24Into(key, message, output);
  return { hi: output[0] as number, lo: output[1] as number };
}

const output = new Uint32Array(2);

/** sipHash24 writing the high and low words into `out`, without allocating. */
export function sipHash24Into(
  key: SipKey,
  message: string | Uint8Array,
  out: Uint32Array,
  byteLength?: number,
  resume?: SipPrefix,
): void {
  const bytes = typeof message === 'string' ? utf8(message) : message;
  const length = typeof message === 'string' ? utf8Length : (byteLength ?? message.length);
  const [k0l, k0h, k1l, k1h] = key;
  // v0..v3 as (high, low) pairs: from the key, or where a prefix's whole blocks left them.
  const absorbing = resume?.absorb === true;
  const state = resume !== undefined && !absorbing ? resume.state : undefined;
  let v0h = state ? (state[0] as number) : (k0h ^ 0x736f6d65) >>> 0;
  let v0l = state ? (state[1] as number) : (k0l ^ 0x70736575) >>> 0;
  let v1h = state ? (state[2] as number) : (k1h ^ 0x646f7261) >>> 0;
  let v1l = state ? (state[3] as number) : (k1l ^ 0x6e646f6d) >>> 0;
  let v2h = state ? (state[4] as number) : (k0h ^ 0x6c796765) >>> 0;
  let v2l = state ? (state[5] as number) : (k0l ^ 0x6e657261) >>> 0;
  let v3h = state ? (state[6] as number) : (k1h ^ 0x74656462) >>> 0;
  let v3l = state ? (state[7] as number) : (k1l ^ 0x79746573) >>> 0;

  // The rounds are written out twice rather than called: a closure over these variables would keep
  // them in a heap context instead of registers, several times slower.
  let lo = 0;
  let th = 0;
  let tl = 0;
  const whole = length - (length % 8);
  // Taking a prefix's state (resume.absorb): from the key, its whole blocks only, no last block, no finalization.
  const end = absorbing ? whole - 8 : whole;
  for (let i = state ? (resume as SipPrefix).length : 0; i <= end; i += 8) {
    let ml: number;
    let mh: number;
    if (i < whole) {
      ml = (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)) >>> 0;
      mh = (bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24)) >>> 0;
    } else {
      // The last block: the remaining bytes, and the length (mod 256) in the top byte.
      ml = 0;
      mh = (length & 0xff) << 24;
      for (let j = 0; j < length - whole; j++) {
        const byte = bytes[i + j]!;
        if (j < 4) ml |= byte << (8 * j);
        else mh |= byte << (8 * (j - 4));
      }
      ml >>>= 0;
      mh >>>= 0;
    }
    v3h = (v3h ^ mh) >>> 0;
    v3l = (v3l ^ ml) >>> 0;
    for (let r = 0; r < 2; r++) {
      // v0 += v1; v1 = rotl(v1, 13) ^ v0; v0 = rotl(v0, 32)
      lo = (v0l + v1l) >>> 0;
      v0h = (v0h + v1h + (lo < v0l ? 1 : 0)) >>> 0;
      v0l = lo;
      th = ((v1h << 13) | (v1l >>> 19)) >>> 0;
      tl = ((v1l << 13) | (v1h >>> 19)) >>> 0;
      v1h = (th ^ v0h) >>> 0;
      v1l = (tl ^ v0l) >>> 0;
      th = v0h;
      v0h = v0l;
      v0l = th;
      // v2 += v3; v3 = rotl(v3, 16) ^ v2
      lo = (v2l + v3l) >>> 0;
      v2h = (v2h + v3h + (lo < v2l ? 1 : 0)) >>> 0;
      v2l = lo;
      th = ((v3h << 16) | (v3l >>> 16)) >>> 0;
      tl = ((v3l << 16) | (v3h >>> 16)) >>> 0;
      v3h = (th ^ v2h) >>> 0;
      v3l = (tl ^ v2l) >>> 0;
      // v0 += v3; v3 = rotl(v3, 21) ^ v0
      lo = (v0l + v3l) >>> 0;
      v0h = (v0h + v3h + (lo < v0l ? 1 : 0)) >>> 0;
      v0l = lo;
      th = ((v3h << 21) | (v3l >>> 11)) >>> 0;
      tl = ((v3l << 21) | (v3h >>> 11)) >>> 0;
      v3h = (th ^ v0h) >>> 0;
      v3l = (tl ^ v0l) >>> 0;
      // v2 += v1; v1 = rotl(v1, 17) ^ v2; v2 = rotl(v2, 32)
      lo = (v2l + v1l) >>> 0;
      v2h = (v2h + v1h + (lo < v2l ? 1 : 0)) >>> 0;
      v2l = lo;
      th = ((v1h << 17) | (v1l >>> 15)) >>> 0;
      tl = ((v1l << 17) | (v1h >>> 15)) >>> 0;
      v1h = (th ^ v2h) >>> 0;
      v1l = (tl ^ v2l) >>> 0;
      th = v2h;
      v2h = v2l;
      v2l = th;
    }
    v0h = (v0h ^ mh) >>> 0;
    v0l = (v0l ^ ml) >>> 0;
  }
  if (absorbing) {
    const saved = (resume as SipPrefix).state;
    saved[0] = v0h;
    saved[1] = v0l;
    saved[2] = v1h;
    saved[3] = v1l;
    saved[4] = v2h;
    saved[5] = v2l;
    saved[6] = v3h;
    saved[7] = v3l;
    return;
  }
  v2l = (v2l ^ 0xff) >>> 0;
  for (let r = 0; r < 4; r++) {
    // v0 += v1; v1 = rotl(v1, 13) ^ v0; v0 = rotl(v0, 32)
    lo = (v0l + v1l) >>> 0;
    v0h = (v0h + v1h + (lo < v0l ? 1 : 0)) >>> 0;
    v0l = lo;
    th = ((v1h << 13) | (v1l >>> 19)) >>> 0;
    tl = ((v1l << 13) | (v1h >>> 19)) >>> 0;
    v1h = (th ^ v0h) >>> 0;
    v1l = (tl ^ v0l) >>> 0;
    th = v0h;
    v0h = v0l;
    v0l = th;
    // v2 += v3; v3 = rotl(v3, 16) ^ v2
    lo = (v2l + v3l) >>> 0;
    v2h = (v2h + v3h + (lo < v2l ? 1 : 0)) >>> 0;
    v2l = lo;
    th = ((v3h << 16) | (v3l >>> 16)) >>> 0;
    tl = ((v3l << 16) | (v3h >>> 16)) >>> 0;
    v3h = (th ^ v2h) >>> 0;
    v3l = (tl ^ v2l) >>> 0;
    // v0 += v3; v3 = rotl(v3, 21) ^ v0
    lo = (v0l + v3l) >>> 0;
    v0h = (v0h + v3h + (lo < v0l ? 1 : 0)) >>> 0;
    v0l = lo;
    th = ((v3h << 21) | (v3l >>> 11)) >>> 0;
    tl = ((v3l << 21) | (v3h >>> 11)) >>> 0;
    v3h = (th ^ v0h) >>> 0;
    v3l = (tl ^ v0l) >>> 0;
    // v2 += v1; v1 = rotl(v1, 17) ^ v2; v2 = rotl(v2, 32)
    lo = (v2l + v1l) >>> 0;
    v2h = (v2h + v1h + (lo < v2l ? 1 : 0)) >>> 0;
    v2l = lo;
    th = ((v1h << 17) | (v1l >>> 15)) >>> 0;
    tl = ((v1l << 17) | (v1h >>> 15)) >>> 0;
    v1h = (th ^ v2h) >>> 0;
    v1l = (tl ^ v2l) >>> 0;
    th = v2h;
    v2h = v2l;
    v2l = th;
  }
  out[0] = v0h ^ v1h ^ v2h ^ v3h;
  out[1] = v0l ^ v1l ^ v2l ^ v3l;
}

let utf8Length = 0;

/** UTF-8 bytes of `text` in a reused buffer (ASCII, the usual case, without the encoder). */
function utf8(text: string): Uint8Array {
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  utf8Length = utf8Into(text, scratch);
  return scratch;
}

/**
 * `text` as UTF-8 at the start of `into` (room for three bytes a character); returns its length. Keys
 * are ASCII: a loop beats the encoder's call for a few dozen characters.
 */
export function utf8Into(text: string, into: Uint8Array): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return encoder.encodeInto(text, into).written;
    into[i] = c;
  }
  return text.length;
}

/** A uniform number in [0, 1) from the top 53 bits of the SipHash of `message`. */
export function sipUniform(key: SipKey, message: string): number {
  sipHash24Into(key, message, output);
  const hi = output[0] as number;
  const lo = output[1] as number;
  return ((hi >>> 11) * 4294967296 + lo) / 2 ** 53;
}

/**
 * A 128-bit SipHash key derived from a keyed uniform source (the platform's HMAC with the server
 * secret): four draws under distinct labels, 32 bits each.
 */
export function deriveSipKey(uniform: (label: string) => number, label: string): SipKey {
  const word = (i: number) => Math.floor(uniform(`${label}|sip-key|${i}`) * 4294967296) >>> 0;
  return [word(0), word(1), word(2), word(3)];
}

const TWO_TO_21 = 2 ** 21;

/**
 * Three independent uniforms in [0, 1) from one SipHash of `message`: bits 63–43, 42–22 and 21–1 of the
 * 64-bit value, 21 bits each. With 21 bits the chance of "nearest" in random rounding is 2/3 within
 * 3·10⁻⁷, far below anything a user could measure.
 */
export function sipUniforms3(
  key: SipKey,
  message: string | Uint8Array,
  byteLength?: number,
): [number, number, number] {
  sipHash24Into(key, message, output, byteLength);
  return uniforms3();
}

/**
 * The three uniforms of a 64-bit hash (its high and low words; by default the one in `output`), into
 * `into` (a reused array for callers that make one draw per row).
 */
export function uniforms3(
  into: [number, number, number] = [0, 0, 0],
  hi = output[0] as number,
  lo = output[1] as number,
): [number, number, number] {
  into[0] = (hi >>> 11) / TWO_TO_21;
  into[1] = (((hi & 0x7ff) << 10) | (lo >>> 22)) / TWO_TO_21;
  into[2] = ((lo >>> 1) & 0x1fffff) / TWO_TO_21;
  return into;
}

/**
 * The state of SipHash after the whole 8-byte blocks of a message's first `length` bytes: hashing
 * resumes there for every message that starts with those bytes (`sipHash24Into`'s `resume`; the
 * engine's row draws resume from an area's prefix, engine/row-uniforms.ts).
 */
export interface SipPrefix {
  state: Uint32Array;
  /** Bytes absorbed: a multiple of 8. */
  length: number;
  /** True while the state is being taken (sipHash24Into stops after the blocks). */
  absorb: boolean;
}
