import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrganisation, personalSandboxOrganisation } from '../../src/identity/operations/organisations.ts';
import { addMember, organisationsOf } from '../../src/identity/store/memberships.ts';
import { migrate } from '../../src/platform/db/migrations.ts';
import { openDatabase } from '../../src/platform/db/pool.ts';
import { threeLeggedToken } from '../../src/portal/examples/sign-in.ts';
import { GATEWAY_MIGRATIONS } from '../../src/runtime.ts';
import { signedInUser as portalUser } from '../portal/support/api.ts';
import { type PpsrTest, ppsrTest, registration, requestId } from '../services/ppsr/support/api.ts';
import { signedInUser } from '../support/oauth.ts';
import { freshDatabases } from '../support/runtime.ts';

/**
 * A user's personal sandbox organisation (who pays their sandbox fees when they belong to no other) cannot
 * be squatted: its identifier was once derived from the user's id (the `sub` of any token of theirs), so
 * another user could make that organisation first in the portal and be joined by the victim as co-owner,
 * then read the victim's fees and transactions. Now the identifier is random, the organisation is tied to
 * its user, the system joins nobody to an organisation somebody else made, and users cannot choose the
 * identifiers the system uses.
 */
let test: PpsrTest;
beforeAll(async () => {
  test = await ppsrTest();
}, 120_000);
afterAll(async () => test?.close());

const gatewayPool = () => test.gateway.runtime.gateway.pool;
const derivedIdentifier = (userId: string) => `sandbox-${userId.replaceAll('-', '').slice(0, 12)}`;

describe('personal sandbox organisations', () => {
  it('refuses, in the portal, an identifier the sandbox keeps for itself (any case), and writes nothing', async () => {
    const victim = await signedInUser(test.gateway);
    const attacker = await portalUser(test.gateway);
    for (const identifier of [derivedIdentifier(victim.userId), 'sandbox-operators', 'SANDBOX-x']) {
      const response = await attacker.client.submit('/portal/sandbox', '/portal/sandbox/organisations', {
        identifier,
      });
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('identifier:');
      expect(response.body).toContain('kept for organisations the sandbox makes');
    }
    expect(await organisationsOf(gatewayPool(), attacker.user.id)).toEqual([]);
  });

  it('a squatted identifier gets the attacker nothing: the victim pays into an organisation of their own', async () => {
    const victim = await signedInUser(test.gateway);
    const attacker = await portalUser(test.gateway);
    // The organisation the old rule would have joined the victim to, made ahead of them (as an earlier
    // version of the portal allowed).
    const squatted = await addOrganisation(gatewayPool(), {
      environment: 'sandbox',
      identifier: derivedIdentifier(victim.userId),
      name: 'squatted',
    });
    await addMember(gatewayPool(), squatted.id, attacker.user.id, 'owner');

    const id = requestId();
    const registered = await test.call('POST', '/financing-statements', {
      body: registration(),
      token: victim.token,
      headers: { 'api-business-govt-nz-Request-Id': id },
    });
    expect(registered.statusCode, registered.body).toBe(201);

    const victims = await organisationsOf(gatewayPool(), victim.userId);
    expect(victims).toHaveLength(1);
    expect(victims[0]!.id).not.toBe(squatted.id);
    expect(victims[0]!.identifier).toMatch(/^sandbox-[0-9a-f]{12}$/);
    expect(victims[0]!.identifier).not.toBe(derivedIdentifier(victim.userId));
    const members = await gatewayPool().query('SELECT user_id FROM memberships WHERE organisation_id = $1', [
      squatted.id,
    ]);
    expect(members.rows).toEqual([{ user_id: attacker.user.id }]);

    // The victim's fee is the victim's organisation's; the squatted one has none.
    const fees = await test.gateway.runtime.environments.sandbox.pool.query(
      'SELECT organisation_id FROM fee_records WHERE request_id = $1',
      [id],
    );
    expect(fees.rows).toEqual([{ organisation_id: victims[0]!.id }]);

    // And the attacker, reading their fees and transactions as the register shows them, sees none of it.
    const attackerToken = await threeLeggedToken(
      test.gateway.app,
      gatewayPool(),
      { id: attacker.user.id, email: attacker.email, password: attacker.password },
      { environment: 'sandbox', clientName: 'Attacker app' },
    );
    const theirFees = await test.call('GET', '/customer-organisation-fees', { token: attackerToken });
    expect(theirFees.statusCode, theirFees.body).toBe(200);
    expect(theirFees.body).not.toContain(id);
    const theirTransactions = await test.call('GET', `/customer-organisation-transactions?request-id=${id}`, {
      token: attackerToken,
    });
    expect(theirTransactions.body).not.toContain(registered.json().registrationNumber);
  });

  it('is made once, also by concurrent first calls, and joins only its own user', async () => {
    const user = await signedInUser(test.gateway);
    const made = await Promise.all(
      Array.from({ length: 8 }, () => personalSandboxOrganisation(gatewayPool(), user.userId)),
    );
    expect(new Set(made).size).toBe(1);
    const rows = await gatewayPool().query(
      'SELECT o.personal_of, m.user_id, m.role FROM organisations o JOIN memberships m ON m.organisation_id = o.id WHERE o.id = $1',
      [made[0]],
    );
    expect(rows.rows).toEqual([{ personal_of: user.userId, user_id: user.userId, role: 'owner' }]);
  });
});

describe('migration 006', () => {
  it('ties an old personal organisation to its user only when that user is its only member', async () => {
    const databases = await freshDatabases();
    const database = openDatabase(databases.gateway, 1);
    const before = await mkdtemp(path.join(tmpdir(), 'rsg-identity-005-'));
    try {
      const identity = GATEWAY_MIGRATIONS.find((source) => source.module === 'identity')!;
      for (const name of await readdir(identity.dir)) {
        if (Number(name.slice(0, 3)) <= 5)
          await copyFile(path.join(identity.dir, name), path.join(before, name));
      }
      const upTo005 = GATEWAY_MIGRATIONS.map((source) =>
        source.module === 'identity' ? { ...source, dir: before } : source,
      );
      await migrate(database.pool, upTo005);
      const pool = database.pool;
      const user = async (email: string) =>
        (
          await pool.query<{ id: string }>('INSERT INTO users (email, name) VALUES ($1, $1) RETURNING id', [
            email,
          ])
        ).rows[0]!.id;
      const organisation = async (identifier: string, members: string[]) => {
        const id = (
          await pool.query<{ id: string }>(
            `INSERT INTO organisations (environment, identifier, name) VALUES ('sandbox', $1, $1) RETURNING id`,
            [identifier],
          )
        ).rows[0]!.id;
        for (const member of members)
          await pool.query(
            `INSERT INTO memberships (organisation_id, user_id, role) VALUES ($1, $2, 'owner')`,
            [id, member],
          );
        return id;
      };
      const alone = await user('alone@example.test');
      const victim = await user('victim@example.test');
      const squatter = await user('squatter@example.test');
      const personal = await organisation(derivedIdentifier(alone), [alone]);
      const squatted = await organisation(derivedIdentifier(victim), [squatter, victim]);
      await migrate(database.pool, GATEWAY_MIGRATIONS);
      const rows = await pool.query<{ id: string; personal_of: string | null }>(
        'SELECT id, personal_of FROM organisations WHERE id = ANY($1::uuid[])',
        [[personal, squatted]],
      );
      const of = new Map(rows.rows.map((row) => [row.id, row.personal_of]));
      expect(of.get(personal)).toBe(alone);
      expect(of.get(squatted)).toBeNull();
    } finally {
      await database.close();
      await rm(before, { recursive: true, force: true });
      await databases.drop();
    }
  });
});
