import { describe, expect, it } from 'vitest';
import { parseNzDateTime } from '../../../src/platform/nz-time.ts';
import { ENTITY_TYPES } from '../../../src/services/nzbn/domain/codes.ts';
import { generateEntityAt } from '../../../src/services/nzbn/sandbox/entity.ts';
import { generatePreviousNames } from '../../../src/services/nzbn/sandbox/history.ts';
import { geography } from './support/geo-fixture.ts';

const context = { geography };
const batch = Array.from({ length: 2_000 }, (_, index) => generateEntityAt('test', index, context));

describe('generatePreviousNames', () => {
  const histories = batch.map((entity, index) => generatePreviousNames('test', index, entity, geography));

  it('gives some companies and societies earlier names, in order, before the entity last changed', () => {
    const withHistory = histories.filter((names) => names.length > 0).length / histories.length;
    expect(withHistory).toBeGreaterThan(0.05);
    expect(withHistory).toBeLessThan(0.15);
    for (const [index, names] of histories.entries()) {
      const entity = batch[index]!;
      if (ENTITY_TYPES[entity.entityTypeCode].sourceRegister === 'NZBN') expect(names).toEqual([]);
      let previousEnd = parseNzDateTime(entity.registrationDate)!;
      for (const name of names) {
        expect(parseNzDateTime(name.startDate)).toBe(previousEnd);
        expect(parseNzDateTime(name.endDate)!).toBeGreaterThan(previousEnd);
        expect(parseNzDateTime(name.endDate)!).toBeLessThanOrEqual(parseNzDateTime(entity.lastUpdatedDate)!);
        if (ENTITY_TYPES[entity.entityTypeCode].upperCaseName)
          expect(name.name).toBe(name.name.toUpperCase());
        previousEnd = parseNzDateTime(name.endDate)!;
      }
    }
  });

  it('is deterministic and leaves the entity stream alone', () => {
    expect(generatePreviousNames('test', 9, batch[9]!, geography)).toEqual(histories[9]);
    expect(generateEntityAt('test', 9, context)).toEqual(batch[9]);
  });
});
