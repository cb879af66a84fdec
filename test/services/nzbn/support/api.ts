import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { grantAuthority } from '../../../../src/identity/authorities.ts';
import type { DatabaseUrls } from '../../../../src/platform/db/urls.ts';
import { seedNzbn } from '../../../../src/services/nzbn/sandbox/seed.ts';
import { type SignedInUser, signedInUser } from '../../../support/oauth.ts';
import { OpenApi } from '../../../support/openapi.ts';
import { subscriber, type TestGateway, testGateway } from '../../../support/runtime.ts';

/**
 * A gateway with the business number register seeded small (fixtures and a few thousand generated
 * entities), a sandbox subscription, and a signed-in user who holds authority over the authority
 * fixture (case 202), as the operator's user does after `rsg seed`.
 */
export const BASE = '/sandbox/nzbn/v5';
export const FIXTURE = {
  company: '9429000001007',
  soleTrader: '9429000001144',
  privateData: '9429000003001',
  orgParts: '9429000003018',
  authority: '9429000003025',
  removed: '9429000002134',
} as const;

export interface NzbnTest {
  gateway: TestGateway;
  key: string;
  productionKey: string;
  /** Holds authority over FIXTURE.authority and FIXTURE.privateData. */
  owner: SignedInUser;
  /** Signed in, but holds no authority. */
  stranger: SignedInUser;
  call(
    method: InjectOptions['method'],
    url: string,
    options?: { token?: string; key?: string | null; headers?: Record<string, string>; payload?: unknown },
  ): Promise<LightMyRequestResponse>;
  grant(userId: string, nzbn: string): Promise<void>;
  close(): Promise<void>;
}

export async function nzbnTest(
  options: {
    entities?: number;
    clockMode?: 'real' | 'virtual';
    env?: Record<string, string>;
    urls?: DatabaseUrls;
  } = {},
): Promise<NzbnTest> {
  const gateway = await testGateway({
    ...(options.clockMode ? { clockMode: options.clockMode } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.urls ? { urls: options.urls } : {}),
  });
  const grant = async (userId: string, nzbn: string) => {
    await grantAuthority(
      gateway.runtime.gateway.pool,
      { environment: 'sandbox', service: 'nzbn', kind: 'entity', id: nzbn },
      { userId },
    );
  };
  const owner = await signedInUser(gateway);
  await seedNzbn(
    {
      database: gateway.runtime.environments.sandbox,
      scale: 'small',
      clock: gateway.runtime.clocks.for('sandbox'),
      log: () => {},
      identity: { grantOperatorsAuthority: async (_service, _kind, id) => grant(owner.userId, id) },
    },
    { entities: options.entities ?? 1_000, chunkSize: 1_000, threads: 0 },
  );
  await grant(owner.userId, FIXTURE.privateData);
  const stranger = await signedInUser(gateway);
  const { primaryKey: key } = await subscriber(gateway, 'sandbox-nzbn');
  const { primaryKey: productionKey } = await subscriber(gateway, 'production-nzbn');
  let openApi: OpenApi | undefined;
  const test: NzbnTest = {
    gateway,
    key,
    productionKey,
    owner,
    stranger,
    grant,
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
      // Every answer of the service is checked against its own OpenAPI document.
      openApi?.conformsUrl(String(method), full, response);
      return response;
    },
    close: () => gateway.close(),
  };
  openApi = await OpenApi.fetch(gateway.app, BASE);
  return test;
}
