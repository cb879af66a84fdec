import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/testing/index.ts';
import type { Sandbox } from '../../src/testing/types.ts';
import { pgServerUrl } from '../support/runtime.ts';

/**
 * The harness (src/testing/) on the run's server: two sandboxes side by side, each with its own
 * databases copied from one template, and the reset, snapshots, restores and clock a suite drives.
 */
const UPDATABLE = '9429000003025';
// A reset, snapshot or restore copies the sandbox database (about 80 MB): well under a second on an idle
// machine, several on a busy one; a test making three of them says so.
const STATES_TIMEOUT = 120_000;
const ABN = '51824753556';

let one: Sandbox;
let two: Sandbox;
const tokens = new Map<Sandbox, string>();

const entity = async (sandbox: Sandbox, key = sandbox.keys.nzbn) => {
  const response = await fetch(`${sandbox.registers.nzbn}/entities/${UPDATABLE}`, {
    headers: { 'Ocp-Apim-Subscription-Key': key },
  });
  return { status: response.status, body: (await response.json()) as { australianBusinessNumber?: unknown } };
};

const updateAbn = async (sandbox: Sandbox, abn: string | null) => {
  const response = await fetch(
    `${sandbox.registers.nzbn}/entities/${UPDATABLE}/action-update-australian-business-numbers`,
    {
      method: 'POST',
      headers: {
        'Ocp-Apim-Subscription-Key': sandbox.keys.nzbn,
        Authorization: `Bearer ${tokens.get(sandbox)}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ australianBusinessNumber: abn }),
    },
  );
  expect(response.status, await response.clone().text()).toBe(200);
};

beforeAll(async () => {
  // Started together, as two workers of a suite would: the first to come makes the template.
  [one, two] = await Promise.all([
    startSandbox({ databaseUrl: pgServerUrl() }),
    startSandbox({ databaseUrl: pgServerUrl() }),
  ]);
  for (const sandbox of [one, two]) {
    const user = await sandbox.user({ authorities: [{ service: 'nzbn', kind: 'entity', id: UPDATABLE }] });
    tokens.set(sandbox, user.token);
  }
}, 600_000);
afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
});

describe('startSandbox', () => {
  it('two harnesses in parallel do not see each other’s writes', async () => {
    expect(one.url).not.toBe(two.url);
    const before = (await entity(two)).body.australianBusinessNumber;
    await updateAbn(one, ABN);
    expect((await entity(one)).body.australianBusinessNumber).toBe(ABN);
    expect((await entity(two)).body.australianBusinessNumber).toBe(before);
    // Nor each other's keys: each has its own gateway database.
    expect((await entity(two, one.keys.nzbn)).status).toBe(401);
  });

  it(
    'resets, keeps a snapshot and restores it; keys stay valid',
    async () => {
      await updateAbn(two, ABN);
      await two.snapshot('changed');
      await two.reset();
      const reset = await entity(two);
      expect(reset.status).toBe(200);
      expect(reset.body.australianBusinessNumber).not.toBe(ABN);
      await two.restore('changed');
      expect((await entity(two)).body.australianBusinessNumber).toBe(ABN);
      // The user's token and authority live in the gateway database, which a reset keeps.
      await updateAbn(two, null);
    },
    STATES_TIMEOUT,
  );

  it(
    'brings the clock back with a restore, and to the start with a reset',
    async () => {
      const start = (await one.clock.read()).now.getTime();
      expect((await one.clock.read()).mode).toBe('virtual');
      await one.snapshot('before-the-month');
      const advanced = await one.clock.advance('31d');
      expect(advanced.now.getTime()).toBeGreaterThanOrEqual(start + 31 * 86_400_000);
      await one.restore('before-the-month');
      const restored = (await one.clock.read()).now.getTime();
      expect(restored).toBeLessThan(start + 86_400_000);
      await one.clock.set('2030-01-01T00:00:00Z');
      await one.reset();
      expect((await one.clock.read()).now.getTime()).toBeLessThan(start + 86_400_000);
    },
    STATES_TIMEOUT,
  );

  it('refuses options it does not know how to honour', async () => {
    await expect(startSandbox({ scale: 'huge' as 'small' })).rejects.toThrow(/scale must be/);
    await expect(startSandbox({ clock: 'real', clockAt: '2026-01-01T00:00:00Z' })).rejects.toThrow(
      /clockAt needs the virtual clock/,
    );
  });
});
