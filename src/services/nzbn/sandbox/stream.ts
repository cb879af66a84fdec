/**
 * Per-entity random streams for the generator. The platform's `seeded()` hashes its parts with
 * SHA-256 and builds a closure-based generator; at national scale (700,000 entities) that alone cost
 * more than an eighth of the generator's time. Here the register's seed goes through `seeded()` once,
 * giving a 128-bit key, and each entity's stream is that key mixed with the index by integer hashing
 * (the murmur3 finaliser) feeding the same sfc32 generator, as a class so nothing is allocated per call.
 * Same seed and index, same stream, on every machine.
 */
import { type Random, seeded } from '../../../platform/random.ts';

export type RegisterKey = readonly [number, number, number, number];

/** The key of a register seed: derived once, reused for every entity index. */
export function registerKey(seed: string | number): RegisterKey {
  const random = seeded('nzbn-register', seed);
  const word = () => Math.floor(random.next() * 4294967296) >>> 0;
  return [word(), word(), word(), word()];
}

function mix32(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The random stream of entity `index` in the register with this key. */
export function entityStream(key: RegisterKey, index: number): Random {
  const low = index >>> 0;
  const high = Math.floor(index / 4294967296) >>> 0;
  return new Sfc32(
    mix32(key[0] ^ low),
    mix32(key[1] ^ mix32(low + 0x9e3779b9)),
    mix32(key[2] ^ high),
    mix32(key[3] ^ mix32(low ^ 0x7f4a7c15)),
  );
}

class Sfc32 implements Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(a: number, b: number, c: number, d: number) {
    this.a = a >>> 0;
    this.b = b >>> 0;
    this.c = c >>> 0;
    this.d = d >>> 0;
    // sfc32 mixes its state over the first dozen rounds.
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  private nextUint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t;
  }

  next(): number {
    return this.nextUint32() / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const item of items) total += item[1];
    let r = this.next() * total;
    for (const item of items) {
      r -= item[1];
      if (r < 0) return item[0];
    }
    const last = items[items.length - 1];
    if (!last) throw new RangeError('weighted pick from an empty list');
    return last[0];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  fork(label: string | number): Random {
    return seeded(this.nextUint32(), String(label));
  }
}
