import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, type PpsrTest, PRODUCTION, ppsrTest, registration, requestId } from './support/api.ts';

/**
 * The register's published names and version 1 headers: every operation of the OpenAPI document carries
 * an operation name (`PPSR_nn`) and the other published name (`x-operation-code`, `SEC_nn`), what is ours
 * marked (`x-ours`); the document declares the OAuth2 scheme. Every answer echoes
 * `NZRIS-org-nz-Request-Id` and carries a `NZRIS-org-nz-Correlation-Id` made for the request (the
 * transaction's) and `Service-Version`.
 */
let test: PpsrTest;
beforeAll(async () => {
  test = await ppsrTest();
}, 120_000);
afterAll(async () => test?.close());

type Operation = { operationId?: string; 'x-operation-code'?: string; 'x-ours'?: string[] };
const documentOf = async (base: string) =>
  (await test.gateway.app.inject({ method: 'GET', url: `${base}/openapi.json` })).json();

describe('the OpenAPI document', () => {
  it.each([BASE, PRODUCTION])('names every operation with both published names (%s)', async (base) => {
    const document = await documentOf(base);
    const operations = Object.values(document.paths as Record<string, Record<string, Operation>>).flatMap(
      (methods) => Object.values(methods),
    );
    expect(operations.length).toBeGreaterThanOrEqual(20);
    const ids = operations.map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of operations) {
      expect(operation.operationId, JSON.stringify(operation)).toMatch(
        /^PPSR_[0-9]{2}(_[A-Z_]+)?$|^PPSR_[A-Z]+$/,
      );
      expect(operation['x-operation-code']).toBe(operation.operationId!.replace('PPSR_', 'SEC_'));
      for (const ours of operation['x-ours'] ?? [])
        expect(['operation', 'operationId', 'path']).toContain(ours);
    }
    const byId = new Map(operations.map((o) => [o.operationId, o]));
    // The specification's two, under the register's published numbers.
    expect(byId.get('PPSR_43')?.['x-operation-code']).toBe('SEC_43');
    expect(byId.get('PPSR_56')?.['x-operation-code']).toBe('SEC_56');
    expect(byId.get('PPSR_17')?.['x-ours']).toBeUndefined();
    // No published number: ours, said so.
    for (const id of ['PPSR_RENEW', 'PPSR_DISCHARGE', 'PPSR_34_LIST', 'PPSR_34_DELETE']) {
      expect(byId.get(id)?.['x-ours'], id).toContain('operationId');
    }
    expect(byId.get('PPSR_34_DELETE')?.['x-ours']).toContain('operation');
    const scheme = document.components.securitySchemes.oauth2;
    expect(scheme.type).toBe('oauth2');
    expect(Object.keys(scheme.flows.authorizationCode.scopes)).toEqual(['ppsr:read', 'ppsr:write']);
    expect(document.security).toContainEqual({ subscriptionKey: [], oauth2: [] });
  });
});

describe('the version 1 headers on every answer', () => {
  const expectHeaders = (response: { headers: Record<string, unknown> }, id: string | undefined) => {
    expect(response.headers['service-version']).toBe('2');
    expect(response.headers['nzris-org-nz-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers['nzris-org-nz-request-id']).toBe(id);
  };

  it('echoes the request id and gives a correlation id and the service version, errors too', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', '/customer-organisation'],
      ['GET', '/secured-party-groups'],
      ['GET', '/customer-organisation-fees'],
      ['GET', '/financing-statements/FH04R729A8ND9224'],
      ['GET', '/search-certificates/SC9999999999'],
      ['GET', '/discharged-financing-statements?start-date=2026-13-01&end-date=2026-01-01'],
    ];
    const seen = new Set<string>();
    for (const [method, path] of calls) {
      const id = requestId();
      const response = await test.call(method as 'GET', path, { headers: { 'NZRIS-org-nz-Request-Id': id } });
      expectHeaders(response, id);
      seen.add(String(response.headers['nzris-org-nz-correlation-id']));
      // Without the alias: no echo, the others still.
      expectHeaders(await test.call(method as 'GET', path), undefined);
    }
    expect(seen.size).toBe(calls.length);
  });

  it("gives a transaction's correlation id, which its record keeps", async () => {
    const id = requestId();
    const created = await test.call('POST', '/financing-statements', {
      body: registration(),
      headers: { 'NZRIS-org-nz-Request-Id': id },
    });
    expect(created.statusCode, created.body).toBe(201);
    expectHeaders(created, id);
    const found = await test.call('GET', `/customer-organisation-transactions?request-id=${id}`);
    expectHeaders(found, undefined);
    expect(found.json().transactions[0].correlationId).toBe(created.headers['nzris-org-nz-correlation-id']);
  });
});
