import { FIXTURES } from '../../../../src/services/disclose/sandbox/fixtures.ts';
import {
  type GeneratedRegister,
  generateRegister,
} from '../../../../src/services/disclose/sandbox/generator.ts';

/** Companies standing in for the sandbox business number register (valid GS1 check digits). */
export function testCompanies(count = 40) {
  const names = [
    'Harbour Funds Limited',
    'Kauri Trustees Limited',
    'Summit Asset Management Limited',
    'Pacific Custody Limited',
  ];
  return {
    count,
    organisation: (i: number) => {
      const body = `942900${String(1000 + i).padStart(6, '0')}`;
      let sum = 0;
      for (let k = 0; k < 12; k++) sum += Number(body[11 - k]) * (k % 2 === 0 ? 3 : 1);
      return {
        name: `${names[i % names.length]!.replace(' Limited', '')} ${i} Limited`,
        nzbn: `${body}${(10 - (sum % 10)) % 10}`,
      };
    },
  };
}

/**
 * The register a test seed of these companies makes at `now` (its fixed cases' identifiers, types and
 * texts: the times move with the sandbox clock, which runs on from `now`).
 */
export const registerAsSeeded = (schemes: number, standaloneOffers: number, now: string): GeneratedRegister =>
  generateRegister(testCompanies(), { schemes, standaloneOffers, now: new Date(now) }, FIXTURES);
