import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks signatures (standardwebhooks.com): `webhook-id` (stable across retries of one
 * notification, so receivers can drop repeats), `webhook-timestamp` (Unix seconds of this attempt) and
 * `webhook-signature` = `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)), where the key is
 * the base64 part of a `whsec_…` secret.
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

const keys = new Map<string, Buffer>();

function keyOf(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    if (!secret.startsWith('whsec_')) throw new RangeError('a webhook secret starts with whsec_');
    key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    if (keys.size > 10_000) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret))
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

export function webhookHeaders(secret: string, id: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(secret, id, timestamp, body),
  };
}

/** Verification as a receiver does it (several space-separated signatures may be sent). */
export function verify(
  secret: string,
  headers: Record<string, string | undefined>,
  body: string,
  now: Date,
  toleranceSeconds = 300,
): boolean {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const signatures = headers['webhook-signature'];
  if (!id || !Number.isInteger(timestamp) || !signatures) return false;
  if (Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(secret, id, timestamp, body));
  return signatures.split(' ').some((candidate) => {
    const actual = Buffer.from(candidate);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  });
}
