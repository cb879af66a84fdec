import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rsg, rsgProcess } from '../support/cli.ts';
import { servicesWithEcho } from '../support/echo-service.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';

let gateway: TestGateway;
beforeAll(async () => {
  // A running gateway with a virtual sandbox clock, and the CLI working on the same databases.
  gateway = await testGateway({ clockMode: 'virtual', app: { services: servicesWithEcho(['nzbn']) } });
});
afterAll(() => gateway?.close());

const echo = (key: string) =>
  gateway.app.inject({ url: '/sandbox/nzbn/v5/echo', headers: { 'Ocp-Apim-Subscription-Key': key } });

describe('rsg (operator commands)', () => {
  // The one test of the real entry point (bin/rsg.js in a process of its own); the rest run the same
  // dispatcher in this process (test/support/cli.ts).
  it('bin/rsg.js: help, a command, and a refusal with its exit status', async () => {
    const [help, added, refused] = await Promise.all([
      rsgProcess([]),
      rsgProcess(['users', 'add', '--email', 'process@example.test'], { urls: gateway.urls }),
      rsgProcess(['keys', 'regenerate', '--subscription', 'x', '--which', 'tertiary'], {
        urls: gateway.urls,
      }),
    ]);
    expect(help.code).toBe(2);
    expect(help.stdout).toMatch(/^rsg — Register Services Gateway\n\nUsage: rsg <command>/);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toMatch(/^added process@example.test \(/);
    expect(refused).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'rsg: --which must be primary or secondary\nRun "rsg help" for usage.\n',
    });
  }, 120_000); // three new processes, each loading the gateway's sources: slow on a busy machine

  it('users add, subscriptions create --json, keys regenerate --json', async () => {
    const added = await rsg(['users', 'add', '--email', 'Dev@Example.test', '--name', 'Dev'], {
      urls: gateway.urls,
    });
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toMatch(/^added dev@example.test/);

    const created = await rsg(
      ['subscriptions', 'create', '--user', 'dev@example.test', '--product', 'sandbox-nzbn', '--json'],
      {
        urls: gateway.urls,
      },
    );
    expect(created.code).toBe(0);
    const subscription = JSON.parse(created.stdout);
    expect(Object.keys(subscription).sort()).toEqual(['primaryKey', 'secondaryKey', 'subscriptionId']);
    expect(subscription.primaryKey).toMatch(/^[0-9a-f]{64}$/);
    expect((await echo(subscription.primaryKey)).statusCode).toBe(200);

    const regenerated = await rsg(
      ['keys', 'regenerate', '--subscription', subscription.subscriptionId, '--which', 'primary', '--json'],
      { urls: gateway.urls },
    );
    expect(regenerated.code).toBe(0);
    const { key } = JSON.parse(regenerated.stdout);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    await vi.waitFor(async () => expect((await echo(subscription.primaryKey)).statusCode).toBe(401), {
      timeout: 5000,
    });
    expect((await echo(key)).statusCode).toBe(200);
    expect((await echo(subscription.secondaryKey)).statusCode).toBe(200);

    const listed = await rsg(['subscriptions', 'list', '--user', 'dev@example.test', '--json'], {
      urls: gateway.urls,
    });
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        id: subscription.subscriptionId,
        productId: 'sandbox-nzbn',
        state: 'active',
        primaryKeyHint: key.slice(-4),
      }),
    ]);
  });

  it('subscriptions create says which paths its keys work on', async () => {
    await rsg(['users', 'add', '--email', 'scope@example.test'], { urls: gateway.urls });
    const created = await rsg(
      ['subscriptions', 'create', '--user', 'scope@example.test', '--product', 'production-nzbn'],
      { urls: gateway.urls },
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(
      /^subscription \S+ \(active\)\nprimary key: {3}[0-9a-f]{64}\nsecondary key: [0-9a-f]{64}\nthe keys work on \/gateway\/nzbn\/v5\/\.\.\. only \(the production environment\)\n$/,
    );
  });

  it('subscriptions scenario: set, shown, played on every call, cleared; refused in production', async () => {
    await rsg(['users', 'add', '--email', 'faults@example.test'], { urls: gateway.urls });
    const create = async (product: string) =>
      JSON.parse(
        (
          await rsg(
            ['subscriptions', 'create', '--user', 'faults@example.test', '--product', product, '--json'],
            {
              urls: gateway.urls,
            },
          )
        ).stdout,
      ) as { subscriptionId: string; primaryKey: string };
    const sandbox = await create('sandbox-nzbn');
    const scenario = (...args: string[]) =>
      rsg(['subscriptions', 'scenario', '--subscription', sandbox.subscriptionId, ...args], {
        urls: gateway.urls,
      });
    expect((await scenario()).stdout).toContain('no scenario; calls meet the register');
    const set = await scenario('--set', 'Throttled=7', '--json');
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      subscriptionId: sandbox.subscriptionId,
      scenario: 'throttled=7',
    });
    const throttled = await echo(sandbox.primaryKey);
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBe('7');
    const listed = await rsg(['subscriptions', 'list', '--user', 'faults@example.test'], {
      urls: gateway.urls,
    });
    expect(listed.stdout).toContain('scenario throttled=7');
    const cleared = await scenario('--clear');
    expect(cleared.stdout).toContain('no scenario');
    // The gateway hears of the change through LISTEN: the next calls meet the register.
    await vi.waitFor(async () => expect((await echo(sandbox.primaryKey)).statusCode).toBe(200), {
      timeout: 5000,
    });

    const wrong = await scenario('--set', 'meltdown');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^rsg: scenario: must be one of throttled\[=SECONDS\]/);
    const timeout = await scenario('--set', 'timeout');
    expect(timeout.stderr).toContain('cannot play timeout');
    expect((await scenario('--set', 'drop', '--clear')).code).toBe(2);
    const production = await create('production-nzbn');
    const refused = await rsg(
      ['subscriptions', 'scenario', '--subscription', production.subscriptionId, '--set', 'drop'],
      { urls: gateway.urls },
    );
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.stderr).toContain('sandbox only');
  });

  it('clear errors: unknown product, unknown user, bad flags, bad configuration', async () => {
    await rsg(['users', 'add', '--email', 'other@example.test'], { urls: gateway.urls });
    const product = await rsg(
      ['subscriptions', 'create', '--user', 'other@example.test', '--product', 'sandbox-nope'],
      {
        urls: gateway.urls,
      },
    );
    expect(product).toMatchObject({ code: 1, stderr: 'rsg: no product "sandbox-nope"\n' });
    const user = await rsg(
      ['subscriptions', 'create', '--user', 'nobody@example.test', '--product', 'sandbox-nzbn'],
      {
        urls: gateway.urls,
      },
    );
    expect(user.code).toBe(1);
    expect(user.stderr).toMatch(/^rsg: no user with the email nobody@example.test/);
    const flags = await rsg(['keys', 'regenerate', '--subscription', 'x', '--which', 'tertiary'], {
      urls: gateway.urls,
    });
    expect(flags).toMatchObject({ code: 2 });
    expect(flags.stderr).toMatch(/^rsg: --which must be primary or secondary/);
    // Not PostgreSQL's "invalid input syntax for type uuid": the argument and the rule.
    for (const args of [
      ['keys', 'regenerate', '--subscription', 'bogus', '--which', 'primary'],
      ['subscriptions', 'suspend', '--subscription', 'bogus'],
      ['subscriptions', 'usage', '--subscription', 'bogus'],
    ]) {
      const bogus = await rsg(args, { urls: gateway.urls });
      expect(bogus.code, args.join(' ')).toBe(2);
      expect(bogus.stderr).toMatch(/^rsg: --subscription must be a subscription id, a UUID/);
      expect(bogus.stderr).not.toMatch(/uuid:|invalid input syntax/);
    }
    const config = await rsg(['migrate'], { urls: gateway.urls, env: { PORT: 'eighty' } });
    expect(config).toMatchObject({
      code: 1,
      stderr: 'rsg: configuration error: PORT: must be a whole number from 0 to 65535, got "eighty"\n',
    });
  });

  it('seed creates the operator and a subscription to every sandbox product, once', async () => {
    const first = await rsg(['seed'], { urls: gateway.urls, env: { RSG_ADMIN_EMAIL: 'ops@example.test' } });
    expect(first.code).toBe(0);
    const keys = [...first.stdout.matchAll(/^ {2}(sandbox-[\w-]+)\s+\S+\s+([0-9a-f]{64})$/gm)];
    expect(keys.map((k) => k[1])).toEqual([
      'sandbox-nzbn',
      'sandbox-market-rent',
      'sandbox-iponz',
      'sandbox-ppsr',
      'sandbox-disclose',
    ]);
    expect((await echo(keys[0]![2]!)).statusCode).toBe(200);
    const second = await rsg(['seed'], { urls: gateway.urls, env: { RSG_ADMIN_EMAIL: 'ops@example.test' } });
    // Service generators may add a line each; the bootstrap itself is not repeated.
    expect(second.stdout.split('\n')[0]).toBe('the operator and sandbox subscriptions exist already');
    expect(second.stdout).not.toMatch(/[0-9a-f]{64}/);
    // Every register's small sandbox seed runs in a child process: a loaded machine needs the time.
  }, 180_000);
});

describe('the sandbox clock', () => {
  it('rsg clock advance moves the running gateway clock; production stays real', async () => {
    const clock = gateway.runtime.clocks.for('sandbox');
    const before = clock.now().getTime();
    const advanced = await rsg(['clock', 'advance', '450m'], { urls: gateway.urls });
    expect(advanced.code).toBe(0);
    expect(advanced.stdout).toMatch(/^sandbox clock: \d{4}-.*\(virtual, offset \d+ ms\)\n$/);
    await vi.waitFor(() => expect(clock.now().getTime() - before).toBeGreaterThanOrEqual(450 * 60_000), {
      timeout: 5000,
    });
    expect(Math.abs(gateway.runtime.clocks.for('production').now().getTime() - Date.now())).toBeLessThan(
      1000,
    );

    const set = await rsg(['clock', 'set', '2030-01-01T00:00:00Z'], { urls: gateway.urls });
    expect(set.code).toBe(0);
    await vi.waitFor(() => expect(clock.now().getUTCFullYear()).toBe(2030), { timeout: 5000 });

    const bad = await rsg(['clock', 'advance', 'soon'], { urls: gateway.urls });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/"soon" is not a duration/);
  });

  it('the admin route shows and moves the clock for an operator, and refuses others', async () => {
    const seeded = await rsg(['subscriptions', 'list', '--user', 'ops@example.test', '--json'], {
      urls: gateway.urls,
    });
    expect(JSON.parse(seeded.stdout).length).toBeGreaterThan(0);
    const operator = JSON.parse(
      (
        await rsg(
          ['subscriptions', 'create', '--user', 'ops@example.test', '--product', 'sandbox-nzbn', '--json'],
          { urls: gateway.urls },
        )
      ).stdout,
    );
    const headers = { 'Ocp-Apim-Subscription-Key': operator.primaryKey };
    const shown = await gateway.app.inject({ url: '/sandbox/admin/clock', headers });
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toMatchObject({ environment: 'sandbox', mode: 'virtual' });
    const before = Date.parse(shown.json().now);
    const moved = await gateway.app.inject({
      method: 'POST',
      url: '/sandbox/admin/clock/advance',
      headers,
      payload: { duration: 'PT20M' },
    });
    expect(moved.statusCode).toBe(200);
    expect(Date.parse(moved.json().now) - before).toBeGreaterThanOrEqual(20 * 60_000);
    expect(gateway.runtime.clocks.for('sandbox').now().getTime() - before).toBeGreaterThanOrEqual(
      20 * 60_000,
    );
    const set = await gateway.app.inject({
      method: 'PUT',
      url: '/sandbox/admin/clock',
      headers,
      payload: { time: '2031-05-01T00:00:00Z' },
    });
    expect(set.json().now).toMatch(/^2031-05-01T00:00:0/);

    const invalid = await gateway.app.inject({
      method: 'POST',
      url: '/sandbox/admin/clock/advance',
      headers,
      payload: { duration: 'later' },
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ status: 400, errors: [{ field: 'duration' }] });
    const missing = await gateway.app.inject({
      method: 'POST',
      url: '/sandbox/admin/clock/advance',
      headers,
      payload: {},
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors).toEqual([{ field: 'duration', message: 'is required' }]);

    await rsg(['users', 'add', '--email', 'plain@example.test'], { urls: gateway.urls });
    const plain = JSON.parse(
      (
        await rsg(
          ['subscriptions', 'create', '--user', 'plain@example.test', '--product', 'sandbox-nzbn', '--json'],
          { urls: gateway.urls },
        )
      ).stdout,
    );
    const refused = await gateway.app.inject({
      url: '/sandbox/admin/clock',
      headers: { 'Ocp-Apim-Subscription-Key': plain.primaryKey },
    });
    expect(refused.statusCode).toBe(403);
    expect((await gateway.app.inject({ url: '/sandbox/admin/clock' })).statusCode).toBe(401);
  });
});
