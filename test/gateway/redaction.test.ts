import { describe, expect, it } from 'vitest';
import {
  curlCommand,
  type InspectedCall,
  inspect,
  refusalReason,
} from '../../src/gateway/domain/inspector.ts';
import {
  isSecretName,
  REDACTED,
  redactBody,
  redactHeaders,
  redactPatterns,
  redactUrl,
  Secrets,
} from '../../src/gateway/domain/redaction.ts';

describe('isSecretName', () => {
  it('knows secrets by their last word and by whole names, in any case and spelling', () => {
    for (const name of [
      'pin',
      'PIN',
      'financingStatementPin',
      'debtorPin',
      'Financing-Statement-PIN',
      'Debtor-PIN',
      'password',
      'new_password',
      'client_secret',
      'clientSecret',
      'webhookSecret',
      'token',
      'access_token',
      'refresh_token',
      'id_token',
      'authorizationToken',
      'code_verifier',
      'X-Amz-Signature',
      'signature',
      'sig',
      'Ocp-Apim-Subscription-Key',
      'subscription-key',
      'x-api-key',
      'apiKey',
      'Authorization',
      'Cookie',
      'Set-Cookie',
      'client_assertion',
      'primaryKey',
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of [
      'tokenType',
      'expires_in',
      'nzbn',
      'name',
      'pinned',
      'shipping',
      'status',
      'errorCode',
      'keyHint',
    ]) {
      expect(isSecretName(name), name).toBe(false);
    }
  });
});

describe('redaction', () => {
  it('redacts secret headers and remembers their values for the rest of the call', () => {
    const secrets = new Secrets();
    const headers = redactHeaders(
      {
        'ocp-apim-subscription-key': 'k'.repeat(64),
        authorization: 'Bearer eyJabc.def',
        'financing-statement-pin': '12345678',
        'x-request-id': 'abc',
        accept: 'application/json',
      },
      secrets,
    );
    expect(headers).toEqual({
      'ocp-apim-subscription-key': REDACTED,
      authorization: REDACTED,
      'financing-statement-pin': REDACTED,
      'x-request-id': 'abc',
      accept: 'application/json',
    });
    expect(secrets.scrub(`your key is ${'k'.repeat(64)}, pin 12345678, token eyJabc.def`)).toBe(
      `your key is ${REDACTED}, pin ${REDACTED}, token ${REDACTED}`,
    );
  });

  it('redacts JSON fields at any depth and the same values anywhere else', () => {
    const secrets = new Secrets();
    const body = JSON.stringify({
      name: 'x',
      nested: { financingStatementPin: '87654321', list: [{ Password: 'hunter22', ok: 1 }] },
      note: 'the pin is 87654321',
      webhookSecret: 'whsec_abcdefgh',
      link: 'https://h/doc?expires=1&caller=u&signature=SIGVALUE123',
    });
    const out = redactBody(body, 'application/json; charset=utf-8', secrets);
    expect(out).not.toContain('87654321');
    expect(out).not.toContain('hunter22');
    expect(out).not.toContain('whsec_abcdefgh');
    expect(out).not.toContain('SIGVALUE123');
    expect(JSON.parse(out)).toMatchObject({
      name: 'x',
      nested: { financingStatementPin: REDACTED, list: [{ Password: REDACTED, ok: 1 }] },
      link: `https://h/doc?expires=1&caller=u&signature=${REDACTED}`,
    });
  });

  it('redacts a JSON body cut in the middle of a secret', () => {
    const out = redactBody('{"a":1,"debtorPin":"1234', 'application/json', new Secrets());
    expect(out).not.toContain('1234');
  });

  it('redacts forms, query strings, XML and SOAP elements', () => {
    const secrets = new Secrets();
    expect(
      redactBody(
        'grant_type=x&client_secret=s3cr3t-value&code_verifier=vvvvvv',
        'application/x-www-form-urlencoded',
        secrets,
      ),
    ).toBe('grant_type=x&client_secret=%5BREDACTED%5D&code_verifier=%5BREDACTED%5D');
    expect(redactUrl('/a/b?x=1&Subscription-Key=kkkkkkkk&X-Amz-Signature=zzzz', secrets)).toBe(
      '/a/b?x=1&Subscription-Key=%5BREDACTED%5D&X-Amz-Signature=%5BREDACTED%5D',
    );
    const soap =
      '<soap:Envelope><soap:Header><wsse:Password Type="t">pa55word</wsse:Password></soap:Header><soap:Body><Pin>11112222</Pin><Name>ok</Name></soap:Body></soap:Envelope>';
    const out = redactBody(soap, 'text/xml', secrets);
    expect(out).not.toContain('pa55word');
    expect(out).not.toContain('11112222');
    expect(out).toContain('<Name>ok</Name>');
    // Values learnt earlier are scrubbed from later texts.
    expect(secrets.scrub('s3cr3t-value kkkkkkkk')).toBe(`${REDACTED} ${REDACTED}`);
  });

  it('redacts secret patterns in free text', () => {
    const text = redactPatterns(
      'see https://x/y?sig=abc&token=t0k3n and whsec_QUJD and eyJhbGciOi.eyJzdWIiOi.c2ln and Bearer abcdefghijkl',
    );
    expect(text).toBe(
      `see https://x/y?sig=${REDACTED}&token=${REDACTED} and ${REDACTED} and ${REDACTED} and Bearer ${REDACTED}`,
    );
  });
});

describe('inspect', () => {
  const key = 'a'.repeat(64);
  const captured = {
    sentAt: Date.parse('2026-01-01T00:00:01Z'),
    environment: 'sandbox' as const,
    service: 'ppsr',
    subscriptionId: '00000000-0000-4000-8000-000000000001',
    method: 'POST',
    url: `/sandbox/ppsr/v1/statements?subscription-key=${key}`,
    status: 400,
    durationMs: 12.5,
    requestHeaders: { 'content-type': 'application/json', 'financing-statement-pin': '99990000' },
    responseHeaders: { 'content-type': 'application/problem+json' },
    requestBody: { pin: '99990000', note: `key ${key}` },
    responseBody: JSON.stringify({
      type: 'about:blank#invalid-field',
      title: 'Bad Request',
      status: 400,
      detail: 'x',
      errors: [{ field: 'debtor.name', message: 'is required' }],
    }),
    bodies: true,
  };

  it('keeps no secret and says why a 4xx was refused', () => {
    const call = inspect(captured);
    const text = JSON.stringify(call);
    expect(text).not.toContain(key);
    expect(text).not.toContain('99990000');
    expect(call.reason).toBe('invalid-field: debtor.name is required');
    expect(call.at.toISOString()).toBe('2026-01-01T00:00:00.987Z');
  });

  it('keeps metadata only without bodies, the reason still read', () => {
    const call = inspect({ ...captured, bodies: false });
    expect(call.requestBody).toBeNull();
    expect(call.responseBody).toBeNull();
    expect(call.reason).toBe('invalid-field: debtor.name is required');
  });

  it('cuts long bodies at the bound', () => {
    const call = inspect({
      ...captured,
      status: 200,
      responseBody: 'x'.repeat(100_000),
      responseHeaders: {},
    });
    expect(call.responseBody!.length).toBeLessThan(17 * 1024);
    expect(call.responseBody).toContain('[cut');
  });

  it('reads the reason of every dialect', () => {
    expect(
      refusalReason('{"statusCode":401,"message":"Access denied due to invalid subscription key."}'),
    ).toBe('Access denied due to invalid subscription key.');
    expect(
      refusalReason(
        '{"status":"400","errorCode":"invalid-nzbn","errorDescription":"d","list":[{"field":"nzbn","message":"must be 13 digits"}]}',
      ),
    ).toBe('invalid-nzbn: nzbn must be 13 digits');
    expect(
      refusalReason(
        '<soap:Envelope><soap:Body><soap:Fault><faultcode>soap:Client</faultcode><faultstring>bad</faultstring><detail><ErrorCode>invalid-field</ErrorCode><HttpStatus>400</HttpStatus><FieldError><Field>CaseNumber</Field><Message>is required</Message></FieldError></detail></soap:Fault></soap:Body></soap:Envelope>',
      ),
    ).toBe('invalid-field: CaseNumber is required');
    expect(refusalReason('not json')).toBeNull();
  });

  it('copies a call as curl with placeholders for its secrets', () => {
    const call: InspectedCall = {
      ...inspect(captured),
      requestHeaders: {
        'ocp-apim-subscription-key': REDACTED,
        authorization: REDACTED,
        'financing-statement-pin': REDACTED,
        'content-type': 'application/json',
        host: 'x',
      },
    };
    const curl = curlCommand(call, 'https://gw.example/');
    expect(curl).toContain('curl -X POST');
    expect(curl).toContain('"https://gw.example/sandbox/ppsr/v1/statements?subscription-key=$RSG_KEY"');
    expect(curl).toContain('-H "ocp-apim-subscription-key: $RSG_KEY"');
    expect(curl).toContain('-H "authorization: Bearer $RSG_TOKEN"');
    expect(curl).toContain('-H "financing-statement-pin: $RSG_PIN"');
    expect(curl).toContain(`-H 'content-type: application/json'`);
    expect(curl).not.toContain('host:');
    expect(curl).toContain('--data-raw "{\\"pin\\":\\"$RSG_SECRET\\"');
  });
});
