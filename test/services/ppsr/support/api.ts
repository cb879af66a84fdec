import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { AppOptions } from '../../../../src/app.ts';
import { businessNumberRegister } from '../../../../src/services/nzbn/store/business-numbers.ts';
import { seedBusinessNumbers } from '../../../support/business-numbers.ts';
import type { SignedInUser } from '../../../support/oauth.ts';
import { type TestGateway, testGateway } from '../../../support/runtime.ts';
import { serviceTest } from '../../../support/service-test.ts';

export const BASE = '/sandbox/ppsr/v2';
export const PRODUCTION = '/gateway/ppsr/v2';

export interface PpsrTest {
  gateway: TestGateway;
  key: string;
  productionKey: string;
  user: SignedInUser;
  /** A company of the sandbox business number register. */
  company: { name: string; nzbn: string };
  call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    options?: {
      body?: unknown;
      headers?: Record<string, string>;
      key?: string;
      token?: string | null;
      base?: string;
    },
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/**
 * A gateway with a small business number register (its companies are debtors here), a signed-in user
 * and keys for both environments. The user's token is sent unless `token: null`.
 */
export async function ppsrTest(
  options: { env?: Record<string, string>; app?: AppOptions } = {},
): Promise<PpsrTest> {
  const gateway = await testGateway({
    ...(options.env ? { env: options.env } : {}),
    ...(options.app ? { app: options.app } : {}),
  });
  const sandbox = gateway.runtime.environments.sandbox;
  let company: { name: string; nzbn: string } | undefined;
  const test = await serviceTest(gateway, 'ppsr', BASE, async () => {
    await seedBusinessNumbers(gateway, 200);
    [company] = await businessNumberRegister(sandbox).companies(1);
  });
  const user = test.owner;
  return {
    gateway,
    key: test.key,
    productionKey: test.productionKey,
    user,
    company: company!,
    // The shared call (test/support/service-test.ts) checks every answer against the OpenAPI document.
    call(method, path, o = {}) {
      const token = o.token === undefined ? user.token : o.token;
      return test.call(method, `${o.base ?? BASE}${path}`, {
        key: o.key ?? test.key,
        ...(token ? { token } : {}),
        headers: { ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers },
        ...(o.body !== undefined ? { payload: JSON.stringify(o.body) } : {}),
      });
    },
    close: test.close,
  };
}

export const requestId = () => randomUUID();

export const registration = (overrides: Record<string, unknown> = {}) => ({
  debtors: [{ debtorType: 'person', firstName: 'Mere', lastName: 'Tester', dateOfBirth: '1980-05-17' }],
  securedParties: [{ name: 'Test Lender Limited', email: 'lender@example.test' }],
  collaterals: [
    {
      collateralType: 'GOODS_MOTOR_VEHICLES',
      motorVehicles: [{ make: 'Toyota', model: 'Hilux', year: 2019, registrationPlate: 'ABC123' }],
    },
  ],
  ...overrides,
});
