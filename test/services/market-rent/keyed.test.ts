import { describe, expect, it } from 'vitest';
import { keyedUniform, seeded } from '../../../src/platform/random.ts';
import { histogramOfBonds } from '../../../src/services/market-rent/domain/histogram.ts';
import { randomRound3 } from '../../../src/services/market-rent/domain/rounding.ts';
import { deriveSipKey, sipHash24, sipUniforms3 } from '../../../src/services/market-rent/domain/siphash.ts';
import { RentAccumulator } from '../../../src/services/market-rent/engine/accumulator.ts';
import { sipRowUniforms } from '../../../src/services/market-rent/engine/row-uniforms.ts';

const REFERENCE_KEY = [0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c] as const;
const hex = (h: { hi: number; lo: number }) =>
  h.hi.toString(16).padStart(8, '0') + h.lo.toString(16).padStart(8, '0');
const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i);

describe('SipHash-2-4', () => {
  // The reference vectors of the SipHash paper: key 00..0f, message 00..(n−1).
  it.each([
    [0, '726fdb47dd0e0e31'],
    [1, '74f839c593dc67fd'],
    [7, 'ab0200f58b01d137'],
    [8, '93f5f5799a932462'],
    [15, 'a129ca6149be45e5'],
    [63, '958a324ceb064572'],
  ])('matches the reference for %i bytes', (n, expected) => {
    expect(hex(sipHash24(REFERENCE_KEY, bytes(n)))).toBe(expected);
  });

  it('hashes a string as its UTF-8 bytes', () => {
    expect(sipHash24(REFERENCE_KEY, 'Ōtaki')).toEqual(
      sipHash24(REFERENCE_KEY, new TextEncoder().encode('Ōtaki')),
    );
  });

  it('derives a different key per label from the server secret', () => {
    const uniform = (key: string) => keyedUniform('secret', key);
    const sandbox = deriveSipKey(uniform, 'market-rent|sandbox');
    expect(deriveSipKey(uniform, 'market-rent|sandbox')).toEqual(sandbox);
    expect(deriveSipKey(uniform, 'market-rent|production')).not.toEqual(sandbox);
  });
});

describe('random rounding with keyed row draws', () => {
  it('leaves multiples of 3 alone and splits the others 2/3 nearest, 1/3 second nearest', () => {
    const key = deriveSipKey((k) => keyedUniform('split-test', k), 'market-rent|sandbox');
    const cells = 30_000;
    let nearest = 0;
    let total = 0;
    for (let i = 0; i < cells; i++) {
      const draws = sipUniforms3(key, `mr2|2025-06|12|sa2:${100000 + i}|House|3`);
      if (draws.some((u) => !(u >= 0 && u < 1))) throw new Error(`draw out of [0, 1): ${draws}`);
      const count = (i % 2) + 1 + 3 * (i % 7); // remainders 1 and 2
      const rounded = randomRound3(count, draws[0]);
      const below = count - (count % 3);
      const expectedNearest = count % 3 === 1 ? below : below + 3;
      if (rounded === expectedNearest) nearest++;
      total++;
      if (randomRound3(3 * i, draws[1]) !== 3 * i) throw new Error(`${3 * i} was moved`);
    }
    // Binomial(30000, 2/3): standard deviation ≈ 82, so ±5 σ is ±0.0137 in proportion.
    expect(Math.abs(nearest / total - 2 / 3)).toBeLessThan(0.0137);
  });

  it('gives the three counts of a row independent draws', () => {
    const key = deriveSipKey((k) => keyedUniform('independence', k), 'x');
    let agree = 0;
    for (let i = 0; i < 5_000; i++) {
      const [a, b] = sipUniforms3(key, `row-${i}`);
      if (a < 2 / 3 === b < 2 / 3) agree++;
    }
    // Independent: P(agree) = 4/9 + 1/9 = 5/9.
    expect(Math.abs(agree / 5_000 - 5 / 9)).toBeLessThan(0.035);
  });
});

describe('RentAccumulator with bonds taken back out', () => {
  it('a rent whose count returns to zero disappears; the rest is the histogram of what remains', () => {
    const accumulator = new RentAccumulator();
    accumulator.add(400, 2, 3200);
    accumulator.add(450, 1, 1800);
    accumulator.add(400, -1, -1600);
    accumulator.add(450, -1, -1800);
    accumulator.add(450, 1, 1700);
    accumulator.add(5000, 1, 20000);
    accumulator.add(5000, -1, -20000);
    expect(accumulator.take()).toEqual(histogramOfBonds([400, 450], [1600, 1700]));
    expect(accumulator.n).toBe(0);
    accumulator.add(300, 1, 1200);
    accumulator.add(300, -1, -1200);
    expect(accumulator.take().n).toBe(0);
    accumulator.add(350, 1, 1400);
    expect(accumulator.take()).toEqual(histogramOfBonds([350], [1400]));
  });
});

describe('sipRowUniforms (the prefix of an area hashed once)', () => {
  for (const javascript of [false, true]) {
    it(`draws exactly what sipUniforms3 draws, whatever prefix length it is told and however the bytes change (${javascript ? 'JavaScript' : 'WebAssembly'})`, () => {
      const key = deriveSipKey((k) => keyedUniform('resume', k), 'x');
      const draws = sipRowUniforms(key, { javascript });
      const random = seeded('sip-resume');
      const buffer = new Uint8Array(200);
      for (let i = 0; i < 5_000; i++) {
        // Mostly a new area now and then, rows of the same area in between; sometimes a prefix that
        // changes in one byte with the same length, or a wrong prefix length.
        if (i % 7 === 0) {
          const prefixLength = random.int(0, 150);
          for (let j = 0; j < prefixLength; j++) buffer[j] = random.int(32, 126);
        }
        if (i % 11 === 0) buffer[random.int(0, 40)] = random.int(32, 126);
        const length = random.int(0, 199);
        for (let j = Math.max(0, length - random.int(0, 30)); j < length; j++) buffer[j] = random.int(0, 255);
        const prefixLength = random.chance(0.9) ? random.int(0, length) : random.int(0, 300);
        expect(draws(buffer, length, prefixLength)).toEqual(sipUniforms3(key, buffer, length));
      }
    });
  }

  it('hashes keys longer than the WebAssembly instance has room for in JavaScript: the same draws', () => {
    const key = deriveSipKey((k) => keyedUniform('long', k), 'x');
    const draws = sipRowUniforms(key);
    const long = new Uint8Array(40_000).map((_, i) => (i * 7919) & 0xff);
    for (const length of [16_383, 16_384, 16_385, 40_000])
      expect(draws(long, length, 64)).toEqual(sipUniforms3(key, long, length));
    // And back to short keys with a prefix: the kept state is still right.
    expect(draws(long, 100, 64)).toEqual(sipUniforms3(key, long, 100));
  });
});
