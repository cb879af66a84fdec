import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateProduct } from '../../src/gateway/store/products.ts';
import type { Dialect } from '../../src/platform/http/error-codes.ts';
import { dialectError } from './error-codes.ts';
import { type FingerprintedTables, fingerprint } from './fingerprint.ts';
import { OpenApi, type Parameter, serviceBase, serviceOf } from './openapi.ts';
import { callOperation, type FixtureEntry, type OperationCall } from './operation-calls.ts';
import { subscriber } from './runtime.ts';
import { accessOf, queriesOf, type ServiceFixture, type ServiceSubject } from './service-fixture.ts';

/**
 * The conformance matrix: the rules stated once for every register (the specification's conditional
 * requests table, content negotiation, validation) checked on every operation of a service's OpenAPI
 * document, with the same fixture the security matrix and the fuzzer use:
 *
 * - **Negotiation.** An `Accept` nothing is served as: 406 in the dialect where the document lists a 406
 *   for the operation; elsewhere the register's declared behaviour (it answers as without `Accept`).
 * - **Validation.** Every query parameter the document types (integer, number, boolean, an enumeration,
 *   a pattern): a value of the wrong type is a 400 in the dialect naming that parameter.
 * - **Conditional reads.** A GET answered with an ETag carries Last-Modified too, and answers
 *   `If-None-Match` with its ETag and `If-Modified-Since` with its Last-Modified with 304 and an empty body.
 *   A GET whose fixture entry declares `etag` must answer its valid example 200 with an ETag, so an
 *   operation that loses its validators fails here instead of passing unchecked.
 * - **Conditional writes.** A write of an existing resource (`write: 'update'`, the default) with a
 *   stale `If-Match`, and with an `If-Unmodified-Since` long past (and no `If-Match`: RFC 9110 §13.1.4
 *   has a server ignore it beside one), is 412 in the dialect and writes nothing (the fixture's tables
 *   are fingerprinted). Where the document lists 428 (a precondition the register makes mandatory), the
 *   second case is 428: the mandatory precondition is missing.
 */
const UNSERVED = 'application/x-conformance-unserved';
const STALE_ETAG = '"conformance-stale"';
const LONG_AGO = 'Sat, 01 Jan 2000 00:00:00 GMT';
const WRONG = '%C2%A7wrong';

interface State {
  subject: ServiceSubject;
  key: string;
  api: OpenApi;
  tables: FingerprintedTables[];
}

export function conformanceMatrix(fixture: ServiceFixture): void {
  const service = serviceOf(fixture.service);
  const dialect: Dialect = service.dialect;
  const entries: FixtureEntry[] = Object.entries(fixture.operations)
    .map(([id, entry]) => ({ id, access: accessOf(entry) }))
    .filter((entry) => !entry.access.coveredBy);
  const reads = entries.filter((entry) => entry.id.startsWith('GET '));
  const updates = entries.filter(
    (entry) => !entry.id.startsWith('GET ') && (entry.access.write ?? 'update') === 'update',
  );
  let s: State;

  beforeAll(async () => {
    const subject = await fixture.setup();
    const key = subject.key ?? (await subscriber(subject.gateway, `sandbox-${fixture.service}`)).primaryKey;
    // Several calls per operation in a few seconds: above the sandbox product's rate limit.
    await updateProduct(subject.gateway.runtime.gateway.pool, `sandbox-${fixture.service}`, {
      rateLimitPerMinute: 1_000_000,
    });
    s = {
      subject,
      key,
      api: await OpenApi.fetch(subject.gateway.app, serviceBase(fixture.service)),
      tables: subject.tables ?? [
        {
          pool: subject.gateway.runtime.environments.sandbox.pool,
          prefixes: [`${service.id.replaceAll('-', '_')}_`],
        },
      ],
    };
  }, 120_000);
  afterAll(() => s?.subject.close());

  const send = (entry: FixtureEntry, call: OperationCall = {}) => {
    const token = entry.access.user ? s.subject.owner?.token : undefined;
    return callOperation(fixture.service, s.subject, s.key, entry, {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...call,
    });
  };
  const where = (entry: FixtureEntry, what: string, response: { statusCode: number; body: string }) =>
    `${entry.id}: ${what} → ${response.statusCode} ${response.body.slice(0, 300)}`;

  describe('negotiation: an Accept nothing is served as', () => {
    it.each(entries)('$id', async (entry) => {
      const response = await send(entry, { headers: { accept: UNSERVED } });
      const label = where(entry, `Accept: ${UNSERVED}`, response);
      if (s.api.documents(entry.id, 406)) {
        expect(response.statusCode, label).toBe(406);
        dialectError(response, dialect, label);
      } else {
        expect(response.statusCode, label).not.toBe(406);
        expect(response.statusCode, label).toBeLessThan(500);
      }
    });
  });

  describe('validation: a query parameter of the wrong type is a 400 naming it', () => {
    const typed = (parameter: Parameter) =>
      parameter.in === 'query' &&
      (['integer', 'number', 'boolean'].includes(String(parameter.schema.type)) ||
        Array.isArray(parameter.schema.enum) ||
        typeof parameter.schema.pattern === 'string');
    it.each(entries)('$id', async (entry) => {
      const operation = s.api.operations().find((o) => o.id === entry.id);
      const parameters = (operation?.parameters ?? []).filter(typed);
      for (const parameter of parameters) {
        const others = (queriesOf(entry.access)[0] ?? '')
          .split('&')
          .filter((pair) => pair && pair.split('=')[0] !== parameter.name);
        const query = [...others, `${parameter.name}=${WRONG}`].join('&');
        const response = await send(entry, { query });
        const label = where(entry, `${parameter.name}=${WRONG}`, response);
        expect(response.statusCode, label).toBe(400);
        dialectError(response, dialect, label);
        expect(response.body, label).toContain(parameter.name);
      }
    });
  });

  describe('conditional reads: ETag with Last-Modified, 304 with an empty body', () => {
    it.each(reads)('$id', async (entry) => {
      const first = await send(entry);
      const etag = first.headers.etag;
      if (entry.access.etag) {
        const label = where(entry, 'the fixture declares an ETag', first);
        expect(first.statusCode, label).toBe(200);
        expect(etag, label).toBeDefined();
      }
      if (first.statusCode !== 200 || etag === undefined) return;
      const lastModified = first.headers['last-modified'];
      expect(lastModified, where(entry, 'an answer with an ETag carries Last-Modified', first)).toBeDefined();
      const byTag = await send(entry, { headers: { 'if-none-match': String(etag) } });
      expect(byTag.statusCode, where(entry, 'If-None-Match', byTag)).toBe(304);
      expect(byTag.body, where(entry, 'If-None-Match', byTag)).toBe('');
      const byDate = await send(entry, { headers: { 'if-modified-since': String(lastModified) } });
      expect(byDate.statusCode, where(entry, 'If-Modified-Since', byDate)).toBe(304);
      expect(byDate.body, where(entry, 'If-Modified-Since', byDate)).toBe('');
    });
  });

  // A register without writes (rental statistics) has no such cases.
  if (updates.length > 0)
    describe('conditional writes: a stale If-Match or a past If-Unmodified-Since is 412, writing nothing', () => {
      it.each(updates)('$id', async (entry) => {
        const cases: [Record<string, string>, number][] = [
          [{ 'if-match': STALE_ETAG }, 412],
          [{ 'if-unmodified-since': LONG_AGO }, s.api.documents(entry.id, 428) ? 428 : 412],
        ];
        for (const [headers, status] of cases) {
          const before = await fingerprint(...s.tables);
          const response = await send(entry, { headers, omitHeaders: ['if-match'] });
          const label = where(entry, Object.entries(headers)[0]!.join(': '), response);
          expect(response.statusCode, label).toBe(status);
          dialectError(response, dialect, label);
          expect(await fingerprint(...s.tables), `${label}: nothing written`).toBe(before);
        }
      });
    });
}
