import { describe, expect, it } from 'vitest';
import { seeded } from '../../../src/platform/random.ts';
import { BlockCopyReader, binaryCopy, Sa2Lookup } from '../../../src/services/market-rent/store/blocks.ts';
import { marketRentGeography } from '../../../src/services/market-rent/store/geography.ts';

const geography = marketRentGeography();
const lookup = new Sa2Lookup(geography);
const random = seeded('copy-reader-test');

/** A rent block of `n` entries in the stored form: keys, rents, counts (int32), bond sums (float64), big-endian. */
function rentData(n: number): Buffer {
  const data = Buffer.alloc(4 + 20 * n);
  data.writeInt32BE(n, 0);
  for (let i = 0; i < n; i++) {
    const sa2 = Number(geography.sa2Codes[random.int(0, geography.sa2Codes.length - 1)]);
    data.writeInt32BE(sa2 * 64 + random.int(0, 4) * 8 + random.int(0, 5), 4 + 4 * i);
    data.writeInt32BE(random.int(100, 900), 4 + 4 * n + 4 * i);
    data.writeInt32BE(random.int(1, 4), 4 + 8 * n + 4 * i);
    data.writeDoubleBE(random.int(400, 4000), 4 + 12 * n + 8 * i);
  }
  return data;
}

const plain = (blocks: Map<string, object>) =>
  Object.fromEntries([...blocks].map(([month, block]) => [month, Object.values(block).map((a) => [...a])]));

describe('the binary COPY reader', () => {
  const copy = binaryCopy(
    [
      ['2026-01', rentData(300)],
      ['2026-02', rentData(0)],
      ['2026-03', rentData(1_000)],
    ],
    3,
  );
  const whole = new BlockCopyReader('rent', lookup);
  whole.push(copy);
  const expected = plain(whole.finish());

  it('decodes every row, whatever the chunks it arrives in', () => {
    expect(Object.keys(expected)).toEqual(['2026-01', '2026-02', '2026-03']);
    expect(expected['2026-03']![0]).toHaveLength(1_000);
    for (const size of [1, 2, 3, 7, 19, 64, 1_000, 4_096, 65_536]) {
      const reader = new BlockCopyReader('rent', lookup);
      for (let at = 0; at < copy.length; at += size) reader.push(copy.subarray(at, at + size));
      expect(plain(reader.finish()), `chunks of ${size}`).toEqual(expected);
    }
    for (let trial = 0; trial < 20; trial++) {
      const reader = new BlockCopyReader('rent', lookup);
      for (let at = 0; at < copy.length; ) {
        const size = random.int(1, 9_000);
        reader.push(copy.subarray(at, at + size));
        at += size;
      }
      expect(plain(reader.finish())).toEqual(expected);
    }
  });

  it('refuses a COPY that ends before its trailer', () => {
    const reader = new BlockCopyReader('rent', lookup);
    reader.push(copy.subarray(0, copy.length - 100));
    expect(() => reader.finish()).toThrow(/ended early/);
  });
});
