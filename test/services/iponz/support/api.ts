import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { grantAuthority } from '../../../../src/identity/authorities.ts';
import { setClock } from '../../../../src/platform/clock-store.ts';
import { seedIponz } from '../../../../src/services/iponz/sandbox/seed.ts';
import { type SignedInUser, signedInUser } from '../../../support/oauth.ts';
import { OpenApi } from '../../../support/openapi.ts';
import { subscriber, type TestGateway, testGateway } from '../../../support/runtime.ts';

/**
 * A gateway with the IP office's sandbox seeded small (its fixed test cases and generated clients and
 * cases) on a virtual sandbox clock at NOW, a sandbox subscription, and a signed-in user registered with
 * the office (as the operator's user is after `rsg seed`). Every answer is checked against the service's
 * OpenAPI document.
 */
export const BASE = '/sandbox/iponz/v5';
export const NOW = '2026-06-15T00:00:00Z';
export const TODAY = '2026-06-15';

export interface IponzTest {
  gateway: TestGateway;
  key: string;
  productionKey: string;
  /** Registered with the office. */
  owner: SignedInUser;
  /** Signed in, not registered. */
  stranger: SignedInUser;
  call(
    method: InjectOptions['method'],
    url: string,
    options?: { token?: string; key?: string | null; headers?: Record<string, string>; payload?: unknown },
  ): Promise<LightMyRequestResponse>;
  register(userId: string, environment?: 'sandbox' | 'production'): Promise<void>;
  close(): Promise<void>;
}

export async function iponzTest(options: { env?: Record<string, string> } = {}): Promise<IponzTest> {
  const gateway = await testGateway({ clockMode: 'virtual', ...(options.env ? { env: options.env } : {}) });
  await setClock(gateway.runtime.gateway.pool, 'sandbox', NOW);
  await gateway.runtime.clocks.reload();
  const register = async (userId: string, environment: 'sandbox' | 'production' = 'sandbox') => {
    await grantAuthority(
      gateway.runtime.gateway.pool,
      { environment, service: 'iponz', kind: 'registered-user', id: 'iponz' },
      { userId },
    );
  };
  const owner = await signedInUser(gateway);
  await seedIponz({
    database: gateway.runtime.environments.sandbox,
    scale: 'small',
    clock: gateway.runtime.clocks.for('sandbox'),
    log: () => {},
    identity: { grantOperatorsAuthority: async () => register(owner.userId) },
  });
  await register(owner.userId);
  const stranger = await signedInUser(gateway);
  const { primaryKey: key } = await subscriber(gateway, 'sandbox-iponz');
  const { primaryKey: productionKey } = await subscriber(gateway, 'production-iponz');
  let openApi: OpenApi | undefined;
  const test: IponzTest = {
    gateway,
    key,
    productionKey,
    owner,
    stranger,
    register,
    async call(method, url, { token, key: chosenKey = key, headers = {}, payload } = {}) {
      const full = url.startsWith('/sandbox') || url.startsWith('/gateway') ? url : `${BASE}${url}`;
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
      openApi?.conformsUrl(String(method), full, response);
      return response;
    },
    close: () => gateway.close(),
  };
  openApi = await OpenApi.fetch(gateway.app, BASE);
  return test;
}
