import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactText, redactUrl } from '../../src/platform/http/log-redaction.ts';
import { type DiscloseGateway, discloseGateway } from '../services/disclose/support/api.ts';
import { subscriber } from '../support/runtime.ts';

/**
 * A signed download URL is a working link for its lifetime: at LOG_LEVEL=debug it is logged as the
 * redirect is followed (the request's URL), and it must not be readable there. Also a secured interests
 * register call with a financing statement PIN. The captured log is searched for every secret used.
 */
let d: DiscloseGateway;
const lines: string[] = [];
const secrets = new Map<string, string>();

beforeAll(async () => {
  d = await discloseGateway({
    env: { LOG_LEVEL: 'debug' },
    app: { logger: true, logStream: { write: (line: string) => void lines.push(line) } },
  });
}, 120_000);
afterAll(() => d?.close());

describe('signed URLs and PINs at LOG_LEVEL=debug', () => {
  it('follows a signed document redirect, a tampered one, and sends a PIN', async () => {
    const list = await d.get('/scheme/SCH10000/governing-documents');
    const href = (list.json().items[0] as { href: string }).href;
    const redirect = await d.get(href.replace(/^.*\/companies-office\/disclose-register\/v1/, ''));
    expect(redirect.statusCode).toBe(302);
    const url = new URL(String(redirect.headers.location));
    const signature = url.searchParams.get('signature')!;
    secrets.set('signature', signature);
    const file = await d.gateway.app.inject({ url: `${url.pathname}${url.search}` });
    expect(file.statusCode).toBe(200);
    // A signature one character off is refused (and logged as a request like any other).
    const tampered = new URL(url);
    tampered.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`);
    secrets.set('tampered signature', tampered.searchParams.get('signature')!);
    const refused = await d.gateway.app.inject({ url: `${tampered.pathname}${tampered.search}` });
    expect(refused.statusCode).toBe(403);

    const ppsrKey = (await subscriber(d.gateway, 'sandbox-ppsr')).primaryKey;
    secrets.set('ppsr key', ppsrKey);
    const pin = 'PIN-7Q4K9X2M';
    secrets.set('financing statement PIN', pin);
    const withPin = await d.gateway.app.inject({
      method: 'PUT',
      url: `/sandbox/ppsr/v2/financing-statements/FS0000000001?subscription-key=${ppsrKey}`,
      headers: { 'Financing-Statement-PIN': pin, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(withPin.statusCode).toBeLessThan(500);
  });

  it('left none of them in the log', () => {
    const log = lines.join('');
    expect(log).toContain('"msg":"incoming request"');
    expect(log).toContain('/files/');
    expect(log).toContain('signature=[REDACTED]');
    const found = [...secrets].filter(([, value]) => log.includes(value)).map(([what]) => what);
    expect(found).toEqual([]);
  });

  it('the redaction rules: the signature, in a URL and in free text', () => {
    expect(redactUrl('/v1/files/DOC1?expires=1&caller=s&signature=abc')).toBe(
      '/v1/files/DOC1?expires=1&caller=s&signature=[REDACTED]',
    );
    expect(redactText('GET https://h/v1/files/DOC1?expires=1&signature=abc failed')).toBe(
      'GET https://h/v1/files/DOC1?expires=1&signature=[REDACTED] failed',
    );
  });
});
