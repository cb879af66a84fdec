import { createHmac, hash } from 'node:crypto';

/**
 * Seeded, deterministic randomness for sandbox generators, and keyed randomness for values that users
 * must not be able to average away (random rounding of counts).
 *
 * The generator is SplitMix64 on BigInt-free 32-bit halves (sfc32), seeded from a SHA-256 of a string,
 * so `seeded('some-service', 42)` gives the same stream on every machine and Node version.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** One element, chosen with the given non-negative weights. */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
  /** True with probability p. */
  chance(p: number): boolean;
  /** Standard normal deviate (Box–Muller). */
  normal(): number;
  /** An independent stream derived from this one and a label. */
  fork(label: string | number): Random;
}

export function seeded(...parts: (string | number)[]): Random {
  // The one-shot hash: a seed makes one stream a record, millions of them.
  const digest = hash('sha256', parts.join('\u0000'), 'buffer');
  return sfc32(
    digest.readUInt32LE(0),
    digest.readUInt32LE(4),
    digest.readUInt32LE(8),
    digest.readUInt32LE(12),
  );
}

function sfc32(a0: number, b0: number, c0: number, d0: number): Random {
  let a = a0 >>> 0;
  let b = b0 >>> 0;
  let c = c0 >>> 0;
  let d = d0 >>> 0;
  const nextUint32 = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t;
  };
  // Discard the first outputs: sfc32 mixes its state over the first dozen rounds.
  for (let i = 0; i < 12; i++) nextUint32();
  const next = (): number => nextUint32() / 4294967296;
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    weighted: (items) => {
      let total = 0;
      for (const [, w] of items) total += w;
      let r = next() * total;
      for (const [item, w] of items) {
        r -= w;
        if (r < 0) return item;
      }
      const last = items[items.length - 1];
      if (!last) throw new RangeError('weighted pick from an empty list');
      return last[0];
    },
    chance: (p) => next() < p,
    normal: () => {
      const u = 1 - next();
      const v = next();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    fork: (label) => seeded(nextUint32(), String(label)),
  };
  return random;
}

/**
 * Keyed randomness: a uniform number in [0, 1) that depends only on the server secret and the key.
 * Asking again with the same key gives the same number, so repeating a query and averaging reveals
 * nothing; without the secret the values cannot be predicted.
 */
export function keyedUniform(secret: string | Buffer, key: string): number {
  const mac = createHmac('sha256', secret).update(key).digest();
  // 53 bits: the full precision of a double.
  const high = mac.readUInt32BE(0) >>> 11; // 21 bits
  const low = mac.readUInt32BE(4); // 32 bits
  return (high * 4294967296 + low) / 2 ** 53;
}
