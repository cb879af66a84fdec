import { type SipKey, type SipPrefix, sipHash24Into, uniforms3 } from '../domain/siphash.ts';
import { SIPHASH_WASM } from './siphash-wasm.ts';
import { SIP_LAYOUT } from './siphash-wat.ts';

/**
 * The rounding draws of an answer's rows, fast: the same numbers as `sipUniforms3(key, rowKey)` of
 * domain/siphash.ts (the definition, which the oracle uses), made in WebAssembly with each area's part
 * of the keys hashed once.
 *
 * Why (docs/decisions/0004-computed-rental-statistics.md): a national answer has some 60,000 rows with a
 * draw each. On 32-bit halves in JavaScript a draw took about 133 ns; in WebAssembly, with native 64-bit
 * integers, about 53 ns (measured alone). The keys of one area's rows share their first bytes
 * (`mr2|period|months|area|`: 20 to 90 bytes), so the whole 8-byte blocks of that prefix are
 * hashed once per area and every row resumes from there.
 */

/** The hash of the last call, high word first (read at once: every call overwrites it). */
const output = new Uint32Array(2);

/**
 * `sipUniforms3(key, bytes, length)` for the rows of one answer, whose keys share a prefix per area
 * (`mr2|period|months|area|`): `prefixLength` says how many leading bytes the next rows will share. The
 * whole blocks of that prefix are hashed once and the state kept with a copy of the bytes; a later call
 * resumes from it only when its message starts with exactly those bytes (compared each time), so the
 * result is always sipUniforms3's, whatever the caller passes.
 *
 * The hashing runs in WebAssembly (siphash-wat.ts), one instance per function; `javascript: true` keeps it in
 * JavaScript (tests compare the two), as does a message longer than the instance's room for one.
 */
export function sipRowUniforms(
  key: SipKey,
  { javascript = false }: { javascript?: boolean } = {},
): RowUniforms {
  // The key travels with the function: the report thread makes the same uniforms from it.
  if (javascript) return Object.assign(javascriptRowUniforms(key), { sipKey: key });
  const { uniforms, keyBuffer } = wasmRowUniforms(key);
  return Object.assign(uniforms, { sipKey: key, keyBuffer });
}

type Uniforms = (bytes: Uint8Array, length: number, prefixLength?: number) => [number, number, number];

function javascriptRowUniforms(key: SipKey): Uniforms {
  const prefix: SipPrefix = { state: new Uint32Array(8), length: 0, absorb: false };
  let kept = new Uint8Array(64);
  const result: [number, number, number] = [0, 0, 0];
  return (bytes, length, prefixLength = 0) => {
    const whole = Math.min(prefixLength, length) & ~7;
    if (whole < 16) {
      sipHash24Into(key, bytes, output, length);
      return uniforms3(result, output[0], output[1]);
    }
    let same = whole === prefix.length;
    for (let i = 0; same && i < whole; i++) same = bytes[i] === kept[i];
    if (!same) {
      if (kept.length < whole) kept = new Uint8Array(whole * 2);
      kept.set(bytes.subarray(0, whole));
      prefix.length = whole;
      prefix.absorb = true;
      sipHash24Into(key, bytes, output, whole, prefix);
      prefix.absorb = false;
    }
    sipHash24Into(key, bytes, output, length, prefix);
    return uniforms3(result, output[0], output[1]);
  };
}

/** What this file uses of the WebAssembly API (the project's TypeScript libraries do not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** The assembled module, compiled once per thread (a few hundred microseconds) when first needed. */
let sipModule: object | undefined;

function wasmRowUniforms(key: SipKey): { uniforms: Uniforms; keyBuffer: Uint8Array } {
  sipModule ??= new wasm.Module(Buffer.from(SIPHASH_WASM, 'base64'));
  const instance = new wasm.Instance(sipModule, {});
  const { memory, row } = instance.exports as {
    memory: { buffer: ArrayBuffer };
    row: (len: number, whole: number) => void;
  };
  // The memory never grows, so these views stay valid.
  const bytesIn = new Uint8Array(memory.buffer);
  const words = new Uint32Array(memory.buffer);
  const { KEY, OUT, MSG, CAPACITY } = SIP_LAYOUT;
  // k0 and k1 as little-endian 64-bit words: low word first.
  words.set(key, KEY / 4);
  const out = OUT / 4;
  // Where the message is hashed from: a caller that writes its keys here saves a copy per call.
  const keyBuffer = new Uint8Array(memory.buffer, MSG, CAPACITY);
  const result: [number, number, number] = [0, 0, 0];
  const uniforms: Uniforms = (bytes, length, prefixLength = 0) => {
    if (length > CAPACITY) {
      sipHash24Into(key, bytes, output, length);
      return uniforms3(result, output[0], output[1]);
    }
    const whole = Math.min(prefixLength, length) & ~7;
    // A loop, not TypedArray.set: a row's key is a few dozen bytes.
    if (bytes !== keyBuffer) for (let i = 0; i < length; i++) bytesIn[MSG + i] = bytes[i] as number;
    row(length, whole < 16 ? 0 : whole);
    return uniforms3(result, words[out + 1] as number, words[out] as number);
  };
  return { uniforms, keyBuffer };
}

/**
 * sipRowUniforms' function, which names its key and (in WebAssembly) the buffer it hashes from: keys
 * written there are not copied. The array it returns is its own, reused: read it before the next call
 * (no array per row).
 */
export type RowUniforms = ((
  bytes: Uint8Array,
  length: number,
  prefixLength?: number,
) => [number, number, number]) & { readonly sipKey: SipKey; readonly keyBuffer?: Uint8Array };
