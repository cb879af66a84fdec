import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIPTION_ERRORS, SubscriptionError } from '../../src/gateway/errors.ts';
import { changeState, createSubscription } from '../../src/gateway/operations/subscriptions.ts';
import { AuthorityError, IDENTITY_ERRORS, OrganisationError, UserError } from '../../src/identity/errors.ts';
import { grantAuthority } from '../../src/identity/operations/authorities.ts';
import { addOrganisation } from '../../src/identity/operations/organisations.ts';
import { addUser } from '../../src/identity/operations/users.ts';
import type { ErrorCode } from '../../src/platform/http/error-codes.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * Identity's and the gateway's refusals carry catalogue codes: a caller (the portal, the CLI, the admin
 * routes) tells one from another by its code, never by its message, and the error handler renders each
 * with its code's status. Messages stay as they were.
 */
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway();
});
afterAll(() => gateway?.close());
const pool = () => gateway.runtime.gateway.pool;

async function refusal(promise: Promise<unknown>): Promise<{ error: unknown; code: ErrorCode }> {
  const error = await promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e,
  );
  return { error, code: (error as { code: ErrorCode }).code };
}

describe('identity', () => {
  it('users: an email that is none, a weak password, a taken email — each its code', async () => {
    const bad = await refusal(addUser(pool(), { email: 'not-an-email' }));
    expect(bad.error).toBeInstanceOf(UserError);
    expect(bad.code).toBe(IDENTITY_ERRORS.invalidEmail);
    expect((bad.error as Error).message).toBe('"not-an-email" is not an email address');
    expect((await refusal(addUser(pool(), { email: 'weak@example.test', password: 'x' }))).code).toBe(
      IDENTITY_ERRORS.weakPassword,
    );
    await addUser(pool(), { email: 'taken@example.test' });
    const taken = await refusal(addUser(pool(), { email: 'taken@example.test' }));
    expect(taken.code).toBe(IDENTITY_ERRORS.userExists);
    expect(taken.code.status).toBe(409);
  });

  it('organisations and authorities: a bad identifier, a taken one, the other environment', async () => {
    const bad = await refusal(
      addOrganisation(pool(), { environment: 'sandbox', identifier: 'a b', name: 'A' }),
    );
    expect(bad.error).toBeInstanceOf(OrganisationError);
    expect(bad.code).toBe(IDENTITY_ERRORS.invalidOrganisationIdentifier);
    const made = await addOrganisation(pool(), {
      environment: 'sandbox',
      identifier: 'coded-org',
      name: 'C',
    });
    expect(
      (await refusal(addOrganisation(pool(), { environment: 'sandbox', identifier: 'coded-org', name: 'C' })))
        .code,
    ).toBe(IDENTITY_ERRORS.organisationExists);
    const other = await refusal(
      grantAuthority(
        pool(),
        { environment: 'production', service: 'nzbn', kind: 'entity', id: '9429000001007' },
        { organisationId: made.id },
      ),
    );
    expect(other.error).toBeInstanceOf(AuthorityError);
    expect(other.code).toBe(IDENTITY_ERRORS.organisationEnvironment);
  });
});

describe('subscriptions', () => {
  it('an unknown product, an unknown subscription, a state that cannot follow', async () => {
    const user = await addUser(pool(), { email: 'subscriber@example.test' });
    const product = await refusal(
      createSubscription(pool(), { userId: user.id, productId: 'no-such-product', state: 'active' }),
    );
    expect(product.error).toBeInstanceOf(SubscriptionError);
    expect(product.code).toBe(SUBSCRIPTION_ERRORS.unknownProduct);
    expect(
      (await refusal(changeState(pool(), '00000000-0000-4000-8000-000000000000', 'suspended'))).code,
    ).toBe(SUBSCRIPTION_ERRORS.unknownSubscription);
    const { subscriptionId } = await createSubscription(pool(), {
      userId: user.id,
      productId: 'sandbox-nzbn',
      state: 'active',
    });
    await changeState(pool(), subscriptionId, 'cancelled');
    expect((await refusal(changeState(pool(), subscriptionId, 'active'))).code).toBe(
      SUBSCRIPTION_ERRORS.subscriptionState,
    );
  });
});
