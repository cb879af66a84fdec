import { describe, expect, it } from 'vitest';
import { assembleSiphash } from '../../../scripts/siphash-wasm-source.ts';
import { sipHash24 } from '../../../src/services/market-rent/domain/siphash.ts';
import { SIPHASH_WASM } from '../../../src/services/market-rent/engine/siphash-wasm.ts';
import { SIP_LAYOUT } from '../../../src/services/market-rent/engine/siphash-wat.ts';

/**
 * The WebAssembly SipHash (engine/siphash-wat.ts, assembled into siphash-wasm.ts by
 * `npm run build:siphash`): the committed bytes are the current source's, and its hashes are
 * SipHash-2-4's (the reference vectors, and the JavaScript implementation on random messages).
 */
interface Row {
  memory: { buffer: ArrayBuffer };
  row(len: number, whole: number): void;
}
const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      Module: new (b: Uint8Array) => object;
      Instance: new (m: object, i: object) => { exports: unknown };
    };
  }
).WebAssembly;

function instance(bytes: Uint8Array, key: readonly number[]) {
  const { exports } = new wasm.Instance(new wasm.Module(bytes), {});
  const { memory, row } = exports as Row;
  const words = new Uint32Array(memory.buffer);
  const mem = new Uint8Array(memory.buffer);
  words.set(key, SIP_LAYOUT.KEY / 4);
  return (message: Uint8Array, whole = 0) => {
    mem.set(message, SIP_LAYOUT.MSG);
    row(message.length, whole);
    const hi = words[SIP_LAYOUT.OUT / 4 + 1] as number;
    const lo = words[SIP_LAYOUT.OUT / 4] as number;
    return { hi, lo };
  };
}

describe('the WebAssembly SipHash', () => {
  it('is committed as the current source assembles (run `npm run build:siphash` after changing siphash-wat.ts)', async () => {
    const assembled = await assembleSiphash();
    expect(Buffer.from(SIPHASH_WASM, 'base64').equals(Buffer.from(assembled))).toBe(true);
  });

  it("gives the paper's reference values (key 00 … 0f, messages 00 … n − 1)", () => {
    const hash = instance(
      Buffer.from(SIPHASH_WASM, 'base64'),
      [0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c],
    );
    const message = (n: number) => Uint8Array.from({ length: n }, (_, i) => i);
    // SipHash-2-4 reference output for n = 0, 15 and 63, as 64-bit numbers (the paper lists them as bytes, low first).
    expect(hash(message(0))).toEqual({ hi: 0x726fdb47, lo: 0xdd0e0e31 });
    expect(hash(message(15))).toEqual({ hi: 0xa129ca61, lo: 0x49be45e5 });
    expect(hash(message(63))).toEqual({ hi: 0x958a324c, lo: 0xeb064572 });
    // Resumed from a kept prefix of 16, 24 or 56 bytes: the same.
    for (const whole of [16, 24, 56, 24])
      expect(hash(message(63), whole)).toEqual({ hi: 0x958a324c, lo: 0xeb064572 });
  });

  it('hashes as the JavaScript implementation does, with and without a kept prefix', () => {
    const key = [0xdeadbeef, 0x01234567, 0x89abcdef, 0xcafef00d] as const;
    const hash = instance(Buffer.from(SIPHASH_WASM, 'base64'), key);
    let seed = 1;
    const next = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 8;
    };
    for (let i = 0; i < 2_000; i++) {
      const message = Uint8Array.from({ length: next() % 120 }, () => next() & 0xff);
      const whole = Math.min(next() % 80, message.length) & ~7;
      expect(hash(message, whole < 16 ? 0 : whole)).toEqual(sipHash24(key, message));
    }
  });
});
