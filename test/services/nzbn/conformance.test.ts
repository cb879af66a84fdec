import { randomUUID } from 'node:crypto';
import { addUser } from '../../../src/identity/operations/users.ts';
import { conformanceMatrix } from '../../support/conformance.ts';
import type { OperationAccess } from '../../support/service-fixture.ts';
import { FIXTURE, type NzbnTest } from './support/api.ts';
import { nzbnFixture } from './support/harness-fixture.ts';

/**
 * The rules stated once for every register, on every operation of the business number register
 * (conformance.ts). A deletion deletes: the matrix calls each operation several times (negotiation,
 * then the stale preconditions), so each call of a deletion addresses an object of its own, made here,
 * and a deletion that honoured no precondition could not hide behind a 404 for an object already gone.
 */
const CALLS = 3;
let t: NzbnTest;
const base = nzbnFixture((made) => {
  t = made;
});
const spare = {
  watchlistId: [] as string[],
  authorityId: [] as string[],
  organisationUserId: [] as string[],
};
/** A path whose `name` is a different object on every call (the last one again once they run out). */
const fresh = (name: keyof typeof spare): Record<string, string> => ({
  get [name]() {
    const ids = spare[name];
    return ids.length > 1 ? ids.shift()! : ids[0]!;
  },
});
const made = async (url: string, payload: unknown, take: string) => {
  const response = await t.call('POST', url, { payload, token: t.owner.token });
  if (response.statusCode !== 201) throw new Error(`${url}: ${response.body}`);
  return response.json()[take] as string;
};

conformanceMatrix({
  ...base,
  async setup() {
    const subject = await base.setup();
    for (let i = 0; i < CALLS; i++) {
      spare.watchlistId.push(
        await made(
          '/watchlists',
          {
            name: `Spare ${i}`,
            channel: 'EMAIL',
            wildcard: 'ALL',
            watchlistEmailAddresses: ['s@example.test'],
          },
          'watchlistId',
        ),
      );
      const { id } = await addUser(t.gateway.runtime.gateway.pool, {
        email: `spare-${randomUUID()}@example.test`,
      });
      spare.authorityId.push(
        await made(
          '/authorities',
          { nzbn: FIXTURE.authority, userId: id, approvalType: 'USER' },
          'authorityId',
        ),
      );
      spare.organisationUserId.push(
        await made(
          `/organisations/${subject.ids.organisationId}/organisationUsers`,
          { email: { emailAddress: `spare-${randomUUID()}@example.test` } },
          'organisationUserId',
        ),
      );
    }
    return subject;
  },
  operations: {
    ...base.operations,
    'DELETE /watchlists/{watchlistId}': {
      ...(base.operations['DELETE /watchlists/{watchlistId}'] as OperationAccess),
      path: fresh('watchlistId'),
    },
    'PUT /authorities/{authorityId}': {
      ...(base.operations['PUT /authorities/{authorityId}'] as OperationAccess),
      path: fresh('authorityId'),
    },
    'DELETE /organisations/{organisationId}/organisationUsers/{organisationUserId}': {
      ...(base.operations[
        'DELETE /organisations/{organisationId}/organisationUsers/{organisationUserId}'
      ] as OperationAccess),
      path: fresh('organisationUserId'),
    },
  },
});
