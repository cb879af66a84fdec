import { type Sandbox, startSandbox } from 'register-services-gateway/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// The business number register's fixed test cases (docs/guide/business-number-register.md): the same
// in every sandbox, whatever the seed.
const TEST_COMPANY = '9429000001007';
const UPDATABLE = '9429000003025';

let sandbox: Sandbox;
let token: string;

const call = (path: string, init: RequestInit & { user?: boolean } = {}) =>
  fetch(`${sandbox.registers.nzbn}${path}`, {
    ...init,
    headers: {
      'Ocp-Apim-Subscription-Key': sandbox.keys.nzbn,
      ...(init.user ? { Authorization: `Bearer ${token}` } : {}),
      ...(init.body ? { 'Content-Type': 'application/json' } : {}),
    },
  });

interface Entity {
  entityName: string;
  australianBusinessNumber?: string | null;
}
const entity = async (nzbn: string) => (await (await call(`/entities/${nzbn}`)).json()) as Entity;

beforeAll(async () => {
  sandbox = await startSandbox();
  // A user acting for the business they may update.
  ({ token } = await sandbox.user({ authorities: [{ service: 'nzbn', kind: 'entity', id: UPDATABLE }] }));
  await sandbox.snapshot('suite-start');
});
afterAll(() => sandbox?.stop());
// Every test starts from the same registers.
beforeEach(() => sandbox.restore('suite-start'));

describe('the business number register', () => {
  it('finds a fixed test case', async () => {
    const response = await call(`/entities/${TEST_COMPANY}`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as Entity).entityName).toBe('SANDBOX TEST COMPANY LIMITED');
  });

  it('takes an update from a user acting for the business', async () => {
    const response = await call(`/entities/${UPDATABLE}/action-update-australian-business-numbers`, {
      method: 'POST',
      body: JSON.stringify({ australianBusinessNumber: '51824753556' }),
      user: true,
    });
    expect(response.status).toBe(200);
    expect((await entity(UPDATABLE)).australianBusinessNumber).toBe('51824753556');
  });

  it('starts each test from the registers as the suite found them', async () => {
    expect((await entity(UPDATABLE)).australianBusinessNumber).not.toBe('51824753556');
  });

  it('refuses a call without a key', async () => {
    const response = await fetch(`${sandbox.registers.nzbn}/entities/${TEST_COMPANY}`);
    expect(response.status).toBe(401);
  });
});
