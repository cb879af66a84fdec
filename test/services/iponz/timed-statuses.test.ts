import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { nzDate } from '../../../src/platform/calendar.ts';
import { advanceClock, setClock } from '../../../src/platform/environment-clocks.ts';
import { TimedStatuses } from '../../../src/services/iponz/jobs/timed-statuses.ts';
import { subscriber, type TestGateway, testGateway } from '../../support/runtime.ts';

/**
 * The daily pass on the sandbox clock: cases whose fee went unpaid or whose term ended take the status
 * the law gives them, each step a history row with its date, visible at once through the REST XML; a
 * case renewed in time, or in a status time does not move, is left alone; a second pass the same day
 * moves nothing.
 */
let t: TestGateway;
let key: string;
let pass: TimedStatuses;
const sandbox = () => t.runtime.environments.sandbox.pool;

beforeAll(async () => {
  t = await testGateway({ clockMode: 'virtual' });
  await setClock(t.runtime.gateway.pool, 'sandbox', '2020-03-10T00:00:00Z');
  // The runtime's clocks follow a change by a notice; read it now, not when the notice arrives.
  await t.runtime.clocks.reload();
  key = (await subscriber(t, 'sandbox-iponz')).primaryKey;
  pass = new TimedStatuses(t.runtime.environments.sandbox, t.runtime.clocks.for('sandbox'));
  const cases: [string, number, string, string, string | null][] = [
    // kind, number, status, term date, last renewal due date
    ['trademark', 990001, 'Registered', '2010-03-15', null], // due 2020-03-15, unpaid
    ['trademark', 990002, 'Registered', '2010-03-15', '2020-03-15'], // renewed
    ['patent', 990003, 'Granted', '2010-01-10', '2019-01-10'], // 9th paid; 10th due 2020-01-10, grace to 2020-07-10
    ['design', 990004, 'Registered', '2005-03-12', '2015-03-12'], // both renewals paid: expires after 2020-03-12
    ['trademark', 990005, 'Withdrawn', '2001-01-01', null],
  ];
  for (const [kind, number, status, term, last] of cases) {
    await sandbox().query(
      `INSERT INTO iponz_cases (kind, case_number, title, status, status_date, application_date, term_date,
                                registration_date, last_renewal_due_date, updated_at, updated_on)
       VALUES ($1, $2, $6, $3, $4, $4, $4, $4, $5, now(), current_date)`,
      [kind, number, status, term, last, `TIMED ${number}`],
    );
    await sandbox().query(
      `INSERT INTO iponz_status_history (kind, case_number, seq, status, status_date, recorded_at)
       VALUES ($1, $2, 1, $3, $4, now())`,
      [kind, number, status, term],
    );
  }
});
afterAll(() => t?.close());

const statusOf = async (kind: string, number: number) =>
  (
    await sandbox().query<{ status: string; status_date: string; version: number }>(
      'SELECT status, status_date::text AS status_date, version FROM iponz_cases WHERE kind = $1 AND case_number = $2',
      [kind, number],
    )
  ).rows[0]!;
const historyOf = async (kind: string, number: number) =>
  (
    await sandbox().query<{ status: string; status_date: string }>(
      `SELECT status, status_date::text AS status_date FROM iponz_status_history
        WHERE kind = $1 AND case_number = $2 ORDER BY seq`,
      [kind, number],
    )
  ).rows.map((row) => [row.status, row.status_date]);

/** Moves the sandbox clock and waits until this process's clock reads the new date. */
async function advance(duration: string, date: string): Promise<void> {
  await advanceClock(t.runtime.gateway.pool, 'sandbox', duration);
  const clock = t.runtime.clocks.for('sandbox');
  await vi.waitFor(() => expect(nzDate(clock.now().getTime())).toBe(date));
}

describe('statuses the sandbox clock moves', () => {
  it('moves nothing before its day, then each case on its own date, once', async () => {
    expect(await pass.run()).toBe(0);
    expect((await statusOf('trademark', 990001)).status).toBe('Registered');

    await advance('7d', '2020-03-17');
    expect(await pass.run()).toBe(2);
    expect(await statusOf('trademark', 990001)).toMatchObject({
      status: 'Registered - past expiry date',
      status_date: '2020-03-16',
      version: 2,
    });
    expect(await statusOf('design', 990004)).toMatchObject({ status: 'Expired', status_date: '2020-03-13' });
    expect((await statusOf('trademark', 990002)).status).toBe('Registered');
    expect((await statusOf('patent', 990003)).status).toBe('Granted');
    // The same day again: nothing to do.
    expect(await pass.run(true)).toBe(0);

    // Seen at once through the REST XML (the case cache hears the change).
    const read = await t.app.inject({
      method: 'GET',
      url: '/sandbox/iponz/v5/trademarks/990001',
      headers: { 'ocp-apim-subscription-key': key, accept: 'application/json' },
    });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().TradeMark.MarkCurrentStatusCode).toBe('Registered - past expiry date');

    await advance('365d', '2021-03-17');
    expect(await pass.run()).toBe(2);
    expect(await historyOf('trademark', 990001)).toEqual([
      ['Registered', '2010-03-15'],
      ['Registered - past expiry date', '2020-03-16'],
      ['Removed', '2020-09-16'],
    ]);
    expect(await statusOf('patent', 990003)).toMatchObject({ status: 'Lapsed', status_date: '2020-07-11' });
    expect((await statusOf('trademark', 990005)).status).toBe('Withdrawn');
    expect((await statusOf('trademark', 990002)).status).toBe('Registered');
  });
});
