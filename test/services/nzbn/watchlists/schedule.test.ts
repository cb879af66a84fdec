import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  ACKNOWLEDGEMENT_WINDOW_MS,
  afterAttempt,
  attemptDueAt,
  endDateFor,
  MAX_ATTEMPTS,
  nextState,
} from '../../../../src/services/nzbn/domain/delivery-schedule.ts';
import {
  newWebhookSecret,
  verify,
  webhookHeaders,
} from '../../../../src/services/nzbn/domain/webhook-signing.ts';

const original = new Date('2026-03-04T10:00:00.000Z');
const minutesAfter = (date: Date) => (date.getTime() - original.getTime()) / 60_000;

describe('retry schedule', () => {
  it('retries at 20, 90, 180, 300 and 450 minutes after the original attempt', () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => minutesAfter(attemptDueAt(original, attempt)))).toEqual([
      0, 20, 90, 180, 300, 450,
    ]);
    expect(MAX_ATTEMPTS).toBe(6);
    expect(() => attemptDueAt(original, 7)).toThrow(RangeError);
  });

  it.each([
    [200, 1000, 'delivered'],
    [200, ACKNOWLEDGEMENT_WINDOW_MS, 'delivered'],
    [200, ACKNOWLEDGEMENT_WINDOW_MS + 1, 'retry'],
    [201, 10, 'retry'],
    [204, 10, 'retry'],
    [500, 10, 'retry'],
    [undefined, 10, 'retry'],
  ])('status %s after %d ms → %s', (status, elapsedMs, kind) => {
    expect(afterAttempt({ attempt: 1, originalAttemptAt: original, status, elapsedMs }).kind).toBe(kind);
  });

  it('each failure schedules the next retry from the original attempt; the sixth failure suspends', () => {
    for (let attempt = 1; attempt < 6; attempt++) {
      const outcome = afterAttempt({ attempt, originalAttemptAt: original, status: 503, elapsedMs: 5 });
      expect(outcome).toEqual({
        kind: 'retry',
        nextAttempt: attempt + 1,
        dueAt: attemptDueAt(original, attempt + 1),
      });
    }
    expect(afterAttempt({ attempt: 6, originalAttemptAt: original, status: 503, elapsedMs: 5 })).toEqual({
      kind: 'suspend',
    });
  });

  it('end-dates one calendar month after suspension', () => {
    expect(endDateFor(new Date('2026-03-04T10:00:00.000Z')).toISOString()).toBe('2026-04-04T10:00:00.000Z');
    expect(endDateFor(new Date('2026-01-31T10:00:00.000Z')).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(endDateFor(new Date('2028-01-31T10:00:00.000Z')).toISOString()).toBe('2028-02-29T10:00:00.000Z');
  });

  it('watchlist states follow the spec table', () => {
    expect(nextState('active', 'last-retry-failed')).toBe('suspended');
    expect(nextState('suspended', 'change')).toBe('suspended');
    expect(nextState('suspended', 'resume')).toBe('active');
    expect(nextState('suspended', 'month-elapsed')).toBe('end-dated');
    expect(nextState('active', 'month-elapsed')).toBe('active');
    expect(() => nextState('end-dated', 'resume')).toThrow(RangeError);
  });
});

describe('Standard Webhooks signatures', () => {
  it('verify with the independent reference implementation', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.json(), (idSuffix, body) => {
        const secret = newWebhookSecret();
        const at = new Date();
        const id = `msg_${Buffer.from(idSuffix).toString('hex')}`;
        const headers = webhookHeaders(secret, id, at, body);
        // Throws when the signature does not verify.
        new Webhook(secret).verify(body, headers);
        return verify(secret, headers, body, at);
      }),
      { numRuns: 100 },
    );
  });

  it('our verifier accepts what the reference signs, and refuses tampering and stale timestamps', () => {
    const secret = newWebhookSecret();
    const at = new Date();
    const body = '{"nzbn":"9429041925676"}';
    const signature = new Webhook(secret).sign('msg_1', at, body);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    };
    expect(verify(secret, headers, body, at)).toBe(true);
    expect(verify(secret, headers, `${body} `, at)).toBe(false);
    expect(verify(secret, { ...headers, 'webhook-id': 'msg_2' }, body, at)).toBe(false);
    expect(verify(newWebhookSecret(), headers, body, at)).toBe(false);
    expect(verify(secret, headers, body, new Date(at.getTime() + 10 * 60_000))).toBe(false);
  });
});
