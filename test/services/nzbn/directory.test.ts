import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedRegisterOrganisation } from '../../../src/identity/operations/register-seed.ts';
import { findUserById } from '../../../src/identity/store/users.ts';
import { outboxEntries } from '../../../src/platform/store/mail-outbox.ts';
import { seedOrganisations } from '../../../src/services/nzbn/sandbox/organisations.ts';
import { signedInUser as portalUser } from '../../portal/support/api.ts';
import { rsg } from '../../support/cli.ts';
import { type SignedInUser, signedInUser } from '../../support/oauth.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';

/**
 * Users, organisations, organisation users and business authorities: identity's own rows seen through
 * the register, with the access rules (a user themselves, an organisation's administrators its users,
 * operators everything), invitations by mail, and authorities requested, decided and used.
 */
let t: NzbnTest;
let operator: SignedInUser;
beforeAll(async () => {
  t = await nzbnTest({ entities: 200 });
  operator = await signedInUser(t.gateway, 'sandbox', { isOperator: true });
});
afterAll(() => t?.close());

const pool = () => t.gateway.runtime.gateway.pool;
const as = (user: SignedInUser) => ({ token: user.token });

/** The activation code of the newest invitation mailed to `email`. */
async function codeFor(email: string): Promise<string> {
  const [mail] = await outboxEntries(pool(), 1, email);
  return /Activation code: (\S+)/.exec(mail!.text)![1]!;
}

async function organisationOf(admin: SignedInUser, name: string): Promise<string> {
  const made = await t.call('POST', '/organisations', { ...as(admin), payload: { name } });
  expect(made.statusCode, made.body).toBe(201);
  return made.json().organisationId;
}

describe('users', () => {
  it('a user changed through the register is the same user the portal and the sign-in know', async () => {
    const user = await signedInUser(t.gateway);
    const changed = await t.call('PUT', `/users/${user.userId}`, {
      ...as(user),
      payload: {
        firstName: 'Aroha',
        lastName: 'Tester',
        phone: { areaCode: '4', number: '4991234' },
        postalAddress: { address1: '1 Lambton Quay', countryCode: 'NZ' },
      },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({
      userId: user.userId,
      email: user.email,
      fullName: 'Aroha Tester',
      phone: { areaCode: '4', countryCode: null, number: '4991234' },
      postalAddress: { address1: '1 Lambton Quay', countryCode: 'NZ' },
    });
    expect(changed.json().postalAddress.uniqueIdentifier).toEqual(expect.any(String));
    // The row the portal's account page and the sign-in read.
    expect(await findUserById(pool(), user.userId)).toMatchObject({
      email: user.email,
      name: 'Aroha Tester',
    });
    const read = await t.call('GET', '/users', as(user));
    expect(read.json().users).toEqual([changed.json()]);
  });

  it('a user sees and changes only themselves; an operator everyone', async () => {
    const user = await signedInUser(t.gateway);
    const other = await signedInUser(t.gateway);
    expect((await t.call('GET', `/users/${other.userId}`, as(user))).statusCode).toBe(403);
    const put = await t.call('PUT', `/users/${other.userId}`, { ...as(user), payload: { firstName: 'X' } });
    expect(put.statusCode).toBe(403);
    expect((await t.call('GET', `/users/${other.userId}`, as(operator))).statusCode).toBe(200);
    const all = (await t.call('GET', '/users', as(operator)))
      .json()
      .users.map((u: { userId: string }) => u.userId);
    expect(all).toEqual(expect.arrayContaining([user.userId, other.userId]));
    const registered = await t.call('POST', '/users', {
      ...as(user),
      payload: { acceptTerms: true, email: 'someone-else@example.test' },
    });
    expect(registered.statusCode).toBe(403);
    const byOperator = await t.call('POST', '/users', {
      ...as(operator),
      payload: { acceptTerms: true, email: `new-${Date.now()}@example.test`, firstName: 'New' },
    });
    expect(byOperator.statusCode, byOperator.body).toBe(201);
    expect(byOperator.json()).toMatchObject({ acceptTerms: true, status: 'ACTIVE', fullName: 'New' });
  });

  it('a change after If-Modified-Since is 412, nothing written; an email taken is 400', async () => {
    const user = await signedInUser(t.gateway);
    const other = await signedInUser(t.gateway);
    const long = 'Mon, 01 Jan 2001 00:00:00 GMT';
    const stale = await t.call('PUT', `/users/${user.userId}`, {
      ...as(user),
      headers: { 'If-Modified-Since': long },
      payload: { firstName: 'Late' },
    });
    expect(stale.statusCode).toBe(412);
    expect((await findUserById(pool(), user.userId))!.name).not.toBe('Late');
    const taken = await t.call('PUT', `/users/${user.userId}`, {
      ...as(user),
      payload: { email: other.email },
    });
    expect(taken.statusCode).toBe(400);
    expect(taken.json().list[0].field).toBe('email');
  });
});

describe('organisations and their users', () => {
  it('invites by mail; the invited user activates; a removal ends the authorities held through it', async () => {
    const admin = await signedInUser(t.gateway);
    const joiner = await signedInUser(t.gateway);
    const outsider = await signedInUser(t.gateway);
    const id = await organisationOf(admin, 'Invitations Ltd');
    const invited = await t.call('POST', `/organisations/${id}/organisationUsers`, {
      ...as(admin),
      payload: { role: 'MEMBER', email: { emailAddress: joiner.email.toUpperCase() }, firstName: 'Jo' },
    });
    expect(invited.statusCode, invited.body).toBe(201);
    expect(invited.json()).toMatchObject({ status: 'INACTIVE', role: 'MEMBER', user: null });
    // Not a member until activated: the organisation is not theirs to read.
    expect((await t.call('GET', `/organisations/${id}`, as(joiner))).statusCode).toBe(403);

    const code = await codeFor(joiner.email);
    const wrongPerson = await t.call('POST', '/organisations/activateOrganisationUser', {
      ...as(outsider),
      payload: { activationCode: code },
    });
    expect(wrongPerson.statusCode).toBe(403);
    const activated = await t.call('POST', '/organisations/activateOrganisationUser', {
      ...as(joiner),
      payload: { activationCode: code },
    });
    expect(activated.statusCode, activated.body).toBe(201);
    expect(activated.json()).toMatchObject({
      organisationUserId: invited.json().organisationUserId,
      status: 'ACTIVE',
      user: { href: expect.stringContaining(`/users/${joiner.userId}`) },
    });
    expect((await t.call('GET', `/organisations/${id}`, as(joiner))).statusCode).toBe(200);
    const again = await t.call('POST', '/organisations/activateOrganisationUser', {
      ...as(joiner),
      payload: { activationCode: code },
    });
    expect(again.statusCode).toBe(404);
    // A member sees only themselves; the administrator everyone, and the joiner's profile.
    const mine = await t.call('GET', `/organisations/${id}/organisationUsers`, as(joiner));
    expect(mine.json().items).toHaveLength(1);
    expect(
      (await t.call('GET', `/organisations/${id}/organisationUsers`, as(admin))).json().items,
    ).toHaveLength(2);
    expect((await t.call('GET', `/users/${joiner.userId}`, as(admin))).statusCode).toBe(200);

    // The joiner holds authority over an entity for the organisation, granted by a holder.
    const granted = await t.call('POST', '/authorities', {
      ...as(t.owner),
      payload: { nzbn: FIXTURE.authority, userId: joiner.userId, organisationId: id, approvalType: 'USER' },
    });
    expect(granted.statusCode, granted.body).toBe(201);
    const update = () =>
      t.call('POST', `/entities/${FIXTURE.authority}/trading-areas`, {
        ...as(joiner),
        payload: [{ tradingArea: 'Nelson' }],
      });
    expect((await update()).statusCode).toBe(200);
    const removed = await t.call(
      'DELETE',
      `/organisations/${id}/organisationUsers/${invited.json().organisationUserId}`,
      as(admin),
    );
    expect(removed.statusCode).toBe(204);
    expect((await update()).statusCode).toBe(403);
    const ended = await t.call('GET', `/authorities?user-id=${joiner.userId}&historic=true`, as(operator));
    expect(ended.json().items[0]).toMatchObject({ AuthorityStatus: 'REMOVED', organisationId: id });
  });

  it('an administrator of another organisation cannot invite, read or change its users', async () => {
    const admin = await signedInUser(t.gateway);
    const otherAdmin = await signedInUser(t.gateway);
    const id = await organisationOf(admin, 'Ours Ltd');
    await organisationOf(otherAdmin, 'Theirs Ltd');
    const invite = await t.call('POST', `/organisations/${id}/organisationUsers`, {
      ...as(otherAdmin),
      payload: { email: { emailAddress: otherAdmin.email } },
    });
    expect(invite.statusCode).toBe(403);
    expect(invite.json().errorCode).toBe('FORBIDDEN');
    expect((await t.call('GET', `/organisations/${id}/organisationUsers`, as(otherAdmin))).statusCode).toBe(
      403,
    );
    const rename = await t.call('PUT', `/organisations/${id}`, {
      ...as(otherAdmin),
      payload: { name: 'Taken' },
    });
    expect(rename.statusCode).toBe(403);
    expect(await outboxEntries(pool(), 1, otherAdmin.email)).toEqual([]);
  });

  it('an organisation keeps an administrator; a member cannot change roles', async () => {
    const admin = await signedInUser(t.gateway);
    const member = await signedInUser(t.gateway);
    const id = await organisationOf(admin, 'Kept Ltd');
    await t.call('POST', `/organisations/${id}/organisationUsers`, {
      ...as(admin),
      payload: { email: { emailAddress: member.email } },
    });
    const joined = await t.call('POST', '/organisations/activateOrganisationUser', {
      ...as(member),
      payload: { activationCode: await codeFor(member.email) },
    });
    const memberUrl = `/organisations/${id}/organisationUsers/${joined.json().organisationUserId}`;
    const promote = await t.call('PUT', memberUrl, { ...as(member), payload: { role: 'ADMINISTRATOR' } });
    expect(promote.statusCode).toBe(403);
    const users = (await t.call('GET', `/organisations/${id}/organisationUsers`, as(admin))).json().items;
    const own = users.find((u: { user: { href: string } | null }) => u.user?.href.endsWith(admin.userId));
    const leave = await t.call(
      'DELETE',
      `/organisations/${id}/organisationUsers/${own.organisationUserId}`,
      as(admin),
    );
    expect(leave.statusCode).toBe(400);
    expect(leave.json().list[0].field).toBe('organisationUserId');
  });
});

describe('business authorities', () => {
  it('requested with documents, approved by an operator, then used for a Primary Business Data update', async () => {
    const requester = await signedInUser(t.gateway);
    const nzbn = FIXTURE.soleTrader;
    const unsupported = await t.call('POST', '/authorities', {
      ...as(requester),
      payload: { nzbn, approvalType: 'REGISTRAR_LETTER' },
    });
    expect(unsupported.json().list[0].field).toBe('documents');
    const asked = await t.call('POST', '/authorities', {
      ...as(requester),
      payload: {
        nzbn,
        approvalType: 'REGISTRAR_ID_PROOF',
        AuthorityType: 'EXECUTIVE',
        supportingInformation: [{ metadataType: 'PASSPORT', Number: 'LA123456' }],
        documents: [{ documentType: 'ID', url: { href: 'https://example.test/id.pdf' } }],
        comment: 'I am the sole trader',
      },
    });
    expect(asked.statusCode, asked.body).toBe(201);
    expect(asked.json()).toMatchObject({
      nzbn,
      userId: requester.userId,
      AuthorityStatus: 'PENDING',
      AuthorityType: 'EXECUTIVE',
      approvalType: 'REGISTRAR_ID_PROOF',
      entityName: expect.any(String),
    });
    const url = `/authorities/${asked.json().authorityId}`;
    const update = () =>
      t.call('POST', `/entities/${nzbn}/websites`, {
        ...as(requester),
        payload: [{ url: `https://approved-${Date.now()}.example` }],
      });
    expect((await update()).statusCode).toBe(403);
    // Only an operator decides.
    const self = await t.call('PUT', url, { ...as(requester), payload: { AuthorityStatus: 'ACCEPTED' } });
    expect(self.statusCode).toBe(403);
    const approved = await t.call('PUT', url, { ...as(operator), payload: { AuthorityStatus: 'ACCEPTED' } });
    expect(approved.statusCode, approved.body).toBe(204);
    expect((await update()).statusCode).toBe(200);
    // The requester sees it accepted; surrendering it ends it.
    const mine = await t.call('GET', `/authorities?nzbn=${nzbn}&authority-status=accepted`, as(requester));
    expect(mine.json().items.map((a: { authorityId: string }) => a.authorityId)).toContain(
      asked.json().authorityId,
    );
    const surrendered = await t.call('PUT', url, {
      ...as(requester),
      payload: { AuthorityStatus: 'SURRENDERED', reason: 'Sold the business' },
    });
    expect(surrendered.statusCode).toBe(204);
    expect((await update()).statusCode).toBe(403);
  });

  it('a pending request is withdrawn by its holder or declined by an operator', async () => {
    const requester = await signedInUser(t.gateway);
    const ask = (nzbn: string) =>
      t.call('POST', '/authorities', {
        ...as(requester),
        payload: { nzbn, approvalType: 'REGISTRAR_LETTER', documents: [{ documentType: 'LETTER' }] },
      });
    const first = (await ask(FIXTURE.company)).json().authorityId;
    const second = (await ask(FIXTURE.orgParts)).json().authorityId;
    const twice = await ask(FIXTURE.company);
    expect(twice.statusCode).toBe(400);
    const withdrawn = await t.call('PUT', `/authorities/${first}`, {
      ...as(requester),
      payload: { AuthorityStatus: 'REMOVED' },
    });
    expect(withdrawn.statusCode).toBe(204);
    const declined = await t.call('PUT', `/authorities/${second}`, {
      ...as(operator),
      payload: { AuthorityStatus: 'REJECTED', reason: 'The letter is not the registrar’s' },
    });
    expect(declined.statusCode).toBe(204);
    const current = await t.call('GET', `/authorities?user-id=${requester.userId}`, as(requester));
    expect(current.json().totalItems).toBe(0);
    const all = await t.call(
      'GET',
      `/authorities?user-id=${requester.userId}&historic=true&sort-by=nzbn&sortorder=DESC&page-size=1`,
      as(requester),
    );
    expect(all.json()).toMatchObject({ totalItems: 2, pageSize: 1, sortBy: 'nzbn', sortOrder: 'DESC' });
    expect(all.json().items[0]).toMatchObject({ nzbn: FIXTURE.orgParts, AuthorityStatus: 'REJECTED' });
    expect(all.json().links.map((l: { rel: string }) => l.rel)).toContain('next');
    // Another user sees none of it.
    const stranger = await t.call(
      'GET',
      `/authorities?user-id=${requester.userId}&historic=true`,
      as(t.stranger),
    );
    expect(stranger.json().totalItems).toBe(0);
  });
});

describe('operators decide requests in the portal and with rsg', () => {
  const ask = async (requester: SignedInUser, nzbn: string) => {
    const asked = await t.call('POST', '/authorities', {
      ...as(requester),
      payload: { nzbn, approvalType: 'PROFESSIONAL_AUTHORITY', documents: [{ documentType: 'ENGAGEMENT' }] },
    });
    expect(asked.statusCode, asked.body).toBe(201);
    return asked.json().authorityId as string;
  };

  it('the approvals page lists a request; the operator accepts it and the holder may act at once', async () => {
    const requester = await signedInUser(t.gateway);
    const id = await ask(requester, FIXTURE.privateData);
    const portal = await portalUser(t.gateway, { operator: true });
    const queue = await portal.client.get('/portal/operator/approvals');
    expect(queue.body).toContain('Business authority requests');
    expect(queue.body).toContain(`/portal/operator/approvals/authority-requests/${id}`);
    const member = await portalUser(t.gateway);
    const byUser = await member.client.submit(
      '/portal/account',
      `/portal/operator/approvals/authority-requests/${id}`,
      { decision: 'approve' },
    );
    expect(byUser.statusCode).toBe(403);
    const accepted = await portal.client.submit(
      '/portal/operator/approvals',
      `/portal/operator/approvals/authority-requests/${id}`,
      { decision: 'approve', reason: 'Letter checked' },
    );
    expect(accepted.statusCode).toBe(303);
    const read = await t.call(
      'GET',
      `/authorities?nzbn=${FIXTURE.privateData}&user-id=${requester.userId}`,
      as(requester),
    );
    expect(read.json().items[0]).toMatchObject({ AuthorityStatus: 'ACCEPTED', reason: 'Letter checked' });
    const update = await t.call('POST', `/entities/${FIXTURE.privateData}/trading-areas`, {
      ...as(requester),
      payload: [{ tradingArea: 'Otago' }],
    });
    expect(update.statusCode).toBe(200);
  });

  it('rsg users pending-authorities lists it and decide-authority rejects it', async () => {
    const requester = await signedInUser(t.gateway);
    const id = await ask(requester, FIXTURE.removed);
    const urls = t.gateway.urls;
    const pending = await rsg(['users', 'pending-authorities', '--json'], { urls });
    expect(JSON.parse(pending.stdout).map((a: { id: string }) => a.id)).toContain(id);
    const rejected = await rsg(['users', 'decide-authority', '--authority', id, '--decision', 'reject'], {
      urls,
    });
    expect(rejected).toMatchObject({ code: 0, stdout: `authority ${id} rejected\n` });
    const again = await rsg(['users', 'decide-authority', '--authority', id, '--decision', 'accept'], {
      urls,
    });
    expect(again.code).not.toBe(0);
    const read = await t.call('GET', `/authorities?user-id=${requester.userId}&historic=true`, as(requester));
    expect(read.json().items[0].AuthorityStatus).toBe('REJECTED');
  });
});

describe('the sandbox seed', () => {
  it('makes the same organisations with users and authorities at each scale, once', async () => {
    expect(seedOrganisations('small')).toEqual(seedOrganisations('small'));
    expect(seedOrganisations('small')).toHaveLength(3);
    expect(seedOrganisations('full')).toHaveLength(12);
    expect(seedOrganisations('full').slice(0, 3)).toEqual(seedOrganisations('small'));
    const at = new Date('2025-01-01T00:00:00Z');
    for (const organisation of seedOrganisations('small')) {
      expect(await seedRegisterOrganisation(pool(), organisation, at)).toBe(true);
      expect(await seedRegisterOrganisation(pool(), organisation, at)).toBe(false);
    }
    const users = await t.call('GET', '/organisations/sandbox-org-01/organisationUsers', as(operator));
    expect(users.json().items.map((u: { role: string; status: string }) => [u.role, u.status])).toEqual([
      ['ADMINISTRATOR', 'ACTIVE'],
      ['MEMBER', 'ACTIVE'],
      ['ADMINISTRATOR', 'ACTIVE'],
    ]);
    const held = await t.call('GET', '/authorities?organisation-id=sandbox-org-01', as(operator));
    expect(
      held
        .json()
        .items.map((a: { AuthorityStatus: string }) => a.AuthorityStatus)
        .sort(),
    ).toEqual(['ACCEPTED', 'PENDING']);
  });
});
