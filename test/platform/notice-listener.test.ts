import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NoticeListener, type NoticeListenerOptions } from '../../src/platform/db/notice-listener.ts';
import { openDatabase } from '../../src/platform/db/pool.ts';
import { freshDatabases } from '../support/runtime.ts';

/**
 * The one listening connection every cache trusted only while it hears every change is built on
 * (src/platform/db/notice-listener.ts): the business number register's entities, the IP office's cases,
 * the offers register's answers and the billing payers. Notices move the generation and reach
 * `onNotice`; listening beginning and ending resets the cache (`onReset`), and `onListening` may then
 * load what the cache keeps on the listening connection (`query`). A lost connection never throws and
 * never ends the process: it resets, and listening begins again by itself; a server that cannot be
 * reached is tried again until the listener is closed.
 */
const CHANNEL = 'rsg_test_notices';
let databases: Awaited<ReturnType<typeof freshDatabases>>;
let other: ReturnType<typeof openDatabase>;
const opened: NoticeListener[] = [];

beforeAll(async () => {
  databases = await freshDatabases();
  other = openDatabase(databases.sandbox, 2);
});
afterAll(async () => {
  await Promise.all(opened.map((listener) => listener.close()));
  await other?.close();
  await databases?.drop();
});

/** A listener that records what it was told, in order. */
function listener(name: string, options: Partial<NoticeListenerOptions> = {}) {
  const events: string[] = [];
  const made = new NoticeListener({
    url: databases.sandbox,
    channel: CHANNEL,
    applicationName: name,
    onNotice: (payload) => void events.push(`notice ${payload}`),
    onReset: () => void events.push('reset'),
    onListening: () => void events.push('listening'),
    retryMs: 100,
    ...options,
  });
  opened.push(made);
  return { listener: made, events };
}

const notify = (payload: string) => other.pool.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);
const terminate = (name: string) =>
  other.pool.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = $1`,
    [name],
  );
const until = (condition: () => boolean) =>
  vi.waitFor(() => expect(condition()).toBe(true), { timeout: 5_000, interval: 10 });

describe('NoticeListener', () => {
  it('listens, then hears each notice with the generation moved first', async () => {
    const { listener: l, events } = listener('rsg-test-listener-hears');
    expect(l.listening).toBe(false);
    await l.start();
    expect(l.listening).toBe(true);
    expect(events).toEqual(['reset', 'listening']);
    const mark = l.mark();
    expect(l.current(mark)).toBe(true);
    await notify('one');
    await until(() => events.includes('notice one'));
    expect(l.current(mark)).toBe(false);
    l.bump();
    expect(l.mark()).toBeGreaterThan(mark + 1);
  });

  it('runs a query on the listening connection, and refuses one when not listening', async () => {
    const { listener: l } = listener('rsg-test-listener-query');
    await expect(l.query('SELECT 1')).rejects.toThrow(/not listening on rsg_test_notices/);
    await l.start();
    const { rows } = await l.query<{ name: string }>('SELECT current_setting($1) AS name', [
      'application_name',
    ]);
    expect(rows[0]!.name).toBe('rsg-test-listener-query');
  });

  it('a lost connection resets, and listening begins again by itself', async () => {
    const { listener: l, events } = listener('rsg-test-listener-lost');
    await l.start();
    const mark = l.mark();
    events.length = 0;
    await terminate('rsg-test-listener-lost');
    await until(() => !l.listening);
    // Work begun before the loss may not keep its result, even once listening again.
    expect(l.current(mark)).toBe(false);
    expect(events[0]).toBe('reset');
    // Nobody calls open(): the retry does.
    await until(() => l.listening);
    expect(events.slice(-2)).toEqual(['reset', 'listening']);
    expect(l.current(mark)).toBe(false);
    await notify('after');
    await until(() => events.includes('notice after'));
  });

  it('a server that cannot be reached is tried again, never thrown, until closed', async () => {
    const unreachable = 'postgres://postgres@127.0.0.1:9/nowhere';
    const { listener: l, events } = listener('rsg-test-listener-unreachable', {
      url: unreachable,
      retryMs: 20,
    });
    await l.start(); // resolves: the failure is a loss, not an error
    expect(l.listening).toBe(false);
    await until(() => events.filter((event) => event === 'reset').length >= 3);
    expect(events).not.toContain('listening');
    await l.close();
    const tries = events.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events.length).toBe(tries);
  });

  it('close ends listening for good', async () => {
    const { listener: l, events } = listener('rsg-test-listener-close');
    await l.start();
    await l.close();
    expect(l.listening).toBe(false);
    expect(events.at(-1)).toBe('reset');
    l.open();
    await l.start();
    expect(l.listening).toBe(false);
    await notify('closed');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events).not.toContain('notice closed');
  });
});
