import type { LightMyRequestResponse } from 'fastify';
import type { Environment, ServiceId } from '../../src/services/contract.ts';
import { serviceBase } from './openapi.ts';
import { bodyOf, type OperationAccess, queriesOf, type ServiceSubject } from './service-fixture.ts';

/**
 * One operation of a service fixture, called as the shared harnesses call it (security-matrix.ts,
 * conformance.ts): its path filled from the fixture, its first valid query, its example body and headers.
 */
export interface FixtureEntry {
  /** `METHOD /path` as the OpenAPI document writes it. */
  id: string;
  access: OperationAccess;
}

export interface OperationCall {
  environment?: Environment;
  /** The subscription key; null for none. */
  key?: string | null;
  authorization?: string | undefined;
  organisation?: string;
  /** Headers beyond the fixture's (they win). */
  headers?: Record<string, string>;
  /** Replaces the fixture's first valid query (without `?`). */
  query?: string;
  /** Fixture headers left out (lower case), such as the `If-Match` of its valid example. */
  omitHeaders?: string[];
}

export function operationUrl(
  service: ServiceId,
  subject: ServiceSubject,
  entry: FixtureEntry,
  environment: Environment = 'sandbox',
  query = queriesOf(entry.access)[0],
): string {
  const [, path] = entry.id.split(' ') as [string, string];
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = entry.access.path?.[name] ?? subject.ids[name];
    if (value === undefined) throw new Error(`${entry.id}: the fixture gives no value for {${name}}`);
    return encodeURIComponent(value);
  });
  return `${serviceBase(service, environment)}${filled}${query ? `?${query}` : ''}`;
}

export function callOperation(
  service: ServiceId,
  subject: ServiceSubject,
  defaultKey: string,
  entry: FixtureEntry,
  call: OperationCall = {},
): Promise<LightMyRequestResponse> {
  const [method] = entry.id.split(' ') as [string];
  const key = call.key === undefined ? defaultKey : call.key;
  const body = bodyOf(entry.access, subject);
  // A body of another kind than JSON (a multipart upload) is sent as it is, of the type its headers name.
  const raw = Buffer.isBuffer(body);
  const fixtureHeaders = Object.fromEntries(
    Object.entries(entry.access.headers ?? {}).filter(
      ([name]) => !call.omitHeaders?.includes(name.toLowerCase()),
    ),
  );
  return subject.gateway.app.inject({
    method: method as 'GET',
    url: operationUrl(
      service,
      subject,
      entry,
      call.environment ?? 'sandbox',
      call.query ?? queriesOf(entry.access)[0],
    ),
    headers: {
      ...subject.headers,
      ...fixtureHeaders,
      ...(key === null ? {} : { 'Ocp-Apim-Subscription-Key': key }),
      ...(call.authorization ? { authorization: call.authorization } : {}),
      ...(call.organisation ? { 'x-organisation': call.organisation } : {}),
      ...(body === undefined || raw ? {} : { 'content-type': 'application/json' }),
      ...call.headers,
    },
    ...(body === undefined ? {} : { payload: raw ? body : JSON.stringify(body) }),
  });
}
