import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectFieldErrors,
  expectNo500,
  expectProblem,
  junkJson,
  junkObject,
  junkQuery,
  junkString,
  runs,
} from '../support/fuzz.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * "No 500s" for the sandbox admin routes (/sandbox/admin/clock …): any method, path, key, content type
 * and body gets a 2xx or a 4xx problem+json answer, and a refused move leaves the clock where it was.
 */
let gateway: TestGateway;
let operatorKey: string;
let plainKey: string;
let productionOperatorKey: string;

beforeAll(async () => {
  gateway = await testGateway({ clockMode: 'virtual' });
  operatorKey = (await subscriber(gateway, 'sandbox-nzbn', { operator: true })).primaryKey;
  plainKey = (await subscriber(gateway, 'sandbox-nzbn')).primaryKey;
  productionOperatorKey = (await subscriber(gateway, 'production-nzbn', { operator: true })).primaryKey;
});
afterAll(() => gateway?.close());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

async function send(options: {
  method: Method;
  url: string;
  key?: string;
  contentType?: string;
  payload?: string;
}): Promise<LightMyRequestResponse> {
  return gateway.app.inject({
    method: options.method,
    url: options.url,
    headers: {
      ...(options.key !== undefined ? { 'ocp-apim-subscription-key': options.key } : {}),
      ...(options.contentType ? { 'content-type': options.contentType } : {}),
    },
    ...(options.payload !== undefined ? { payload: options.payload } : {}),
  });
}

const json = (value: unknown) => JSON.stringify(value) ?? 'null';

function checkAnswer(response: LightMyRequestResponse, request: unknown) {
  expectNo500(response, request);
  if (response.statusCode >= 400 && request && typeof request === 'object') {
    if ((request as { method?: string }).method !== 'HEAD') expectProblem(response);
  }
  if (response.statusCode === 200 && (request as { method?: string }).method !== 'HEAD') {
    const body = response.json();
    expect(Number.isNaN(Date.parse(body.now))).toBe(false);
    expect(Number.isFinite(body.offsetMs)).toBe(true);
  }
}

async function reading() {
  const response = await send({ method: 'GET', url: '/sandbox/admin/clock', key: operatorKey });
  expect(response.statusCode).toBe(200);
  return response.json() as { now: string; offsetMs: number; frozen: boolean };
}

/** Puts the sandbox clock back at a fixed time (operator key). */
async function resetClock() {
  const response = await send({
    method: 'PUT',
    url: '/sandbox/admin/clock',
    key: operatorKey,
    contentType: 'application/json',
    payload: json({ time: '2026-11-22T09:00:00Z' }),
  });
  expect(response.statusCode).toBe(200);
}

describe('sandbox admin routes under random input', () => {
  it('any method, path, key and body: never a 500, errors as problem+json', async () => {
    const keyChoice = fc.oneof(
      { weight: 6, arbitrary: fc.constant<'operator'>('operator') },
      {
        weight: 3,
        arbitrary: fc.constantFrom<'plain' | 'production' | 'none'>('plain', 'production', 'none'),
      },
      { weight: 1, arbitrary: junkString.map((s) => s.slice(0, 500)) },
    );
    const path = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('/clock', '/clock/advance') },
      { weight: 1, arbitrary: fc.constantFrom('/clock/', '/clock/advance/', '/', '', '/clock/set') },
      { weight: 1, arbitrary: junkString.map((s) => `/${encodeURIComponent(s.slice(0, 300))}`) },
    );
    const body = fc.oneof(
      junkObject(['duration', 'time']).map(json),
      junkJson.map(json),
      junkString,
      fc.constantFrom('{', '{"duration":', '[', '"', '{"duration":"1h"}{', 'null'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom<Method>('GET', 'POST', 'PUT') },
          { weight: 1, arbitrary: fc.constantFrom<Method>('PATCH', 'DELETE', 'HEAD', 'OPTIONS') },
        ),
        path,
        fc.option(junkQuery(['subscription-key', 'duration', 'time']), { nil: undefined, freq: 3 }),
        keyChoice,
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/xml',
          '',
          'application/json; charset=latin-99',
        ),
        body,
        async (method, suffix, query, keyName, contentType, payload) => {
          const key =
            keyName === 'operator'
              ? operatorKey
              : keyName === 'plain'
                ? plainKey
                : keyName === 'production'
                  ? productionOperatorKey
                  : keyName === 'none'
                    ? undefined
                    : keyName.replace(/[\r\n]/g, '');
          const url = `/sandbox/admin${suffix}${query ? `?${query}` : ''}`;
          const withBody = method !== 'GET' && method !== 'HEAD';
          const request = {
            method,
            url,
            key,
            ...(withBody ? { contentType, payload } : {}),
          };
          let response: LightMyRequestResponse;
          try {
            response = await send(request);
          } catch (error) {
            // light-my-request refuses header values Node would never send; that is not the server's doing.
            if (error instanceof TypeError && /header/i.test(error.message)) return;
            throw error;
          }
          checkAnswer(response, request);
        },
      ),
      runs(20261122, 400),
    );
  });

  it('advance by random durations: 200 with a valid reading or 400 naming duration, clock unchanged', async () => {
    const number = fc.oneof(
      fc.nat({ max: 100 }).map(String),
      fc.constantFrom('0', '00', '1.5', '0.0000001', '1e3', '-1', '+1', '.5', '5.', '1,5', '١٢'),
      fc.bigInt({ min: 0n, max: 10n ** 25n }).map(String),
      fc.integer({ min: 1, max: 400_000_000 }).map(String),
    );
    const compact = fc
      .array(
        fc.tuple(
          number,
          fc.constantFrom('ms', 's', 'm', 'min', 'h', 'd', 'w', 'mo', 'y', 'M', 'MO', 'D', ' ', ''),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((parts) => parts.map(([n, u]) => `${n}${u}`).join(''));
    const iso = fc
      .tuple(
        fc.option(number),
        fc.option(number),
        fc.option(number),
        fc.option(number),
        fc.boolean(),
        fc.option(number),
        fc.option(number),
        fc.option(number),
      )
      .map(
        ([y, mo, w, d, t, h, mi, s]) =>
          `P${y !== null ? `${y}Y` : ''}${mo !== null ? `${mo}M` : ''}${w !== null ? `${w}W` : ''}${d !== null ? `${d}D` : ''}${t ? 'T' : ''}${h !== null ? `${h}H` : ''}${mi !== null ? `${mi}M` : ''}${s !== null ? `${s}S` : ''}`,
      );
    const duration = fc.oneof(compact, iso, junkString, junkJson);
    await fc.assert(
      fc.asyncProperty(fc.boolean(), duration, async (resetFirst, value) => {
        if (resetFirst) {
          await resetClock();
        }
        const before = await reading();
        const request = {
          method: 'POST' as const,
          url: '/sandbox/admin/clock/advance',
          key: operatorKey,
          contentType: 'application/json',
          payload: json({ duration: value }),
        };
        const response = await send(request);
        checkAnswer(response, request);
        if (response.statusCode === 400) {
          expectFieldErrors(expectProblem(response), 'duration');
        }
        if (response.statusCode >= 400) {
          const after = await reading();
          expect(after.offsetMs).toBe(before.offsetMs);
        }
      }),
      runs(4242, 180),
    );
  });

  it('set to random times: 200 with that time or 400 naming time; then advance stays sane', async () => {
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    const dateLike = fc
      .tuple(
        fc.integer({ min: 0, max: 99_999 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.constantFrom('Z', '+13:00', '-12:00', '+99:99', '', '.999Z', '.9999999999Z', 'z', ' GMT'),
      )
      .map(
        ([y, mo, d, h, mi, s, zone]) =>
          `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${zone}`,
      );
    const time = fc.oneof(
      dateLike,
      fc.constantFrom(
        '9999-12-31T23:59:59Z',
        '0000-01-01T00:00:00Z',
        '275760-09-13T00:00:00Z',
        '2026-02-30T00:00:00Z',
        '2026-11-22T',
        '2026-11-22',
        '+275760-09-13T00:00:00Z',
        '-000001-01-01T00:00:00Z',
      ),
      junkString,
      junkJson,
    );
    const then = fc.constantFrom('1ms', '1h', '7d', '1mo', 'P1Y', '100000000d', 'P300000Y', '99999999w');
    await fc.assert(
      fc.asyncProperty(time, then, async (value, step) => {
        const request = {
          method: 'PUT' as const,
          url: '/sandbox/admin/clock',
          key: operatorKey,
          contentType: 'application/json',
          payload: json({ time: value }),
        };
        const before = await reading();
        const response = await send(request);
        checkAnswer(response, request);
        if (response.statusCode === 400) {
          expectFieldErrors(expectProblem(response), 'time');
          expect((await reading()).offsetMs).toBe(before.offsetMs);
        }
        const advanced = {
          method: 'POST' as const,
          url: '/sandbox/admin/clock/advance',
          key: operatorKey,
          contentType: 'application/json',
          payload: json({ duration: step }),
        };
        const middle = await reading();
        const moved = await send(advanced);
        checkAnswer(moved, advanced);
        if (moved.statusCode >= 400) expect((await reading()).offsetMs).toBe(middle.offsetMs);
      }),
      runs(777, 100),
    );
  });

  it('regression: an advance past the last instant a date can hold is a 400, not a 500', async () => {
    await resetClock();
    const before = await reading();
    for (const duration of ['100000000d', 'P300000Y', '99999999999999999999ms']) {
      const response = await send({
        method: 'POST',
        url: '/sandbox/admin/clock/advance',
        key: operatorKey,
        contentType: 'application/json',
        payload: json({ duration }),
      });
      expect(response.statusCode).toBe(400);
      expect(expectProblem(response).errors).toEqual([{ field: 'duration', message: expect.any(String) }]);
    }
    expect((await reading()).offsetMs).toBe(before.offsetMs);
  });
});
