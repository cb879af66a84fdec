import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Geography } from '../../../../src/services/market-rent/domain/areas.ts';
import { loadGeography } from '../../../../src/services/market-rent/store/geography.ts';

/** The 2019 geography CSVs kept in the repository (Stats NZ, CC BY 4.0). */
export const GEO_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../reference-data/geo',
);

let cached: Geography | undefined;

export function geography(): Geography {
  cached ??= loadGeography(GEO_DIR);
  return cached;
}

/**
 * Straightforward statistics over a list of bonds, written independently of the domain code: sort,
 * index, loop. The property tests compare the histogram machinery against these.
 */
export function bruteForce(rents: readonly number[], bonds: readonly number[]) {
  const n = rents.length;
  const sorted = [...rents].sort((a, b) => a - b);
  const type7 = (p: number) => {
    const h = p * (n - 1);
    const lo = Math.floor(h);
    const lower = sorted[lo] as number;
    const upper = sorted[Math.min(lo + 1, n - 1)] as number;
    return lower + (upper - lower) * (h - lo);
  };
  const mean = rents.reduce((s, r) => s + r, 0) / n;
  const logs = rents.map(Math.log);
  const lmean = logs.reduce((s, l) => s + l, 0) / n;
  const sd = Math.sqrt(rents.reduce((s, r) => s + (r - mean) ** 2, 0) / (n - 1));
  const lsd = Math.sqrt(logs.reduce((s, l) => s + (l - lmean) ** 2, 0) / (n - 1));
  const brr = rents.reduce((s, r, i) => s + (bonds[i] as number) / r, 0) / n;
  return { n, mean, lq: type7(0.25), med: type7(0.5), uq: type7(0.75), sd, lsd, lmean, brr };
}

export function relativeError(actual: number, expected: number): number {
  if (actual === expected) return 0;
  return Math.abs(actual - expected) / Math.max(Math.abs(expected), 1e-300);
}
