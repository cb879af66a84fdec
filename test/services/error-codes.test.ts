import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { serviceErrorCodes } from '../../src/platform/http/error-codes.ts';
import type { ServiceDefinition } from '../../src/services/contract.ts';
import { discloseService } from '../../src/services/disclose/index.ts';
import { iponzService } from '../../src/services/iponz/index.ts';
import { marketRentService } from '../../src/services/market-rent/index.ts';
import { nzbnService } from '../../src/services/nzbn/index.ts';
import { ppsrService } from '../../src/services/ppsr/index.ts';

/** The rows of a README's "Error codes" table: `code status dialect`. */
function readmeRows(service: ServiceDefinition): string[] {
  const text = readFileSync(new URL(`../../src/services/${service.id}/README.md`, import.meta.url), 'utf8');
  const section = text.split('\n## Error codes\n')[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| `([^`]+)` \| (\d+) \| (\w+) \|/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
}

describe.each([nzbnService, marketRentService, iponzService, discloseService, ppsrService])(
  '$id: the README lists the catalogue',
  (service) => {
    it('every code the service can answer, and no other', () => {
      const catalogue = serviceErrorCodes(service.dialect, service.errorCodes).map(
        (e) => `${e.code} ${e.status} ${e.dialect}`,
      );
      expect(readmeRows(service)).toEqual(catalogue);
    });
  },
);
