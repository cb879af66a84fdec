import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/testing/index.ts';
import type { JestSandbox, SandboxAdminError } from '../../src/testing/jest/sandbox.d.cts';
import type { Sandbox } from '../../src/testing/types.ts';
import { pgServerUrl } from '../support/runtime.ts';

/**
 * The helper Jest test files load (src/testing/jest/sandbox.cjs), against a sandbox of this process
 * described as the Jest global setup describes it: its worker, its reset, snapshots and clock over the
 * operator routes with the harness's key, and its refusals.
 */
const require = createRequire(import.meta.url);
const HELPER = require.resolve('../../src/testing/jest/sandbox.cjs');
type Helper = { sandbox(): JestSandbox; SandboxAdminError: typeof SandboxAdminError };
// A fresh copy each time, as each Jest test file gets: the helper keeps its sandbox once found.
const helper = (): Helper => {
  delete require.cache[HELPER];
  return require(HELPER) as Helper;
};
const STATES_TIMEOUT = 120_000;
// A business number the sandbox lets a user acting for it update (a fixed test case).
const UPDATABLE = '9429000003025';

let sandbox: Sandbox;
const saved = { list: process.env.RSG_JEST_SANDBOXES, worker: process.env.JEST_WORKER_ID };
const describeAs = (list: unknown, worker: string | undefined) => {
  process.env.RSG_JEST_SANDBOXES = typeof list === 'string' ? list : JSON.stringify(list);
  if (worker === undefined) delete process.env.JEST_WORKER_ID;
  else process.env.JEST_WORKER_ID = worker;
};
const described = () => {
  const { url, registers, keys, userId, scale } = sandbox;
  return { url, registers, keys, userId, scale };
};

const email = async (key = sandbox.keys.ppsr) => {
  const response = await fetch(`${sandbox.registers.ppsr}/customer-organisation`, {
    headers: { 'Ocp-Apim-Subscription-Key': key },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { email: string | null }).email;
};
const setEmail = async (value: string) => {
  const response = await fetch(`${sandbox.registers.ppsr}/customer-organisation`, {
    method: 'PUT',
    headers: { 'Ocp-Apim-Subscription-Key': sandbox.keys.ppsr, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: value }),
  });
  expect(response.status).toBe(200);
};

beforeAll(async () => {
  sandbox = await startSandbox({ databaseUrl: pgServerUrl(), jobs: false });
}, 600_000);
afterAll(() => sandbox?.stop());
afterEach(() => {
  for (const [name, value] of [
    ['RSG_JEST_SANDBOXES', saved.list],
    ['JEST_WORKER_ID', saved.worker],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe('the Jest helper', () => {
  it('is the worker’s sandbox, as the global setup described it', () => {
    const other = { ...described(), url: 'http://127.0.0.1:1' };
    describeAs([other, described()], '2');
    const mine = helper().sandbox();
    expect(mine.url).toBe(sandbox.url);
    expect(mine.registers).toEqual(sandbox.registers);
    expect(mine.keys).toEqual(sandbox.keys);
    describeAs([described()], undefined);
    expect(helper().sandbox().url).toBe(sandbox.url);
  });

  it(
    'keeps, restores and resets over the operator routes with the harness’s key',
    async () => {
      describeAs([described()], '1');
      const mine = helper().sandbox();
      await setEmail('kept@example.test');
      await mine.snapshot('kept');
      await setEmail('later@example.test');
      await mine.restore('kept');
      expect(await email()).toBe('kept@example.test');
      await mine.reset();
      expect(await email()).toBeNull();
    },
    STATES_TIMEOUT,
  );

  it('moves the clock over the operator routes', async () => {
    describeAs([described()], '1');
    const mine = helper().sandbox();
    const set = await mine.clock.set(new Date('2030-02-03T04:05:06.000Z'));
    // The virtual clock runs on from where it is set.
    expect(set).toMatchObject({ mode: 'virtual', frozen: false });
    expect(set.now.getTime() - Date.parse('2030-02-03T04:05:06.000Z')).toBeGreaterThanOrEqual(0);
    expect(set.now.getTime() - Date.parse('2030-02-03T04:05:06.000Z')).toBeLessThan(60_000);
    const advanced = await mine.clock.advance('2d');
    expect(advanced.now.getTime()).toBeGreaterThanOrEqual(Date.parse('2030-02-05T04:05:06.000Z'));
    // The gateway's own reading is the one the helper moved.
    expect((await sandbox.clock.read()).now.getTime()).toBeGreaterThanOrEqual(advanced.now.getTime());
    expect((await mine.clock.read()).mode).toBe('virtual');
  });

  it('throws the route’s refusal: its status and problem', async () => {
    describeAs([described()], '1');
    const { sandbox: mineOf, SandboxAdminError } = helper();
    const mine = mineOf();
    const unknown = await mine.restore('never-kept').catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(SandboxAdminError);
    expect(unknown).toMatchObject({ status: 404 });
    await expect(mine.clock.advance('soon')).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^POST \/sandbox\/admin\/clock\/advance answered 400/),
    });
    await expect(mine.snapshot('')).rejects.toThrow(TypeError);

    const keys = Object.fromEntries(Object.keys(sandbox.keys).map((id) => [id, 'not-a-key']));
    describeAs([{ ...described(), keys }], '1');
    await expect(helper().sandbox().reset()).rejects.toMatchObject({ status: 401 });
  });

  it(
    'waits out a 503 with Retry-After, except where a repeat would do more',
    async () => {
      // In front of the sandbox: the first `busy` admin calls are answered as a busy database answers.
      let busy = 0;
      const seen: string[] = [];
      const front: Server = createServer((request, reply) => {
        seen.push(`${request.method} ${request.url}`);
        if (busy > 0) {
          busy -= 1;
          reply.writeHead(503, { 'Content-Type': 'application/problem+json', 'Retry-After': '1' });
          reply.end(JSON.stringify({ status: 503, title: 'Service Unavailable' }));
          return;
        }
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', async () => {
          const body = Buffer.concat(chunks);
          const answer = await fetch(`${sandbox.url}${request.url}`, {
            method: request.method,
            headers: Object.fromEntries(
              Object.entries(request.headers).filter(([name]) => name !== 'host' && name !== 'connection'),
            ) as Record<string, string>,
            ...(body.length > 0 ? { body } : {}),
          });
          reply.writeHead(answer.status, {
            'Content-Type': answer.headers.get('content-type') ?? 'text/plain',
          });
          reply.end(Buffer.from(await answer.arrayBuffer()));
        });
      });
      await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = front.address() as AddressInfo;
        describeAs([{ ...described(), url: `http://127.0.0.1:${port}` }], '1');
        const mine = helper().sandbox();
        await mine.snapshot('busy');
        busy = 2;
        seen.length = 0;
        await mine.restore('busy');
        expect(seen).toEqual(Array(3).fill('POST /sandbox/admin/snapshots/busy/restore'));
        // An advance made twice would move the clock twice: the 503 is thrown at once.
        busy = 1;
        seen.length = 0;
        await expect(mine.clock.advance('1d')).rejects.toMatchObject({ status: 503, retryAfter: '1' });
        expect(seen).toHaveLength(1);
      } finally {
        await new Promise((resolve) => front.close(resolve));
      }
    },
    STATES_TIMEOUT,
  );
  it('makes users with tokens and grants authorities over the operator routes', async () => {
    describeAs([described()], '1');
    const mine = helper().sandbox();
    const update = (token: string) =>
      fetch(`${sandbox.registers.nzbn}/entities/${UPDATABLE}/action-update-australian-business-numbers`, {
        method: 'POST',
        headers: {
          'Ocp-Apim-Subscription-Key': sandbox.keys.nzbn,
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ australianBusinessNumber: '51824753556' }),
      });
    const acting = await mine.user({ authorities: [{ service: 'nzbn', kind: 'entity', id: UPDATABLE }] });
    expect(acting).toMatchObject({
      email: expect.stringMatching(/@example\.test$/),
      password: expect.any(String),
    });
    expect((await update(acting.token)).status).toBe(200);

    const other = await mine.user({ email: 'second-user@example.test' });
    expect(other.email).toBe('second-user@example.test');
    expect((await update(other.token)).status).toBe(403);
    await mine.grantAuthority({ userId: other.userId }, { service: 'nzbn', kind: 'entity', id: UPDATABLE });
    expect((await update(other.token)).status).toBe(200);
  });

  it('refuses a test user or an authority it cannot make, and makes nothing then', async () => {
    describeAs([described()], '1');
    const mine = helper().sandbox();
    const object = { service: 'nzbn' as const, kind: 'entity', id: UPDATABLE };
    await expect(
      mine.user({
        email: 'refused@example.test',
        authorities: [{ ...object, service: 'elsewhere' as 'nzbn' }],
      }),
    ).rejects.toMatchObject({
      status: 400,
      problem: { errors: [expect.objectContaining({ field: 'authorities.0.service' })] },
    });
    // Nothing was made: the address is still free.
    expect((await mine.user({ email: 'refused@example.test' })).email).toBe('refused@example.test');
    await expect(mine.user({ email: 'refused@example.test' })).rejects.toMatchObject({ status: 409 });
    await expect(
      mine.grantAuthority({ userId: '00000000-0000-4000-8000-000000000000' }, object),
    ).rejects.toMatchObject({ status: 404 });
    await expect(mine.grantAuthority({ organisationId: 'not-an-id' }, object)).rejects.toMatchObject({
      status: 404,
    });
    await expect(mine.grantAuthority({} as { userId: string }, object)).rejects.toMatchObject({
      status: 400,
    });
  });

  it('says what is missing when the setup did not run or described other workers', () => {
    delete process.env.RSG_JEST_SANDBOXES;
    expect(() => helper().sandbox()).toThrow(/RSG_JEST_SANDBOXES is not set.*globalSetup/);
    describeAs('{not json', '1');
    expect(() => helper().sandbox()).toThrow(/not the JSON/);
    describeAs([], '1');
    expect(() => helper().sandbox()).toThrow(/names no sandbox/);
    describeAs([described()], '3');
    expect(() => helper().sandbox()).toThrow(/worker 3 has no sandbox: the global setup started 1/);
    describeAs([described()], 'x');
    expect(() => helper().sandbox()).toThrow(/JEST_WORKER_ID "x"/);
    describeAs([{ registers: {}, keys: {} }], '1');
    expect(() => helper().sandbox()).toThrow(/without a URL or a key/);
  });
});
