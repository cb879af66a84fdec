/**
 * Input rules of the business number register: the 91 status description, case-insensitive
 * entity-type filter names, dates in the years 0000–0099, and the roles a PUT refuses (an ACTIVE role
 * with an endDate, a roleEntity whose business number fails the GS1 check).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuleError } from '../../../src/platform/errors.ts';
import {
  formatNzDateTime,
  isNzDateTimeString,
  nzLocalToEpoch,
  nzMidnight,
  nzOffsetMinutes,
  parseNzDateTime,
} from '../../../src/platform/nz-time.ts';
import {
  ENTITY_STATUSES,
  ENTITY_TYPE_FILTERS,
  entityTypesForFilter,
} from '../../../src/services/nzbn/domain/codes.ts';
import { readDate } from '../../../src/services/nzbn/domain/items.ts';
import { type RoleLike, replaceRoles } from '../../../src/services/nzbn/domain/roles.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';

const NOW = '2025-07-01T10:00:00.000+1200';
const person = { firstName: 'Aroha', lastName: 'Ngata' };
const ACTIVE_WITH_END = 'an ACTIVE role has no endDate; send roleStatus INACTIVE to end it';

const ids = () => {
  let next = 900;
  return () => String(next++);
};
const replace = (inputs: RoleLike[], current: Parameters<typeof replaceRoles>[0] = []) =>
  replaceRoles(current, inputs, NOW, ids());

describe('entity status 91', () => {
  it('is "Removed/Closed", as the published list names it', () => {
    expect(ENTITY_STATUSES['91'].description).toBe('Removed/Closed');
    expect(ENTITY_STATUSES['80'].description).toBe('Removed');
  });
});

describe('entity-type filter names', () => {
  it('match without regard to case and give the canonical codes', () => {
    expect(entityTypesForFilter('nzcompany')).toEqual(['LTD', 'ULTD', 'COOP']);
    expect(entityTypesForFilter('NZCOMPANY')).toEqual(['LTD', 'ULTD', 'COOP']);
    expect(entityTypesForFilter('ltd')).toEqual(['LTD']);
    expect(entityTypesForFilter('sole_trader')).toEqual(['Sole_Trader']);
    expect(entityTypesForFilter('SOLETRADER')).toEqual(['Sole_Trader']);
    expect(entityTypesForFilter('govtedu')).toEqual(['GovtEdu']);
    expect(entityTypesForFilter('g')).toEqual(['GovtCentral', 'GovtLocal', 'GovtEdu', 'GovtOther']);
  });

  it('mean the same in any case for every known name, and no two names clash when folded', () => {
    for (const [name, codes] of Object.entries(ENTITY_TYPE_FILTERS)) {
      expect(entityTypesForFilter(name.toLowerCase()), name).toEqual(codes);
      expect(entityTypesForFilter(name.toUpperCase()), name).toEqual(codes);
    }
  });

  it('still refuse unknown names and prototype keys', () => {
    for (const name of ['Company', 'toString', 'TOSTRING', 'constructor', '__proto__', 'hasOwnProperty', ''])
      expect(entityTypesForFilter(name), name).toBeUndefined();
  });
});

describe('dates in the years 0000–0099', () => {
  // Before 1868 Auckland kept local mean time; the year 50 must have the same offset as 1850.
  const lmt = formatNzDateTime(nzMidnight(1850, 6, 1)).slice(-5);

  it('keep their year instead of moving to the 1900s', () => {
    const epoch = parseNzDateTime('0050-06-01');
    expect(epoch).not.toBeNull();
    expect(formatNzDateTime(epoch!)).toBe(`0050-06-01T00:00:00.000${lmt}`);
    expect(nzOffsetMinutes(epoch!)).toBe(nzOffsetMinutes(nzMidnight(1850, 6, 1)));
    expect(readDate('0050-06-01', NOW, 'startDate')).toBe(`0050-06-01T00:00:00.000${lmt}`);
    expect(nzLocalToEpoch(99, 12, 31, 23, 59, 59, 999)).toBeLessThan(nzMidnight(100, 1, 1));
    expect(formatNzDateTime(nzMidnight(0, 1, 1))).toBe(`0000-01-01T00:00:00.000${lmt}`);
  });

  it('read an explicit offset or Z exactly', () => {
    expect(parseNzDateTime('0050-06-01T00:00:00.000Z')).toBe(Date.parse('0050-06-01T00:00:00.000Z'));
    expect(parseNzDateTime('0099-12-31T12:00:00.000+1200')).toBe(Date.parse('0099-12-31T00:00:00.000Z'));
    expect(isNzDateTimeString(`0050-06-01T00:00:00.000${lmt}`)).toBe(true);
  });

  it('know the leap years of the proleptic Gregorian calendar (0000 is one, 0001 is not)', () => {
    const leapDay = parseNzDateTime('0000-02-29');
    expect(leapDay).not.toBeNull();
    expect(formatNzDateTime(leapDay!)).toBe(`0000-02-29T00:00:00.000${lmt}`);
    expect(parseNzDateTime('0004-02-29')).not.toBeNull();
    expect(parseNzDateTime('0001-02-29')).toBeNull();
    expect(parseNzDateTime('0000-02-30')).toBeNull();
    expect(parseNzDateTime('0050-04-31')).toBeNull();
  });

  it('refuse an offset that moves the instant out of the years 0000–9999 of New Zealand time', () => {
    // Found by fuzz.test.ts: the register cannot write such an instant back with a four-digit year.
    expect(parseNzDateTime('0000-01-01T00:00:00.000+1400')).toBeNull();
    expect(parseNzDateTime('9999-12-31T23:59:59.999-1400')).toBeNull();
    expect(parseNzDateTime('9999-12-31T12:21:00.000Z')).toBeNull();
    expect(formatNzDateTime(parseNzDateTime('0000-01-01T11:39:00.000+1400')!)).toBe(
      `0000-01-01T09:18:00.000${lmt}`,
    );
    expect(formatNzDateTime(parseNzDateTime('9999-12-31T23:59:59.999+1400')!)).toBe(
      '9999-12-31T22:59:59.999+1300',
    );
    expect(formatNzDateTime(parseNzDateTime('0000-01-01T00:00:00.000Z')!)).toBe(
      `0000-01-01T11:39:00.000${lmt}`,
    );
  });

  it('leave years from 0100 on as they were', () => {
    expect(parseNzDateTime('0100-01-01T00:00:00.000Z')).toBe(Date.parse('0100-01-01T00:00:00.000Z'));
    expect(formatNzDateTime(parseNzDateTime('1950-06-01')!)).toBe('1950-06-01T00:00:00.000+1200');
    expect(parseNzDateTime('1900-02-29')).toBeNull();
    expect(parseNzDateTime('2000-02-29')).not.toBeNull();
  });
});

describe('roles: an ACTIVE role with an endDate', () => {
  it('is refused on <index>.endDate instead of losing its endDate', () => {
    expect(() =>
      replace([
        { roleType: 'Director', rolePerson: person },
        { roleType: 'Director', roleStatus: 'ACTIVE', endDate: '2024-03-01', rolePerson: person },
      ]),
    ).toThrow(new RuleError('1.endDate', ACTIVE_WITH_END));
  });

  it('is still fine without one, or with endDate null; INACTIVE keeps its endDate', () => {
    const { roles } = replace([
      { roleType: 'Director', roleStatus: 'ACTIVE', rolePerson: person },
      { roleType: 'Director', roleStatus: 'ACTIVE', endDate: null, rolePerson: person },
      {
        roleType: 'Director',
        roleStatus: 'INACTIVE',
        startDate: '2020-01-01',
        endDate: '2024-03-01',
        rolePerson: person,
      },
    ]);
    expect(roles.map((r) => [r.roleStatus, r.endDate])).toEqual([
      ['ACTIVE', null],
      ['ACTIVE', null],
      ['INACTIVE', '2024-03-01T00:00:00.000+1300'],
    ]);
  });

  it('does not stop an ended role from being made ACTIVE again (its endDate not sent)', () => {
    const ended = replace([
      {
        roleType: 'Director',
        roleStatus: 'INACTIVE',
        startDate: '2020-01-01',
        endDate: '2024-03-01',
        rolePerson: person,
      },
    ]).roles;
    const { roles } = replace(
      [
        {
          uniqueIdentifier: ended[0]!.uniqueIdentifier,
          roleType: 'Director',
          roleStatus: 'ACTIVE',
          rolePerson: person,
        },
      ],
      ended,
    );
    expect(roles).toEqual([expect.objectContaining({ roleStatus: 'ACTIVE', endDate: null })]);
  });
});

describe('roles: the business number of a roleEntity', () => {
  const entity = (nzbn: string | null) => ({ nzbn, entityName: 'KAHU HOLDINGS LIMITED' });

  it('must carry the GS1 check digit, like every other business number', () => {
    expect(() =>
      replace([
        { roleType: 'Director', rolePerson: person },
        { roleType: 'Shareholder', roleEntity: entity('9429000001008') },
      ]),
    ).toThrow(new RuleError('1.roleEntity.nzbn', 'wrong check digit, expected 7'));
    expect(() => replace([{ roleType: 'Shareholder', roleEntity: entity('942900000100') }])).toThrow(
      new RuleError('0.roleEntity.nzbn', 'not 13 digits'),
    );
  });

  it('may be a valid GLN or null', () => {
    const { roles } = replace([
      { roleType: 'Shareholder', roleEntity: entity(FIXTURE.company) },
      { roleType: 'Shareholder', roleEntity: entity(null) },
      { roleType: 'Shareholder', roleEntity: { entityName: 'NO NUMBER LIMITED' } },
    ]);
    expect(roles.map((r) => r.roleEntity?.nzbn)).toEqual([FIXTURE.company, null, null]);
  });
});

describe('POST /entities/{nzbn}/roles and PUT …/roles/{id} refuse these roles, naming the field', () => {
  let t: NzbnTest;
  beforeAll(async () => {
    t = await nzbnTest();
  });
  afterAll(() => t?.close());

  const E = FIXTURE.authority;
  // The published operations: one role appointed (POST) or changed (PUT …/roles/{id}) at a time.
  const post = (payload: unknown) =>
    t.call('POST', `/entities/${E}/roles`, { token: t.owner.token, payload });
  const put = (id: string, payload: unknown) =>
    t.call('PUT', `/entities/${E}/roles/${id}`, { token: t.owner.token, payload });
  const roles = async () =>
    (await t.call('GET', `/entities/${E}`, { token: t.owner.token })).json().roles as {
      uniqueIdentifier: string;
    }[];

  it('answers 400 on endDate and roleEntity.nzbn and changes nothing', async () => {
    const before = await roles();
    const active = await post({
      roleType: 'Director',
      roleStatus: 'ACTIVE',
      endDate: '2024-03-01',
      rolePerson: person,
    });
    expect(active.statusCode, active.body).toBe(400);
    expect(active.json().list).toEqual([{ field: 'endDate', message: ACTIVE_WITH_END }]);
    const wrongDigit = await post({
      roleType: 'Shareholder',
      roleEntity: { nzbn: '9429000001008', entityName: 'KAHU LIMITED' },
    });
    expect(wrongDigit.statusCode, wrongDigit.body).toBe(400);
    expect(wrongDigit.json().list).toEqual([
      { field: 'roleEntity.nzbn', message: 'wrong check digit, expected 7' },
    ]);
    expect(await roles()).toEqual(before);
    const good = await post({
      roleType: 'Shareholder',
      roleEntity: { nzbn: FIXTURE.company, entityName: 'KAHU LIMITED' },
    });
    expect(good.statusCode, good.body).toBe(201);
    expect(good.json()).toEqual(
      expect.objectContaining({ roleEntity: { nzbn: FIXTURE.company, entityName: 'KAHU LIMITED' } }),
    );
    const id = good.json().uniqueIdentifier as string;
    const activeEnded = await put(id, {
      roleType: 'Shareholder',
      roleStatus: 'ACTIVE',
      endDate: '2024-03-01',
      roleEntity: { nzbn: FIXTURE.company, entityName: 'KAHU LIMITED' },
    });
    expect(activeEnded.statusCode, activeEnded.body).toBe(400);
    expect(activeEnded.json().list).toEqual([{ field: 'endDate', message: ACTIVE_WITH_END }]);
    // The path names the role: an identifier in the body is not read.
    const otherId = await put(id, { uniqueIdentifier: '1', roleType: 'Shareholder' });
    expect(otherId.statusCode, otherId.body).toBe(200);
    expect(otherId.json()).toMatchObject({ uniqueIdentifier: id, roleEntity: { nzbn: FIXTURE.company } });
  });

  it('POST /entities names the same fields under roles.', async () => {
    const response = await t.call('POST', '/entities', {
      token: t.stranger.token,
      payload: {
        entityTypeCode: 'Partnership',
        entityName: 'Kahu Partners',
        roles: [{ roleType: 'Partner', roleEntity: { nzbn: '9429000001008', entityName: 'KAHU LIMITED' } }],
      },
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().list[0]).toEqual({
      field: 'roles.0.roleEntity.nzbn',
      message: 'wrong check digit, expected 7',
    });
  });

  it('search takes entity-type names in any case', async () => {
    const search = async (type: string) => {
      const response = await t.call(
        'GET',
        `/entities?search-term=sandbox%20test&entity-type=${type}&page-size=50`,
      );
      expect(response.statusCode, response.body).toBe(200);
      return response.json().items as { entityTypeCode: string }[];
    };
    const canonical = await search('NZCompany');
    expect(canonical.length).toBeGreaterThan(0);
    expect(await search('nzcompany')).toEqual(canonical);
    const limited = await search('ltd');
    expect(limited.length).toBeGreaterThan(0);
    expect(new Set(limited.map((i) => i.entityTypeCode))).toEqual(new Set(['LTD']));
  });
});
