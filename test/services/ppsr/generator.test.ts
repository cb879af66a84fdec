import { describe, expect, it } from 'vitest';
import { nzDate } from '../../../src/platform/calendar.ts';
import { withCheckDigit } from '../../../src/platform/gs1.ts';
import { checkCollaterals } from '../../../src/services/ppsr/domain/collateral.ts';
import { checkDebtors, checkSecuredParties } from '../../../src/services/ppsr/domain/parties.ts';
import { isRegistrationNumber } from '../../../src/services/ppsr/domain/registration-number.ts';
import { hasValidCheckCharacter } from '../../../src/services/ppsr/domain/vehicles.ts';
import { generateStatement, type OrganisationSource } from '../../../src/services/ppsr/sandbox/generator.ts';

const organisations: OrganisationSource = {
  count: 1000,
  organisation: (i) => ({
    name: `Sandbox Company ${i} Limited`,
    nzbn: withCheckDigit(String(942_000_000_000 + i)),
  }),
};
const NOW = Date.parse('2026-11-24T00:00:00Z');
const sample = Array.from({ length: 2000 }, (_, i) => generateStatement(i, NOW, organisations));

describe('the sandbox generator', () => {
  it('is deterministic for an index and a now', () => {
    expect(generateStatement(7, NOW, organisations)).toEqual(sample[7]);
    expect(new Set(sample.map((s) => s.registrationNumber)).size).toBe(sample.length);
  });

  it('every version it makes obeys the register rules of its day', () => {
    const broken: string[] = [];
    const check = (what: string, call: () => unknown) => {
      try {
        call();
      } catch (error) {
        broken.push(`${what}: ${(error as Error).message}`);
      }
    };
    for (const statement of sample) {
      if (!isRegistrationNumber(statement.registrationNumber)) broken.push(statement.registrationNumber);
      for (const version of statement.versions) {
        const day = nzDate(version.at.getTime());
        const what = `${statement.registrationNumber} v${version.change}`;
        if (version.at.getTime() > NOW) broken.push(`${what}: after now`);
        check(what, () => checkDebtors(version.document.debtors, day));
        check(what, () => checkSecuredParties(version.document.securedParties));
        check(what, () => checkCollaterals(version.document.collaterals, Number(day.slice(0, 4))));
        for (const collateral of version.document.collaterals) {
          for (const vehicle of collateral.motorVehicles ?? []) {
            if (vehicle.vin && !hasValidCheckCharacter(vehicle.vin))
              broken.push(`${what}: VIN ${vehicle.vin}`);
          }
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('spreads over 15 years with every life: registered, amended, renewed, discharged, expired', () => {
    const today = nzDate(NOW);
    const changes = new Set(sample.flatMap((s) => s.versions.map((v) => v.change)));
    expect(changes).toEqual(new Set(['Registered', 'Amended', 'Renewed', 'Discharged']));
    const expired = sample.filter((s) => !s.dischargedAt && s.expiryDate < today).length;
    const inForce = sample.filter((s) => !s.dischargedAt && s.expiryDate >= today).length;
    expect(expired).toBeGreaterThan(100);
    expect(inForce).toBeGreaterThan(100);
    const oldest = Math.min(...sample.map((s) => s.registeredAt.getTime()));
    expect(NOW - oldest).toBeGreaterThan(13 * 365 * 86_400_000);
    const types = new Set(
      sample.flatMap((s) => s.versions[0]!.document.collaterals.map((c) => c.collateralType)),
    );
    expect(types.size).toBe(13);
  });
});
