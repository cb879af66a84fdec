import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  maintenanceWindowAt,
  newZealandIso,
  newZealandOffsetMs,
} from '../../src/gateway/domain/maintenance.ts';
import { setClock } from '../../src/platform/environment-clocks.ts';
import { seedBusinessNumbers } from '../support/business-numbers.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

const HOUR = 3_600_000;
const window = (iso: string) => {
  const found = maintenanceWindowAt(new Date(iso));
  return found && { start: found.start.toISOString(), end: found.end.toISOString() };
};

describe('maintenanceWindowAt', () => {
  // Summer (NZDT, +13): Wednesday 21:00–23:00 is 08:00–10:00 UTC.
  const summer = { start: '2026-01-14T08:00:00.000Z', end: '2026-01-14T10:00:00.000Z' };
  // Winter (NZST, +12): Wednesday 21:00–23:00 is 09:00–11:00 UTC.
  const winter = { start: '2026-07-15T09:00:00.000Z', end: '2026-07-15T11:00:00.000Z' };

  it.each([
    ['summer, Wednesday 20:59 NZDT', '2026-01-14T07:59:00Z', null],
    ['summer, Wednesday 21:00 NZDT', '2026-01-14T08:00:00Z', summer],
    ['summer, Wednesday 22:59:59.999 NZDT', '2026-01-14T09:59:59.999Z', summer],
    ['summer, Wednesday 23:00 NZDT', '2026-01-14T10:00:00Z', null],
    ['winter, Wednesday 20:59 NZST', '2026-07-15T08:59:00Z', null],
    ['winter, Wednesday 21:00 NZST', '2026-07-15T09:00:00Z', winter],
    ['winter, Wednesday 22:59 NZST', '2026-07-15T10:59:00Z', winter],
    ['winter, Wednesday 23:00 NZST', '2026-07-15T11:00:00Z', null],
    ['Tuesday 21:30 NZDT', '2026-01-13T08:30:00Z', null],
    ['Thursday 21:30 NZDT', '2026-01-15T08:30:00Z', null],
    // 22:00 UTC on Wednesday is Thursday morning in New Zealand.
    ['Wednesday 21:30 UTC (Thursday in New Zealand)', '2026-01-14T21:30:00Z', null],
  ])('%s', (_label, at, expected) => {
    expect(window(at)).toEqual(expected);
  });

  it('follows the change to standard time (Sunday 5 April 2026, 03:00 NZDT → 02:00 NZST)', () => {
    // The Wednesday before: still daylight time.
    expect(window('2026-04-01T08:00:00Z')).toEqual({
      start: '2026-04-01T08:00:00.000Z',
      end: '2026-04-01T10:00:00.000Z',
    });
    // The Wednesday after: standard time, so 08:30 UTC is 20:30 (outside), not 21:30.
    expect(window('2026-04-08T08:30:00Z')).toBeNull();
    expect(window('2026-04-08T10:30:00Z')).toEqual({
      start: '2026-04-08T09:00:00.000Z',
      end: '2026-04-08T11:00:00.000Z',
    });
    expect(newZealandOffsetMs(new Date('2026-04-04T13:59:59Z'))).toBe(13 * HOUR);
    expect(newZealandOffsetMs(new Date('2026-04-04T14:00:00Z'))).toBe(12 * HOUR);
  });

  it('follows the change to daylight time (Sunday 27 September 2026, 02:00 NZST → 03:00 NZDT)', () => {
    expect(window('2026-09-23T09:00:00Z')).toEqual({
      start: '2026-09-23T09:00:00.000Z',
      end: '2026-09-23T11:00:00.000Z',
    });
    // The Wednesday after: daylight time, so 10:30 UTC is 23:30 (outside), not 22:30.
    expect(window('2026-09-30T10:30:00Z')).toBeNull();
    expect(window('2026-09-30T08:00:00Z')).toEqual({
      start: '2026-09-30T08:00:00.000Z',
      end: '2026-09-30T10:00:00.000Z',
    });
  });

  it('any instant: either outside, or inside a two-hour window starting Wednesday 21:00 NZ', () => {
    const instants = fc.date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2060-01-01T00:00:00Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instants, (now) => {
        const found = maintenanceWindowAt(now);
        const local = newZealandIso(now);
        const wednesday = new Date(`${local.slice(0, 10)}T00:00:00Z`).getUTCDay() === 3;
        const hour = Number(local.slice(11, 13));
        expect(found !== null).toBe(wednesday && hour >= 21 && hour < 23);
        if (found) {
          expect(found.start.getTime()).toBeLessThanOrEqual(now.getTime());
          expect(found.end.getTime()).toBeGreaterThan(now.getTime());
          expect(found.end.getTime() - found.start.getTime()).toBe(2 * HOUR);
          expect(newZealandIso(found.start).slice(10, 19)).toBe('T21:00:00');
          expect(newZealandIso(found.end).slice(10, 19)).toBe('T23:00:00');
        }
      }),
    );
  });

  it('prints New Zealand time with its offset', () => {
    expect(newZealandIso(new Date('2026-01-14T10:00:00Z'))).toBe('2026-01-14T23:00:00+13:00');
    expect(newZealandIso(new Date('2026-07-15T11:00:00Z'))).toBe('2026-07-15T23:00:00+12:00');
  });
});

const NZBN = '/sandbox/nzbn/v5/entities/9429000001007';
const MARKET_RENT = '/sandbox/tenancy-services/market-rent/v2';
/** Wednesday 14 January 2026, 22:30 NZDT: half an hour before the window ends. */
const INSIDE = '2026-01-14T09:30:00Z';
const WINDOW_END = '2026-01-14T23:00:00+13:00';

interface Setup {
  gateway: TestGateway;
  nzbnKey: string;
  marketRentKey: string;
  productionKey: string;
  operatorKey: string;
}

async function setup(env: Record<string, string>): Promise<Setup> {
  const gateway = await testGateway({ env, clockMode: 'virtual' });
  // The fixed test businesses only: enough for a 200 from /entities/{nzbn}.
  await seedBusinessNumbers(gateway, 0);
  await setClock(gateway.runtime.gateway.pool, 'sandbox', INSIDE);
  await gateway.runtime.clocks.reload();
  return {
    gateway,
    nzbnKey: (await subscriber(gateway, 'sandbox-nzbn')).primaryKey,
    marketRentKey: (await subscriber(gateway, 'sandbox-market-rent')).primaryKey,
    productionKey: (await subscriber(gateway, 'production-nzbn')).primaryKey,
    operatorKey: (await subscriber(gateway, 'sandbox-nzbn', { operator: true })).primaryKey,
  };
}

const get = (gateway: TestGateway, url: string, key?: string) =>
  gateway.app.inject({
    method: 'GET',
    url,
    headers: key ? { 'Ocp-Apim-Subscription-Key': key } : {},
  });

describe.skipIf(process.env.RSG_TEST_UNIT === '1')('simulated maintenance window', () => {
  describe('off (the default)', () => {
    let off: Setup;
    beforeAll(async () => {
      off = await setup({});
    });
    afterAll(() => off?.gateway.close());

    it('sandbox calls inside the window are answered as usual', async () => {
      expect(off.gateway.runtime.config.sandboxMaintenance).toBe(false);
      expect((await get(off.gateway, NZBN, off.nzbnKey)).statusCode).toBe(200);
      expect((await get(off.gateway, `${MARKET_RENT}/area-definitions`, off.marketRentKey)).statusCode).toBe(
        200,
      );
    });
  });

  describe('on', () => {
    let on: Setup;
    beforeAll(async () => {
      on = await setup({ RSG_SANDBOX_MAINTENANCE: 'on' });
    });
    afterAll(() => on?.gateway.close());

    it('a business number call → 503, Retry-After to 23:00 NZ, the business number dialect', async () => {
      const response = await get(on.gateway, NZBN, on.nzbnKey);
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      const retryAfter = Number(response.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(30 * 60);
      const body = response.json();
      expect(body).toEqual({
        status: '503',
        errorCode: 'scheduled-maintenance',
        errorDescription: expect.stringContaining('scheduled maintenance window'),
        list: [],
      });
      expect(body.errorDescription).toContain(`ends at ${WINDOW_END} (2026-01-14T10:00:00.000Z)`);
      expect(body.errorDescription).toContain(`try again in ${retryAfter} seconds`);
    });

    it('a rental statistics call → 503 as problem+json', async () => {
      const response = await get(
        on.gateway,
        `${MARKET_RENT}/statistics?period-ending=2025-12&num-months=12&area-definition=REGC2019`,
        on.marketRentKey,
      );
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(response.json()).toEqual({
        type: 'about:blank#scheduled-maintenance',
        title: 'Service Unavailable',
        status: 503,
        detail: expect.stringContaining(`ends at ${WINDOW_END}`),
        instance: `${MARKET_RENT}/statistics`,
      });
    });

    it('the key is checked first: no key or a wrong key is still a 401', async () => {
      const missing = await get(on.gateway, NZBN);
      expect(missing.statusCode).toBe(401);
      expect(missing.json().statusCode).toBe(401);
      const wrongService = await get(on.gateway, NZBN, on.marketRentKey);
      expect(wrongService.statusCode).toBe(401);
    });

    it('production, health, OpenAPI documents, unknown paths and admin routes are not affected', async () => {
      // Production runs on real time, whatever the sandbox clock says; its database is empty.
      const production = await get(on.gateway, '/gateway/nzbn/v5/entities/9429000001007', on.productionKey);
      expect(production.statusCode).toBe(404);
      expect(production.json().status).toBe('404');
      expect((await get(on.gateway, '/healthz')).statusCode).toBe(200);
      expect((await get(on.gateway, '/sandbox/nzbn/v5/openapi.json')).statusCode).toBe(200);
      const unknown = await get(on.gateway, '/sandbox/nzbn/v5/no-such-operation', on.nzbnKey);
      expect(unknown.statusCode).toBe(404);
      expect((await get(on.gateway, '/sandbox/admin/clock', on.operatorKey)).statusCode).toBe(200);
    });

    it('outside the window sandbox calls are answered as usual', async () => {
      const moved = await on.gateway.app.inject({
        method: 'PUT',
        url: '/sandbox/admin/clock',
        headers: { 'Ocp-Apim-Subscription-Key': on.operatorKey },
        payload: { time: '2026-01-14T10:00:00Z' }, // Wednesday 23:00 NZDT: the window has ended.
      });
      expect(moved.statusCode).toBe(200);
      expect((await get(on.gateway, NZBN, on.nzbnKey)).statusCode).toBe(200);
      expect((await get(on.gateway, `${MARKET_RENT}/area-definitions`, on.marketRentKey)).statusCode).toBe(
        200,
      );
      // A week later it is back.
      await setClock(on.gateway.runtime.gateway.pool, 'sandbox', '2026-01-21T08:00:00Z');
      await on.gateway.runtime.clocks.reload();
      const again = await get(on.gateway, NZBN, on.nzbnKey);
      expect(again.statusCode).toBe(503);
      expect(again.json().errorDescription).toContain('ends at 2026-01-21T23:00:00+13:00');
    });
  });
});
