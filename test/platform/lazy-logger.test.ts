import Fastify, { LogController } from 'fastify';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { LazyRequestLogger, makeChildrenLazy } from '../../src/platform/http/lazy-logger.ts';
import { loggerOptions } from '../../src/platform/http/log-redaction.ts';

const capture = () => {
  const lines: Record<string, unknown>[] = [];
  return { lines, stream: { write: (line: string) => void lines.push(JSON.parse(line)) } };
};

describe('the per-request logger made on first use', () => {
  it('makes no child until a line is written, then the same child pino would have made', () => {
    const { lines, stream } = capture();
    const parent = pino(loggerOptions('info'), stream);
    const child = vi.spyOn(parent, 'child');
    const lazy = new LazyRequestLogger(parent, { requestId: 'abc' }, {}, parent.child);
    expect(lazy.level).toBe('info');
    lazy.debug('not written at info');
    expect(lines).toHaveLength(0);
    expect(child).toHaveBeenCalledTimes(1); // debug is a call: the child is made then
    lazy.info({ headers: { 'ocp-apim-subscription-key': 'secret-key' } }, 'hello %s', 'there');
    lazy.error(new Error('boom'));
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines[0]).toMatchObject({ level: 30, requestId: 'abc', msg: 'hello there' });
    expect(JSON.stringify(lines[0])).not.toContain('secret-key');
    expect(lines[1]).toMatchObject({ level: 50, requestId: 'abc', err: { message: 'boom' } });
    expect(lazy.child({ extra: 1 }, {})).toBeTruthy();
  });

  it('is what a Fastify app hands its requests: request lines carry the request id', async () => {
    const { lines, stream } = capture();
    const app = Fastify({
      logger: loggerOptions('info', stream),
      logController: new LogController({ disableRequestLogging: true }),
    });
    makeChildrenLazy(app.log);
    let made = 0;
    app.get('/quiet', async (request) => {
      made += request.log instanceof LazyRequestLogger ? 1 : 0;
      return 'ok';
    });
    app.get('/loud', async (request) => {
      request.log.warn({ item: 7 }, 'something to say');
      return 'ok';
    });
    await app.inject({ url: '/quiet' });
    expect(made).toBe(1);
    expect(lines).toHaveLength(0);
    const loud = await app.inject({ url: '/loud' });
    expect(loud.statusCode).toBe(200);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      reqId: expect.any(String),
      item: 7,
      msg: 'something to say',
    });
    await app.close();
  });

  it("makes every pino child's children lazy too, each line with all its bindings", () => {
    const { lines, stream } = capture();
    const root = pino(loggerOptions('info'), stream);
    makeChildrenLazy(root);
    const request = root.child({ requestId: 'r1' }, {});
    expect(request).toBeInstanceOf(LazyRequestLogger);
    const job = request.child({ job: 'digest' }, {});
    expect(job).toBeInstanceOf(LazyRequestLogger);
    job.info({ password: 'hunter2' }, 'ran');
    request.info('done');
    expect(lines).toEqual([
      expect.objectContaining({ requestId: 'r1', job: 'digest', msg: 'ran', password: '[REDACTED]' }),
      expect.objectContaining({ requestId: 'r1', msg: 'done' }),
    ]);
    expect(lines[1]).not.toHaveProperty('job');
    // A level set on a lazy child is the real child's level from then on.
    job.level = 'warn';
    job.info('not written');
    expect(lines).toHaveLength(2);
    expect(request.level).toBe('info');
  });
});
