import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { isValidGln } from '../../../src/platform/gs1.ts';
import { OrganisationPart } from '../../../src/services/nzbn/domain/organisation-part.ts';
import { DEFAULT_AS_OF, generateEntityAt } from '../../../src/services/nzbn/sandbox/entity.ts';
import {
  generatedPartNumber,
  MAX_INDEX_WITH_PARTS,
  nzbnForIndex,
} from '../../../src/services/nzbn/sandbox/numbers.ts';
import { generatedParts } from '../../../src/services/nzbn/sandbox/organisation-parts.ts';
import { geography } from './support/geo-fixture.ts';

/** The generated entities' organisation parts and the requests for access to them (sandbox/organisation-parts.ts). */
const SEED = 'nzbn-sandbox-v1';
const INDEXES = 6_000;
const context = { geography, asOf: DEFAULT_AS_OF };
const generated = Array.from({ length: INDEXES }, (_, index) => {
  const entity = generateEntityAt(SEED, index, context);
  return { index, entity, ...generatedParts(SEED, index, entity) };
});
const parts = generated.flatMap((g) => g.parts);
const requests = generated.flatMap((g) => g.requests);

describe('generated organisation parts', () => {
  it('are the same for the same seed and index, and another seed makes others', () => {
    for (const { index, entity, parts: made } of generated.slice(0, 500)) {
      expect(generatedParts(SEED, index, entity).parts).toEqual(made);
    }
    const other = generated
      .slice(0, 2_000)
      .map(({ index, entity }) => generatedParts('other', index, entity));
    expect(JSON.stringify(other.map((o) => o.parts))).not.toBe(
      JSON.stringify(generated.slice(0, 2_000).map((g) => g.parts)),
    );
  });

  it('are a few live businesses’ own, valid published parts with numbers and identifiers of their own', () => {
    const owners = generated.filter((g) => g.parts.length > 0);
    // Roughly one live company in twenty-five has parts (the register's e-invoicing users).
    expect(owners.length).toBeGreaterThan(INDEXES * 0.01);
    expect(owners.length).toBeLessThan(INDEXES * 0.06);
    for (const { entity, parts: made, index } of owners) {
      expect(entity.entityStatusCode).toBe('50');
      expect(made.length).toBeLessThanOrEqual(4);
      made.forEach((part, k) => {
        expect([...Value.Errors(OrganisationPart, part)].map((e) => `${e.path} ${e.message}`)).toEqual([]);
        expect(part.opn).toBe(generatedPartNumber(index, k));
        expect(part).toMatchObject({ parentNzbn: entity.nzbn, parentGln: entity.nzbn });
        expect(part.parentNzbnName).toBe(entity.entityName);
        expect(part.startDate >= entity.registrationDate.slice(0, 10)).toBe(true);
      });
    }
    const numbers = parts.map((part) => part.opn);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(numbers.every((opn) => isValidGln(opn) && Number(opn.slice(4, 12)) >= 90_000_000)).toBe(true);
    const ids = parts.flatMap((part) => [
      ...part.purposes.map((p) => p.uniqueIdentifier),
      ...part.addresses.map((a) => a.uniqueIdentifier),
      ...part.phoneNumbers.map((p) => p.uniqueIdentifier),
      ...part.emailAddresses.map((e) => e.uniqueIdentifier),
    ]);
    expect(new Set(ids).size).toBe(ids.length);
    // Clear of the entities' own sub-items (below 6,001,000,000) and the register's (10,000,000,000 up).
    expect(ids.every((id) => Number(id) >= 7_000_000_000 && Number(id) < 9_000_000_000)).toBe(true);
    expect(() => generatedPartNumber(MAX_INDEX_WITH_PARTS + 1, 0)).toThrow(RangeError);
  });

  it('some are private, some shared with the neighbour, and a private part is now and then asked for', () => {
    const privacy = (value: string) => parts.filter((part) => part.privacy === value).length;
    expect(privacy('PRIVATE')).toBeGreaterThan(0);
    expect(privacy('SHARED')).toBeGreaterThan(0);
    expect(privacy('PUBLIC')).toBeGreaterThan(privacy('PRIVATE'));
    for (const { index, parts: made } of generated) {
      for (const part of made.filter((p) => p.privacy === 'SHARED')) {
        expect(part['nzbn-list']).toEqual([{ nzbn: nzbnForIndex(index ^ 1) }]);
      }
    }
    expect(requests.length).toBeGreaterThan(0);
    for (const { index, requests: asked, parts: made } of generated) {
      for (const request of asked) {
        expect(made.find((part) => part.opn === request.opn)?.privacy).toBe('PRIVATE');
        expect(request.requestingIndex).toBe(index ^ 1);
        expect(request.decidedAt === null).toBe(request.status === 'PENDING');
        if (request.decidedAt !== null) expect(request.decidedAt).toBeGreaterThanOrEqual(request.requestedAt);
      }
    }
  });
});
