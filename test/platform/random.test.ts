import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyedUniform, seeded } from '../../src/platform/random.ts';

describe('seeded random', () => {
  it('gives the same stream for the same seed and another for another seed', () => {
    const a = seeded('nzbn', 1);
    const b = seeded('nzbn', 1);
    const c = seeded('nzbn', 2);
    const first = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(first);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(first);
  });

  it('stays in range', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        (seed, min, span) => {
          const random = seeded(seed);
          for (let i = 0; i < 20; i++) {
            const value = random.int(min, min + span);
            if (value < min || value > min + span || !Number.isInteger(value)) return false;
            const u = random.next();
            if (u < 0 || u >= 1) return false;
          }
          return true;
        },
      ),
    );
  });

  it('is roughly uniform', () => {
    const random = seeded('uniformity');
    const buckets = new Array(10).fill(0);
    for (let i = 0; i < 100_000; i++) buckets[Math.floor(random.next() * 10)]++;
    for (const count of buckets) expect(Math.abs(count - 10_000)).toBeLessThan(500);
  });
});

describe('keyed random', () => {
  it('depends only on secret and key', () => {
    expect(keyedUniform('s1', 'cell')).toBe(keyedUniform('s1', 'cell'));
    expect(keyedUniform('s1', 'cell')).not.toBe(keyedUniform('s2', 'cell'));
    expect(keyedUniform('s1', 'cell')).not.toBe(keyedUniform('s1', 'cell2'));
  });

  it('is in [0, 1)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (secret, key) => {
        const u = keyedUniform(secret || 'x', key);
        return u >= 0 && u < 1;
      }),
    );
  });
});
