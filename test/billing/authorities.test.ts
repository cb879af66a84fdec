import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskAccountNumber } from '../../src/billing/domain/authority.ts';
import {
  approveAuthority,
  cancelAuthority,
  currentAuthority,
  declineAuthority,
  listAuthorities,
  requestAuthority,
} from '../../src/billing/store/authorities.ts';
import { RuleError } from '../../src/platform/errors.ts';
import { rsg } from '../support/cli.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { apiCaller, organisationOf } from './support/api.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway();
});
afterAll(() => gateway?.close());

const production = () => gateway.runtime.environments.production.pool;
const now = () => new Date();
const account = { accountName: 'Kauri Holdings Ltd', accountNumber: '12 3140 0123456 00' };

async function refused(promise: Promise<unknown>): Promise<RuleError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RuleError);
  return error as RuleError;
}

async function newOrganisation(environment: 'sandbox' | 'production' = 'production') {
  const caller = await apiCaller(gateway, environment);
  return { caller, ...(await organisationOf(gateway, environment, caller.subscriberId)) };
}

describe('the life cycle', () => {
  it('requested → approved → cancelled, recording who and when; the account number kept masked', async () => {
    const organisation = await newOrganisation();
    const requested = await requestAuthority(production(), 'production', {
      organisationId: organisation.id,
      requestedBy: organisation.caller.subscriberId,
      ...account,
      now: now(),
    });
    expect(requested).toMatchObject({
      state: 'requested',
      accountName: 'Kauri Holdings Ltd',
      accountNumberMasked: '12-3140-****456-00',
      requestedBy: organisation.caller.subscriberId,
      decidedAt: null,
    });
    expect((await currentAuthority(production(), organisation.id))?.id).toBe(requested.id);
    const approved = await approveAuthority(production(), requested.id, {
      by: null,
      note: 'checked',
      now: now(),
    });
    expect(approved).toMatchObject({ state: 'approved', decisionNote: 'checked' });
    expect(approved.decidedAt).toBeInstanceOf(Date);
    const cancelled = await cancelAuthority(production(), requested.id, {
      by: organisation.caller.subscriberId,
      now: now(),
    });
    expect(cancelled).toMatchObject({
      state: 'cancelled',
      decisionNote: 'checked',
      cancelledBy: organisation.caller.subscriberId,
    });
    expect(await currentAuthority(production(), organisation.id)).toBeUndefined();
    // A new request after a cancellation is allowed; the old row stays for the record.
    const again = await requestAuthority(production(), 'production', {
      organisationId: organisation.id,
      ...account,
      now: now(),
    });
    const declined = await declineAuthority(production(), again.id, { note: 'account closed', now: now() });
    expect(declined.state).toBe('declined');
    expect(
      (await listAuthorities(production(), { organisationId: organisation.id })).map((a) => a.state).sort(),
    ).toEqual(['cancelled', 'declined']);
  });

  it('refuses illegal moves with 409 naming the state, and unknown ids with 404', async () => {
    const organisation = await newOrganisation();
    const requested = await requestAuthority(production(), 'production', {
      organisationId: organisation.id,
      ...account,
      now: now(),
    });
    const cancelEarly = await refused(cancelAuthority(production(), requested.id, { now: now() }));
    expect(cancelEarly.code).toMatchObject({ code: 'conflict', status: 409 });
    expect(cancelEarly.message).toBe(
      'The direct debit authority is requested; only an approved authority can be cancelled.',
    );
    const twice = await refused(
      requestAuthority(production(), 'production', {
        organisationId: organisation.id,
        ...account,
        now: now(),
      }),
    );
    expect(twice.code.code).toBe('conflict');
    expect(twice.message).toContain('already has a requested direct debit authority');
    await declineAuthority(production(), requested.id, { now: now() });
    for (const move of [approveAuthority, declineAuthority, cancelAuthority]) {
      const error = await refused(move(production(), requested.id, { now: now() }));
      expect(error.code.code).toBe('conflict');
      expect(error.message).toMatch(/^The direct debit authority is declined; only a/);
    }
    const missing = await refused(
      approveAuthority(production(), '00000000-0000-4000-8000-000000000009', { now: now() }),
    );
    expect(missing.code).toMatchObject({ code: 'not-found', status: 404 });
    expect((await refused(approveAuthority(production(), 'nope', { now: now() }))).field).toBe('authority');
  });

  it('two operators deciding at once: exactly one decision applies', async () => {
    const organisation = await newOrganisation();
    const requested = await requestAuthority(production(), 'production', {
      organisationId: organisation.id,
      ...account,
      now: now(),
    });
    const results = await Promise.allSettled([
      approveAuthority(production(), requested.id, { now: now() }),
      declineAuthority(production(), requested.id, { now: now() }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
  });

  it('needs the account in production and checks it; the sandbox approves a dummy one at once', async () => {
    const organisation = await newOrganisation();
    const missing = await refused(
      requestAuthority(production(), 'production', { organisationId: organisation.id, now: now() }),
    );
    expect(missing.field).toBe('accountName');
    const bad = await refused(
      requestAuthority(production(), 'production', {
        organisationId: organisation.id,
        accountName: 'X',
        accountNumber: '123',
        now: now(),
      }),
    );
    expect(bad.field).toBe('accountNumber');
    expect(() => maskAccountNumber('12-3140-0123456-001')).not.toThrow();
    const sandboxOrganisation = await newOrganisation('sandbox');
    const dummy = await requestAuthority(gateway.runtime.environments.sandbox.pool, 'sandbox', {
      organisationId: sandboxOrganisation.id,
      now: now(),
    });
    expect(dummy).toMatchObject({
      state: 'approved',
      accountName: 'Sandbox dummy account',
      accountNumberMasked: null,
    });
  });
});

describe('rsg billing authorities', () => {
  it('request, list, approve, cancel; illegal moves and unknown names are clear errors', async () => {
    const organisation = await newOrganisation();
    const urls = gateway.urls;
    const requested = await rsg(
      [
        'billing',
        'authorities',
        'request',
        '--environment',
        'production',
        '--organisation',
        organisation.identifier,
        '--account-name',
        'Kauri Holdings Ltd',
        '--account-number',
        '12-3140-0123456-00',
        '--json',
      ],
      { urls },
    );
    expect(requested.stderr).toBe('');
    expect(requested.code).toBe(0);
    const [authority] = JSON.parse(requested.stdout);
    expect(authority).toMatchObject({
      state: 'requested',
      environment: 'production',
      organisation: organisation.identifier,
    });
    const listed = await rsg(
      ['billing', 'authorities', 'list', '--state', 'requested', '--environment', 'production'],
      { urls },
    );
    expect(listed.stdout).toContain(
      `${authority.id}\tproduction\t${organisation.identifier}\trequested\tKauri Holdings Ltd\t12-3140-****456-00`,
    );
    const early = await rsg(['billing', 'authorities', 'cancel', '--authority', authority.id], { urls });
    expect(early).toMatchObject({ code: 1, stdout: '' });
    expect(early.stderr).toBe(
      'rsg: The direct debit authority is requested; only an approved authority can be cancelled.\n',
    );
    const approved = await rsg(
      ['billing', 'authorities', 'approve', '--authority', authority.id, '--note', 'ok'],
      { urls },
    );
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/\tapproved\t.*\tok\n$/);
    const again = await rsg(['billing', 'authorities', 'approve', '--authority', authority.id], { urls });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('is approved; only a requested authority can be approved');
    expect(
      (await rsg(['billing', 'authorities', 'cancel', '--authority', authority.id], { urls })).code,
    ).toBe(0);
    const unknown = await rsg(
      ['billing', 'authorities', 'request', '--environment', 'production', '--organisation', 'no-such-org'],
      { urls },
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no production organisation "no-such-org"');
    const noId = await rsg(
      ['billing', 'authorities', 'approve', '--authority', '00000000-0000-4000-8000-000000000009'],
      { urls },
    );
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain(
      'no direct debit authority 00000000-0000-4000-8000-000000000009 in either environment',
    );
    expect((await rsg(['billing', 'authorities', 'list', '--state', 'maybe'], { urls })).stderr).toContain(
      '--state must be one of requested, approved, declined, cancelled',
    );
    expect(
      (await rsg(['billing', 'authorities', 'request', '--organisation', 'x'], { urls })).stderr,
    ).toContain('--environment must be sandbox or production');
  });
});
