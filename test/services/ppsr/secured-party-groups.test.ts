import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PpsrTest, ppsrTest, registration } from './support/api.ts';

/**
 * Secured party groups are referenced, not copied: a statement under a group shows the group's current
 * parties (a group update changes its answer and ETag, not its version), each version the parties as
 * they stood, and its verification statements go to the group's email. A group a statement names cannot
 * be deleted; an unused one can.
 */
let test: PpsrTest;
beforeAll(async () => {
  test = await ppsrTest();
}, 120_000);
afterAll(async () => test?.close());

const group = (suffix: string, parties: string[]) => ({
  name: `Lenders ${suffix}`,
  email: `group-${suffix}@example.test`,
  securedParties: parties.map((name) => ({ name, email: `${name.toLowerCase()}@example.test` })),
});

async function createGroup(body: ReturnType<typeof group>) {
  const created = await test.call('POST', '/secured-party-groups', { body });
  expect(created.statusCode, created.body).toBe(201);
  return { id: created.json().securedPartyGroupId as string, etag: String(created.headers.etag) };
}

const mailTo = async (registrationNumber: string) =>
  (
    await test.gateway.runtime.environments.sandbox.pool.query<{ version: number; to: string }>(
      `SELECT version, "to" FROM ppsr_verification_statements WHERE registration_number = $1 ORDER BY id`,
      [registrationNumber],
    )
  ).rows;

const names = (answer: { securedParties: { name: string }[] }) => answer.securedParties.map((p) => p.name);

describe('a statement under a secured party group', () => {
  it('shows the group as it stands, each version as it stood, and mails the group', async () => {
    const suffix = String(Date.now());
    const made = await createGroup(group(`a${suffix}`, ['Alpha']));
    const { securedParties: _, ...withoutParties } = registration();
    const created = await test.call('POST', '/financing-statements', {
      body: { ...withoutParties, securedPartyGroupId: made.id },
    });
    expect(created.statusCode, created.body).toBe(201);
    const number = created.json().registrationNumber as string;
    expect(names(created.json())).toEqual(['Alpha']);
    expect(await mailTo(number)).toEqual([{ version: 1, to: `group-a${suffix}@example.test` }]);
    const path = `/financing-statements/${number}`;
    const before = await test.call('GET', path);

    // The group changes: parties and email.
    const updated = await test.call('PUT', `/secured-party-groups/${made.id}`, {
      body: group(`b${suffix}`, ['Beta', 'Gamma']),
      headers: { 'if-match': made.etag },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const after = await test.call('GET', path);
    expect(after.statusCode).toBe(200);
    expect(after.json().version).toBe(1);
    expect(names(after.json())).toEqual(['Beta', 'Gamma']);
    expect(after.json().securedPartyGroupId).toBe(made.id);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    // The old ETag no longer holds: a change sent with it is refused, nothing written.
    const stale = await test.call('PUT', `${path}/discharge`, {
      headers: { 'if-match': String(before.headers.etag) },
    });
    expect(stale.statusCode).toBe(412);
    const versions = (await test.call('GET', `${path}/versions`)).json().versions;
    expect(versions.map(names)).toEqual([['Alpha']]);

    // The next change is a version with the parties as they stand, and its statement goes to the group.
    const amended = await test.call('PUT', path, {
      body: { debtors: registration().debtors, collaterals: [{ collateralType: 'AAPP' }] },
      headers: { 'if-match': String(after.headers.etag) },
    });
    expect(amended.statusCode, amended.body).toBe(200);
    expect(names(amended.json())).toEqual(['Beta', 'Gamma']);
    const listed = (await test.call('GET', `${path}/versions`)).json().versions;
    expect(listed.map(names)).toEqual([['Alpha'], ['Beta', 'Gamma']]);
    expect(await mailTo(number)).toEqual([
      { version: 1, to: `group-a${suffix}@example.test` },
      { version: 2, to: `group-b${suffix}@example.test` },
    ]);

    // Its parties are the group's: an amendment does not list them.
    const listing = await test.call('PUT', path, {
      body: { ...registration(), collaterals: [{ collateralType: 'AAPP' }] },
    });
    expect(listing.statusCode).toBe(400);
    expect(listing.json().errors[0].field).toBe('securedParties');
  });
});

describe('deleting a secured party group (ours)', () => {
  it('is refused while a statement names it, and deletes an unused one', async () => {
    const suffix = String(Date.now());
    const used = await createGroup(group(`u${suffix}`, ['Delta']));
    const { securedParties: _, ...withoutParties } = registration();
    const created = await test.call('POST', '/financing-statements', {
      body: { ...withoutParties, securedPartyGroupId: used.id },
    });
    expect(created.statusCode, created.body).toBe(201);
    const refused = await test.call('DELETE', `/secured-party-groups/${used.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().type).toBe('about:blank#secured-party-group-in-use');
    expect(refused.json().detail).toContain('1 financing statement');
    expect((await test.call('GET', `/secured-party-groups/${used.id}`)).statusCode).toBe(200);
    // A discharged statement still names it.
    await test.call('PUT', `/financing-statements/${created.json().registrationNumber}/discharge`);
    expect((await test.call('DELETE', `/secured-party-groups/${used.id}`)).statusCode).toBe(409);

    const unused = await createGroup(group(`n${suffix}`, ['Epsilon']));
    const stale = await test.call('DELETE', `/secured-party-groups/${unused.id}`, {
      headers: { 'if-match': '"9"' },
    });
    expect(stale.statusCode).toBe(412);
    const deleted = await test.call('DELETE', `/secured-party-groups/${unused.id}`, {
      headers: { 'if-match': unused.etag },
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(deleted.body).toBe('');
    expect((await test.call('GET', `/secured-party-groups/${unused.id}`)).statusCode).toBe(404);
    expect((await test.call('DELETE', `/secured-party-groups/${unused.id}`)).statusCode).toBe(404);
  });
});
