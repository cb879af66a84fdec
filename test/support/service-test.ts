import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { ServiceId } from '../../src/services/contract.ts';
import { type SignedInUser, signedInUser } from './oauth.ts';
import { OpenApi } from './openapi.ts';
import { subscriber, type TestGateway } from './runtime.ts';

/**
 * What the API tests of a register share (the business number register's and the IP office's): a key
 * to each environment's product, a signed-in user for the operations that need one and another who
 * holds nothing, and `call`, which sends one request through the gateway and checks every answer
 * against the service's own OpenAPI document. The register's own helper seeds and grants; this is the
 * rest.
 */
export interface CallOptions {
  token?: string;
  /** The subscription key to send; null sends none. The sandbox key by default. */
  key?: string | null;
  headers?: Record<string, string>;
  payload?: unknown;
}

export type ServiceCall = (
  method: InjectOptions['method'],
  url: string,
  options?: CallOptions,
) => Promise<LightMyRequestResponse>;

export interface ServiceTest {
  gateway: TestGateway;
  key: string;
  productionKey: string;
  /** Signed in; the register's helper gives it what the tests need. */
  owner: SignedInUser;
  /** Signed in, but holds nothing. */
  stranger: SignedInUser;
  /** A path relative to `base`, or a whole one (`/sandbox/…`, `/gateway/…`). */
  call: ServiceCall;
  close(): Promise<void>;
}

/**
 * The shared part of a register's API test. `prepare` runs after the owner signs in and before anyone
 * else does: the seed (which grants the operator's user, here the owner) goes there.
 */
export async function serviceTest(
  gateway: TestGateway,
  service: ServiceId,
  base: string,
  prepare: (owner: SignedInUser) => Promise<void>,
): Promise<ServiceTest> {
  const owner = await signedInUser(gateway);
  await prepare(owner);
  const stranger = await signedInUser(gateway);
  const { primaryKey: key } = await subscriber(gateway, `sandbox-${service}`);
  const { primaryKey: productionKey } = await subscriber(gateway, `production-${service}`);
  const openApi = await OpenApi.fetch(gateway.app, base);
  return {
    gateway,
    key,
    productionKey,
    owner,
    stranger,
    async call(method, url, { token, key: chosenKey = key, headers = {}, payload } = {}) {
      const full = url.startsWith('/sandbox') || url.startsWith('/gateway') ? url : `${base}${url}`;
      const response = await gateway.app.inject({
        method,
        url: full,
        headers: {
          ...(chosenKey ? { 'Ocp-Apim-Subscription-Key': chosenKey } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
        ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
      });
      // Every answer of the service is checked against its own OpenAPI document.
      openApi.conformsUrl(String(method), full, response);
      return response;
    },
    close: () => gateway.close(),
  };
}
