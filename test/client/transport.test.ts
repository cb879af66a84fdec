import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient, RegisterError, retryAfterMs } from '../../packages/client/src/index.ts';

/**
 * The client's retries, against a `fetch` double: a 429 or 503 is retried after its `Retry-After` for a
 * read and for a write that carries a request id; a write without one is never sent twice.
 */
const baseUrl = 'http://gateway.test';
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const limited = () =>
  json(429, { statusCode: 429, message: 'Rate limit is exceeded.' }, { 'Retry-After': '2' });

afterEach(() => {
  vi.useRealTimers();
});

function clientWith(answers: (() => Response)[]) {
  const calls: Request[] = [];
  const fetch = vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
    calls.push(new Request(input, init));
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    return next();
  });
  const ppsr = createClient({ register: 'ppsr', environment: 'sandbox', baseUrl, key: 'k', fetch });
  return { ppsr, calls };
}

describe('retries', () => {
  it('waits out Retry-After on a 429, then succeeds (a read)', async () => {
    vi.useFakeTimers();
    const { ppsr, calls } = clientWith([limited, () => json(200, { name: 'Org', email: 'a@b.test' })]);
    const answer = ppsr.PPSR_44();
    await vi.advanceTimersByTimeAsync(1_999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(answer).resolves.toMatchObject({ name: 'Org' });
    expect(calls).toHaveLength(2);
    expect(calls[1]!.headers.get('Ocp-Apim-Subscription-Key')).toBe('k');
  });

  it('retries a write that carries a request id, under the same id', async () => {
    vi.useFakeTimers();
    const { ppsr, calls } = clientWith([
      () => json(503, { statusCode: 503, message: 'busy' }, { 'Retry-After': '1' }),
      () => json(201, { registrationNumber: 'FH04R729A8ND9224' }),
    ]);
    const answer = ppsr.PPSR_17({ body: {} as never, requestId: 'my-id-1' });
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(answer).resolves.toMatchObject({ registrationNumber: 'FH04R729A8ND9224' });
    expect(calls.map((c) => c.headers.get('api-business-govt-nz-Request-Id'))).toEqual([
      'my-id-1',
      'my-id-1',
    ]);
  });

  it('never retries a refused write without a request id', async () => {
    const { ppsr, calls } = clientWith([limited, () => json(201, {})]);
    const refused = await ppsr.PPSR_17({ body: {} as never }).catch((e) => e);
    expect(refused).toBeInstanceOf(RegisterError);
    expect(refused.status).toBe(429);
    expect(refused.details.kind).toBe('gateway');
    expect(calls).toHaveLength(1);
  });

  it('does not retry other refusals', async () => {
    const { ppsr, calls } = clientWith([
      () => json(400, { type: 'about:blank#invalid', title: 'Bad Request', status: 400, detail: 'no' }),
    ]);
    const refused = await ppsr.PPSR_44().catch((e) => e);
    expect(refused.details).toMatchObject({ kind: 'problem', code: 'invalid' });
    expect(calls).toHaveLength(1);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('3')).toBe(3_000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(
      5_000,
    );
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});
