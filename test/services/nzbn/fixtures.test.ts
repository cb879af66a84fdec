import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { isValidGln } from '../../../src/platform/gs1.ts';
import { nzLocalToEpoch } from '../../../src/platform/nz-time.ts';
import { ENTITY_STATUS_CODES, ENTITY_TYPE_CODES } from '../../../src/services/nzbn/domain/codes.ts';
import { OrganisationPart } from '../../../src/services/nzbn/domain/organisation-part.ts';
import { Entity } from '../../../src/services/nzbn/domain/schema.ts';
import { generateEntityAt } from '../../../src/services/nzbn/sandbox/entity.ts';
import { fixtureParts } from '../../../src/services/nzbn/sandbox/fixture-parts.ts';
import {
  FIXTURE_ACCESS_REQUESTS,
  FIXTURE_CASES,
  generateFixtureEntity,
  generateFixtures,
} from '../../../src/services/nzbn/sandbox/fixtures.ts';
import { indexForNzbn } from '../../../src/services/nzbn/sandbox/numbers.ts';
import { geography } from './support/geo-fixture.ts';

const fixtures = generateFixtures({ geography });
const byNumber = (number: number) => fixtures.find(({ fixture }) => fixture.number === number)!;

describe('fixed test cases', () => {
  it('keep the business numbers and names the README publishes', () => {
    expect(byNumber(0).entity.nzbn).toBe('9429000001007');
    expect(byNumber(100).entity.nzbn).toBe('9429000002004');
    expect(byNumber(202).entity.nzbn).toBe('9429000003025');
    const readme = readFileSync(new URL('../../../src/services/nzbn/README.md', import.meta.url), 'utf8');
    const rows = readme
      .split('\n')
      .map((line) => line.split('|').map((cell) => cell.trim()))
      .filter((cells) => /^`9429\d{9}`$/.test(cells[2] ?? ''));
    expect(rows).toHaveLength(fixtures.length);
    for (const { fixture, entity } of fixtures) {
      const cells = ['', String(fixture.number), `\`${fixture.nzbn}\``, entity.entityName];
      const expected = [...cells, `\`${entity.entityTypeCode}\``, `\`${entity.entityStatusCode}\``];
      expect(
        rows.some((row) => expected.every((cell, i) => row[i] === cell)),
        expected.join(' | '),
      ).toBe(true);
    }
  });

  it('have valid, distinct business numbers that no generated entity can take', () => {
    const numbers = FIXTURE_CASES.map((fixture) => fixture.nzbn);
    expect(new Set(numbers).size).toBe(numbers.length);
    for (const nzbn of numbers) {
      expect(isValidGln(nzbn)).toBe(true);
      expect(indexForNzbn(nzbn)).toBeUndefined();
    }
  });

  it('cover every entity type and every status', () => {
    const entities = fixtures.map(({ entity }) => entity);
    for (const type of ENTITY_TYPE_CODES)
      expect(entities.some((entity) => entity.entityTypeCode === type)).toBe(true);
    for (const status of ENTITY_STATUS_CODES)
      expect(entities.some((entity) => entity.entityStatusCode === status)).toBe(true);
  });

  it('are valid entities in the published shape, carrying their fixed names and numbers', () => {
    for (const { fixture, entity } of fixtures) {
      expect([...Value.Errors(Entity, entity)].map((error) => error.path)).toEqual([]);
      expect(entity.nzbn).toBe(fixture.nzbn);
      expect(entity.entityName).toBe(fixture.overrides.entityName);
      expect(entity.registrationDate).toBe('2009-03-24T10:00:00.000+1300');
    }
  });

  it('do not move with the register seed or its moment', () => {
    const again = generateFixtures({ geography, asOf: nzLocalToEpoch(2030, 1, 1) });
    expect(again).toEqual(fixtures);
    // Generating a seeded register in between changes nothing either.
    generateEntityAt('some seed', 5, { geography });
    expect(generateFixtureEntity(FIXTURE_CASES[3]!, { geography })).toEqual(fixtures[3]!.entity);
  });

  it('include one with private data', () => {
    const entity = fixtures.find(({ fixture }) => fixture.overrides.privateData)!.entity;
    expect(entity.privacySettings).toMatchObject({
      phonePrivateInformation: true,
      emailPrivateInformation: true,
      gstNumberPrivateInformation: true,
    });
    expect(entity.phoneNumbers.length).toBeGreaterThan(0);
    expect(entity.emailAddresses.length).toBeGreaterThan(0);
    expect(entity.gstNumbers.length).toBeGreaterThan(0);
  });

  it('include one with three organisation parts (public, private, shared) with valid part numbers', () => {
    const withParts = FIXTURE_CASES.filter((fixture) => fixture.organisationParts.length > 0);
    expect(withParts.map((fixture) => fixture.number)).toEqual([201, 202]);
    const parts = withParts[0]!.organisationParts;
    // The published privacy values.
    expect(parts.map((part) => part.privacy)).toEqual(['PUBLIC', 'PRIVATE', 'SHARED']);
    for (const part of parts) {
      expect(isValidGln(part.opn)).toBe(true);
      expect(FIXTURE_CASES.some((fixture) => fixture.nzbn === part.opn)).toBe(false);
    }
    expect(parts[2]!.nzbnList).toEqual([byNumber(0).fixture.nzbn]);
  });

  it('give each organisation part an item in every list, in the published shape, the same bytes every time', () => {
    const made = () =>
      generateFixtures({ geography }).flatMap(({ fixture, entity }) =>
        fixtureParts(entity, fixture.organisationParts),
      );
    const parts = made();
    expect(parts).toHaveLength(FIXTURE_CASES.flatMap((fixture) => fixture.organisationParts).length);
    const ids: string[] = [];
    for (const part of parts) {
      expect(Value.Errors(OrganisationPart, part).First(), part.opn).toBeUndefined();
      for (const list of [
        'purposes',
        'addresses',
        'phoneNumbers',
        'emailAddresses',
        'custom-data',
      ] as const) {
        expect(part[list].length, `${part.opn} ${list}`).toBeGreaterThan(0);
        ids.push(...part[list].map((item) => item.uniqueIdentifier));
      }
    }
    // Identifiers of their own: below those the store gives, distinct across the parts.
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => Number(id) < 10_000_000_000)).toBe(true);
    expect(JSON.stringify(made())).toBe(JSON.stringify(parts));
  });

  it('include requests for access to private parts of theirs, one of each status, none to a part its requester sees', () => {
    const parts = FIXTURE_CASES.flatMap((fixture) =>
      fixture.organisationParts.map((part) => ({ ...part, parentNzbn: fixture.nzbn })),
    );
    expect(FIXTURE_ACCESS_REQUESTS.map((request) => request.status).sort()).toEqual([
      'APPROVED',
      'DECLINED',
      'PENDING',
    ]);
    for (const request of FIXTURE_ACCESS_REQUESTS) {
      const part = parts.find((candidate) => candidate.opn === request.opn)!;
      expect(part.privacy).toBe('PRIVATE');
      expect(FIXTURE_CASES.some((fixture) => fixture.nzbn === request.requestingNzbn)).toBe(true);
      expect(part.parentNzbn).not.toBe(request.requestingNzbn);
    }
    // The operator's case sees another case's private part; two cases asked for its own.
    const held = byNumber(202).fixture;
    expect(FIXTURE_ACCESS_REQUESTS.find((r) => r.requestingNzbn === held.nzbn)?.status).toBe('APPROVED');
    expect(FIXTURE_ACCESS_REQUESTS.filter((r) => r.opn === held.organisationParts[0]!.opn)).toHaveLength(2);
  });

  it('include exactly one the sandbox operator has authority over', () => {
    const held = FIXTURE_CASES.filter((fixture) => fixture.sandboxOperatorHasAuthority);
    expect(held.map((fixture) => fixture.nzbn)).toEqual([byNumber(202).fixture.nzbn]);
  });
});
