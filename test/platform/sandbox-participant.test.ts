import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isDatabaseUnavailable } from '../../src/platform/db/faults.ts';
import { NoticeListener } from '../../src/platform/db/notice-listener.ts';
import { ChangeFeed, publish } from '../../src/platform/db/notify.ts';
import {
  advisoryLockFree,
  type Database,
  openDatabase,
  withSessionLock,
} from '../../src/platform/db/pool.ts';
import { SANDBOX_STATES_LOCK } from '../../src/platform/sandbox/names.ts';
import { SandboxParticipant } from '../../src/platform/sandbox/participant.ts';
import { migratedDatabases } from '../support/runtime.ts';

/**
 * One process's part in a sandbox reset (platform/sandbox/participant.ts): the gate, the wait for
 * requests in flight, the database let go of (connections refused with a 503 error, listeners held,
 * caches told) and taken up again, the hooks, and a resume notice missed.
 */
let databases: Awaited<ReturnType<typeof migratedDatabases>>;
let sandbox: Database;
let gateway: Database;

beforeAll(async () => {
  databases = await migratedDatabases();
  sandbox = openDatabase(databases.sandbox, 2);
  gateway = openDatabase(databases.gateway, 2);
});
afterAll(async () => {
  await sandbox?.close();
  await gateway?.close();
  await databases?.drop();
});

const participant = (options: { graceMs?: number; waitMs?: number; checkMs?: number } = {}) =>
  new SandboxParticipant({
    database: sandbox,
    gateway: gateway.pool,
    graceMs: options.graceMs ?? 1_000,
    waitMs: options.waitMs ?? 1_000,
    checkMs: options.checkMs ?? 3_600_000,
  });

/** A response whose connection closes when told. */
const response = () => new EventEmitter() as unknown as ServerResponse;

describe('the sandbox participant', () => {
  it('holds new requests while paused: they pass once resumed, or are refused when the wait runs out', async () => {
    const waiting = participant({ waitMs: 5_000 });
    const refusing = participant({ waitMs: 0 });
    await Promise.all([waiting.pause('one'), refusing.pause('one')]);
    expect(waiting.open).toBe(false);
    expect(await refusing.whenOpen()).toBe(false);
    const admitted = waiting.whenOpen();
    await waiting.resume('one');
    await refusing.resume('one');
    expect(await admitted).toBe(true);
    expect(waiting.open).toBe(true);
  });

  it('lets requests in flight finish within the grace before it lets go of the database', async () => {
    const gate = participant({ graceMs: 5_000 });
    const inFlight = response();
    gate.enter(inFlight);
    let paused = false;
    const pausing = gate.pause('two').then(() => {
      paused = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(paused).toBe(false);
    // The request's statement still runs on the database meanwhile.
    await sandbox.pool.query('SELECT 1');
    inFlight.emit('close');
    await pausing;
    // Let go of: a new connection is refused at once, as a database that is away (503).
    const refused = await sandbox.pool.query('SELECT 1').catch((error: unknown) => error);
    expect(isDatabaseUnavailable(refused)).toBe(true);
    await gate.resume('two');
    expect((await sandbox.pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
  });

  it('goes on after the grace when a request does not finish', async () => {
    const gate = participant({ graceMs: 100 });
    gate.enter(response());
    const started = Date.now();
    await gate.pause('three');
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    await gate.resume('three');
  });

  it('holds the notice listeners on the database and tells its caches it was replaced', async () => {
    const resets: string[] = [];
    const listener = new NoticeListener({
      url: databases.sandbox,
      channel: 'participant_test',
      applicationName: 'participant test',
      onNotice: () => {},
      onReset: () => resets.push('reset'),
      retryMs: 10,
    });
    await listener.start();
    expect(listener.listening).toBe(true);
    const replaced = vi.fn();
    const stop = sandbox.onReplaced(replaced);
    const gate = participant();
    await gate.pause('four');
    expect(listener.listening).toBe(false);
    expect(resets.length).toBeGreaterThan(0);
    // Held: it does not listen again on its own while paused.
    listener.open();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(listener.listening).toBe(false);
    await gate.resume('four');
    expect(replaced).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(listener.listening).toBe(true));
    stop();
    await listener.close();
  });

  it('runs its hooks in order, and a failing hook does not keep the sandbox paused', async () => {
    const gate = participant();
    const calls: string[] = [];
    gate.add({
      pause: async () => void calls.push('pause a'),
      resume: async () => {
        calls.push('resume a');
        throw new Error('a hook that fails');
      },
    });
    gate.add({
      pause: async () => void calls.push('pause b'),
      resume: async () => void calls.push('resume b'),
    });
    await gate.pause('five');
    await gate.resume('five');
    expect(calls).toEqual(['pause a', 'pause b', 'resume a', 'resume b']);
    expect(gate.open).toBe(true);
  });

  it('pauses and resumes on the change feed, and ignores a pause of an operation already over', async () => {
    const feed = new ChangeFeed(databases.gateway);
    await feed.start();
    const gate = participant();
    const stop = gate.listen(feed);
    await publish(gateway.pool, { kind: 'sandbox', phase: 'pause', id: 'six' });
    await vi.waitFor(() => expect(gate.open).toBe(false));
    await publish(gateway.pool, { kind: 'sandbox', phase: 'resume', id: 'six' });
    await vi.waitFor(() => expect(gate.open).toBe(true));
    await publish(gateway.pool, { kind: 'sandbox', phase: 'pause', id: 'six' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gate.open).toBe(true);
    stop();
    await feed.close();
  });

  it('resumes by itself once the operation is over when its resume notice was missed', async () => {
    const gate = participant({ checkMs: 50 });
    let release = () => {};
    const held = withSessionLock(
      databases.gateway,
      SANDBOX_STATES_LOCK,
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    await vi.waitFor(async () =>
      expect(await advisoryLockFree(gateway.pool, SANDBOX_STATES_LOCK)).toBe(false),
    );
    await gate.pause('seven');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gate.open).toBe(false);
    release();
    await held;
    await vi.waitFor(() => expect(gate.open).toBe(true));
  });
});
