import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * CSRF tokens of the sign-in, consent and portal forms: an HMAC of what the form is bound to (the
 * interaction, the portal session) under the server's secret.
 */
export function csrfToken(secret: string, binding: string): string {
  return createHmac('sha256', secret).update(`csrf:${binding}`).digest('base64url');
}

export function csrfMatches(secret: string, binding: string, presented: unknown): boolean {
  if (typeof presented !== 'string') return false;
  const expected = Buffer.from(csrfToken(secret, binding));
  const actual = Buffer.from(presented);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
