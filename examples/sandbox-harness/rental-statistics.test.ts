import { type Sandbox, startSandbox } from 'register-services-gateway/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

// The rental statistics follow the sandbox clock: the latest period a query may end in is the month
// before last (docs/guide/rental-statistics.md), so moving the clock on opens a later one.
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ clock: 'virtual', clockAt: '2026-03-10T00:00:00Z' });
});
afterAll(() => sandbox?.stop());

const statistics = (periodEnding: string) =>
  fetch(
    `${sandbox.registers['market-rent']}/statistics?period-ending=${periodEnding}&num-months=1&area-definition=REGC2019`,
    { headers: { 'Ocp-Apim-Subscription-Key': sandbox.keys['market-rent'] } },
  );

it('opens a later period once the clock moves on', async () => {
  expect((await statistics('2026-02')).status).toBe(400);
  await sandbox.clock.advance('2mo');
  // The virtual clock runs on from where it was moved.
  expect((await sandbox.clock.read()).now.toISOString()).toMatch(/^2026-05-10T/);
  expect((await statistics('2026-02')).status).toBe(200);
});

it('puts the clock back where the sandbox started on a reset', async () => {
  await sandbox.reset();
  expect((await sandbox.clock.read()).now.getTime()).toBeLessThan(Date.parse('2026-03-10T00:01:00Z'));
  expect((await statistics('2026-02')).status).toBe(400);
});
