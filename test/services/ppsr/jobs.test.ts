import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobContext } from '../../../src/services/contract.ts';
import { startPpsrJobs } from '../../../src/services/ppsr/jobs/index.ts';
import { type PpsrTest, ppsrTest, registration } from './support/api.ts';

/**
 * The register's job: verification statements written by changes are mailed once (to each secured
 * party) and marked sent; a transaction left processing by a process that ended is failed with 500.
 */
let test: PpsrTest;
beforeAll(async () => {
  test = await ppsrTest({ env: { RSG_PPSR_USER_RATE_LIMIT: '0' } });
}, 120_000);
afterAll(async () => test?.close());

function context(sent: { to: string; subject: string }[]): JobContext {
  return {
    environment: 'sandbox',
    database: test.gateway.runtime.environments.sandbox,
    clock: test.gateway.runtime.clocks.for('sandbox'),
    apiBase: 'http://127.0.0.1/sandbox/ppsr/v2',
    mail: async (message) => void sent.push(message),
    onClockMoved: () => {},
    keyedUniform: () => 0.5,
    settings: { platformTimeoutMs: 180_000, sandboxDelayMs: 0 },
    registers: {},
    log: { info: () => {}, error: () => {} },
  };
}

describe('verification statements', () => {
  it('are mailed once to each secured party and marked sent', async () => {
    const created = await test.call('POST', '/financing-statements', {
      body: registration({
        securedParties: [
          { name: 'First Lender', email: 'first@example.test' },
          { name: 'Second Lender', email: 'second@example.test' },
        ],
      }),
    });
    const number = created.json().registrationNumber as string;
    const sent: { to: string; subject: string }[] = [];
    const jobs = startPpsrJobs(context(sent));
    await jobs.settle();
    await jobs.settle();
    await jobs.stop();
    const mine = sent.filter((m) => m.subject.includes(number));
    expect(mine.map((m) => m.to).sort()).toEqual(['first@example.test', 'second@example.test']);
    const unsent = await test.gateway.runtime.environments.sandbox.pool.query(
      'SELECT count(*)::int AS n FROM ppsr_verification_statements WHERE registration_number = $1 AND sent_at IS NULL',
      [number],
    );
    expect(unsent.rows[0].n).toBe(0);
  });

  it('fails a transaction abandoned mid-way with 500, and SEC_56 then finds it', async () => {
    const pool = test.gateway.runtime.environments.sandbox.pool;
    const organisation = (await test.call('GET', '/customer-organisation')).json().organisationId as string;
    const long = new Date(test.gateway.runtime.clocks.for('sandbox').now().getTime() - 3 * 3_600_000);
    await pool.query(
      `INSERT INTO ppsr_transactions (organisation_id, request_id, operation, request_hash, correlation_id, received_at)
       VALUES ($1, 'abandoned-1', 'PPSR_17', '\\x00', gen_random_uuid(), $2)`,
      [organisation, long],
    );
    expect(
      (await test.call('GET', '/customer-organisation-transactions?request-id=abandoned-1')).json()
        .transactions,
    ).toEqual([]);
    const jobs = startPpsrJobs(context([]));
    await jobs.settle();
    await jobs.stop();
    const found = (
      await test.call('GET', '/customer-organisation-transactions?request-id=abandoned-1')
    ).json().transactions;
    expect(found.map((t: { statusCode: number }) => t.statusCode)).toEqual([500]);
  });
});
