import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { type JobsHandle, startJobs } from '../../src/runtime.ts';
import { type PpsrTest, ppsrTest, registration, requestId } from '../services/ppsr/support/api.ts';
import { terminateDuringLoad } from '../support/database-faults.ts';
import { subscriber } from '../support/runtime.ts';

/**
 * The registers built after the first fault run survive their database too: the secured
 * interests register's registrations (one transaction of record, work and outcome, idempotent by request
 * id) and searches, and reads of the IP office (a client search, a streamed XML list) and rental statistics, while every
 * backend is ended again and again. Every answer is a success, a 4xx of the register's own rules, or a 503
 * with Retry-After in problem+json; an acknowledged registration is never lost; a refused one left nothing
 * behind, so sending it again under the same request id makes exactly one registration and one fee.
 */

function expect503AsProblem(response: LightMyRequestResponse): void {
  expect(Number(response.headers['retry-after']), response.body).toBeGreaterThan(0);
  expect(response.headers['content-type']).toContain('application/problem+json');
  expect(response.json()).toMatchObject({ status: 503, type: 'about:blank#service-unavailable' });
}

describe('the new registers while PostgreSQL ends every connection', () => {
  let t: PpsrTest;
  let jobs: JobsHandle;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    t = await ppsrTest({ env: { RSG_PPSR_USER_RATE_LIMIT: '0' } });
    for (const service of ['ppsr', 'iponz', 'market-rent']) {
      await updateProduct(t.gateway.runtime.gateway.pool, `sandbox-${service}`, {
        rateLimitPerMinute: 100_000,
      });
      keys[service] = (await subscriber(t.gateway, `sandbox-${service}`)).primaryKey;
    }
    jobs = await startJobs(t.gateway.runtime, 'http://127.0.0.1:8080');
  });
  afterAll(async () => {
    await jobs?.stop();
    await t?.close();
  });

  const read = (path: string, service: string) =>
    t.gateway.app.inject({
      method: 'GET',
      url: path,
      headers: { 'ocp-apim-subscription-key': keys[service]! },
    });

  it('registrations, searches and reads: only answers and 503s; acknowledged kept, refused resent once', async () => {
    const statuses = new Map<string, number>();
    const acknowledged = new Map<string, string>();
    const refused: string[] = [];
    const tally = (label: string, response: LightMyRequestResponse) => {
      const key = `${label} ${response.statusCode}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (response.statusCode === 503) expect503AsProblem(response);
      else expect(response.statusCode, `${label}: ${response.body}`).toBeLessThan(500);
    };
    const client = async (n: number) => {
      for (let i = 0; i < 40; i++) {
        const kind = (i + n) % 4;
        if (kind === 0) {
          const id = requestId();
          const response = await t.call('POST', '/financing-statements', {
            body: registration(),
            headers: { 'api-business-govt-nz-Request-Id': id },
          });
          tally('ppsr register', response);
          if (response.statusCode === 201) acknowledged.set(id, response.json().registrationNumber);
          else if (response.statusCode === 503) refused.push(id);
        } else if (kind === 1) {
          tally(
            'ppsr search',
            await t.call('POST', '/financing-statements-search', {
              body: {
                legitimateSearchReason: 'yes',
                searchBy: 'motorVehicle',
                searchByMotorVehicle: { registrationPlate: 'ABC123' },
              },
            }),
          );
        } else if (kind === 2) {
          tally('iponz', await read('/sandbox/iponz/v5/clients?name=ltd', 'iponz'));
          tally(
            'iponz',
            await read('/sandbox/iponz/v5/trademarks?start-date=2024-01-01&end-date=2024-12-31', 'iponz'),
          );
        } else {
          tally(
            'market-rent',
            await read('/sandbox/tenancy-services/market-rent/v2/area-definitions', 'market-rent'),
          );
        }
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(client));
    const answered = () => [...statuses.values()].reduce((a, b) => a + b, 0);
    const terminated = await terminateDuringLoad(t.gateway.urls, load, answered);
    // Serving again without a restart.
    await vi.waitFor(
      async () =>
        expect(
          (await read('/sandbox/tenancy-services/market-rent/v2/area-definitions', 'market-rent')).statusCode,
        ).toBe(200),
      { timeout: 5_000, interval: 100 },
    );
    console.log(
      `terminated ${terminated} backends: ${JSON.stringify(Object.fromEntries(statuses))}; ` +
        `registrations acknowledged ${acknowledged.size}, refused ${refused.length}`,
    );
    expect(terminated).toBeGreaterThan(0);
    expect([...statuses.keys()].some((key) => key.endsWith(' 503'))).toBe(true);
    expect(acknowledged.size).toBeGreaterThan(0);

    // The checks read the database on a connection of their own: the last round ended the pool's idle
    // connections, and the pool may not have heard so yet when a check borrows one.
    const sandbox = new pg.Client({ connectionString: t.gateway.urls.sandbox });
    await sandbox.connect();
    onTestFinished(() => sandbox.end());
    const oneOf = async (id: string) => {
      const fees = await sandbox.query('SELECT 1 FROM fee_records WHERE request_id = $1', [id]);
      const transactions = await sandbox.query<{ registration_number: string; status_code: number }>(
        'SELECT registration_number, status_code FROM ppsr_transactions WHERE request_id = $1',
        [id],
      );
      expect(fees.rowCount, `fees of ${id}`).toBe(1);
      expect(transactions.rows, `transactions of ${id}`).toHaveLength(1);
      expect(transactions.rows[0]!.status_code).toBe(200);
      return transactions.rows[0]!.registration_number;
    };
    // The secured interests register serves again too (the read above was another register's).
    const [, firstNumber] = [...acknowledged][0]!;
    await vi.waitFor(
      async () => expect((await t.call('GET', `/financing-statements/${firstNumber}`)).statusCode).toBe(200),
      { timeout: 5_000, interval: 100 },
    );
    // Nothing acknowledged is lost.
    for (const [id, number] of acknowledged) {
      expect(await oneOf(id)).toBe(number);
      expect((await t.call('GET', `/financing-statements/${number}`)).statusCode).toBe(200);
    }
    // A refused registration left nothing half-written: sent again under its request id, it makes exactly one
    // registration and one fee (or answers the one a commit that raced the fault made).
    for (const id of refused) {
      const again = await t.call('POST', '/financing-statements', {
        body: registration(),
        headers: { 'api-business-govt-nz-Request-Id': id },
      });
      expect(again.statusCode, again.body).toBe(201);
      expect(await oneOf(id)).toBe(again.json().registrationNumber);
    }
    // Every registration has its search keys and its first version (nothing half-written).
    const orphans = await sandbox.query(
      `SELECT s.registration_number FROM ppsr_financing_statements s
        WHERE s.organisation_id IS NOT NULL
          AND (NOT EXISTS (SELECT 1 FROM ppsr_financing_statement_versions v WHERE v.registration_number = s.registration_number)
            OR NOT EXISTS (SELECT 1 FROM ppsr_transactions x WHERE x.registration_number = s.registration_number))`,
    );
    expect(orphans.rows).toEqual([]);
    await jobs.settle();
  });
});
