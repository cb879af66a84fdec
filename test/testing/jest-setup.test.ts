import { afterEach, expect, it } from 'vitest';
import { sandboxSetup } from '../../src/testing/jest/global-setup.js';
import globalTeardown from '../../src/testing/jest/global-teardown.js';
import { pgServerUrl } from '../support/runtime.ts';

/**
 * The Jest global setup and teardown (src/testing/jest/) in this process, as Jest's own process runs
 * them: one sandbox per worker with the options given, described in `RSG_JEST_SANDBOXES`, all stopped
 * at the teardown.
 */
const CLOCK_AT = '2029-04-01T00:00:00.000Z';

afterEach(() => globalTeardown());

it('starts a sandbox per worker with the options, and the teardown stops them', async () => {
  const setup = sandboxSetup({ databaseUrl: pgServerUrl(), jobs: false, clockAt: CLOCK_AT });
  await setup({ maxWorkers: 2 });
  const described = JSON.parse(process.env.RSG_JEST_SANDBOXES ?? 'null') as Array<{
    url: string;
    keys: Record<string, string>;
  }>;
  expect(described).toHaveLength(2);
  expect(new Set(described.map((sandbox) => sandbox.url)).size).toBe(2);
  for (const sandbox of described) {
    const response = await fetch(`${sandbox.url}/sandbox/admin/clock`, {
      headers: { 'Ocp-Apim-Subscription-Key': sandbox.keys.nzbn ?? '' },
    });
    expect(response.status).toBe(200);
    const now = Date.parse(((await response.json()) as { now: string }).now);
    expect(now - Date.parse(CLOCK_AT)).toBeGreaterThanOrEqual(0);
    expect(now - Date.parse(CLOCK_AT)).toBeLessThan(3_600_000);
  }
  await expect(setup({ maxWorkers: 1 })).rejects.toThrow(/already started/);

  await globalTeardown();
  expect(process.env.RSG_JEST_SANDBOXES).toBeUndefined();
  for (const sandbox of described)
    await expect(fetch(`${sandbox.url}/sandbox/admin/clock`)).rejects.toThrow();
}, 600_000);
