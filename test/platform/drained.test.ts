import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { drained } from '../../src/platform/drained.ts';

/** `drained`: the wait after a refused write ends whatever the stream does next. */
const closedFirst = () => new Error('closed first');

describe('drained', () => {
  it('resolves at once when the stream asks for no wait', async () => {
    const stream = new PassThrough({ highWaterMark: 16 });
    expect(stream.write(Buffer.alloc(4))).toBe(true);
    await expect(drained(stream, closedFirst)).resolves.toBeUndefined();
  });

  it('resolves at drain', async () => {
    const stream = new PassThrough({ highWaterMark: 16 });
    expect(stream.write(Buffer.alloc(100))).toBe(false);
    const wait = drained(stream, closedFirst);
    stream.resume();
    await expect(wait).resolves.toBeUndefined();
  });

  it('resolves when the stream is ended after the refused write (Node emits no drain then)', async () => {
    const stream = new PassThrough({ highWaterMark: 16 });
    expect(stream.write(Buffer.alloc(100))).toBe(false);
    let drains = 0;
    stream.on('drain', () => drains++);
    const wait = drained(stream, closedFirst);
    stream.end();
    stream.resume();
    await expect(wait).resolves.toBeUndefined();
    expect(drains).toBe(0);
  });

  it('fails when the stream is destroyed before it drains, and at once when it already is', async () => {
    const stream = new Writable({ highWaterMark: 16, write: () => {} });
    expect(stream.write(Buffer.alloc(100))).toBe(false);
    const wait = drained(stream, closedFirst);
    stream.destroy();
    await expect(wait).rejects.toThrow('closed first');
    await expect(drained(stream, closedFirst)).rejects.toThrow('closed first');
  });
});
