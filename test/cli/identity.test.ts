import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mayAct } from '../../src/identity/store/authorities.ts';
import { rsg } from '../support/cli.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway();
});
afterAll(() => gateway?.close());

const object = { environment: 'sandbox' as const, service: 'nzbn', kind: 'entity', id: '9429046246448' };

describe('rsg identity commands', () => {
  it('users, passwords, organisations and authorities', async () => {
    const urls = gateway.urls;
    expect((await rsg(['users', 'add', '--email', 'owner@example.test'], { urls })).code).toBe(0);
    const passwordFile = path.join(tmpdir(), `rsg-pw-${process.pid}`);
    await writeFile(passwordFile, 'a long enough password\n');
    const password = await rsg(
      ['users', 'set-password', '--email', 'owner@example.test', '--password-file', passwordFile],
      { urls },
    );
    expect(password).toMatchObject({ code: 0, stdout: 'password set for owner@example.test\n' });
    await writeFile(passwordFile, 'short\n');
    const short = await rsg(
      ['users', 'set-password', '--email', 'owner@example.test', '--password-file', passwordFile],
      { urls },
    );
    expect(short.stderr).toBe('rsg: the password must be 10 to 200 characters\n');

    const granted = await rsg(
      [
        'users',
        'grant-authority',
        '--email',
        'owner@example.test',
        '--service',
        'nzbn',
        '--kind',
        'entity',
        '--id',
        object.id,
        '--json',
      ],
      { urls },
    );
    expect(granted.code).toBe(0);
    const authority = JSON.parse(granted.stdout);
    const user = await gateway.runtime.gateway.pool.query(
      "SELECT id FROM users WHERE email = 'owner@example.test'",
    );
    expect(await mayAct(gateway.runtime.gateway.pool, object, { userId: user.rows[0].id })).toBe(true);
    expect(
      await mayAct(
        gateway.runtime.gateway.pool,
        { ...object, environment: 'production' },
        { userId: user.rows[0].id },
      ),
    ).toBe(false);

    const listed = await rsg(
      ['users', 'authorities', '--service', 'nzbn', '--kind', 'entity', '--id', object.id, '--json'],
      { urls },
    );
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id: authority.id, holderName: 'owner@example.test' }),
    ]);
    const revoked = await rsg(
      [
        'users',
        'revoke-authority',
        '--authority',
        authority.id,
        '--service',
        'nzbn',
        '--kind',
        'entity',
        '--id',
        object.id,
      ],
      { urls },
    );
    expect(revoked.code).toBe(0);
    expect(await mayAct(gateway.runtime.gateway.pool, object, { userId: user.rows[0].id })).toBe(false);

    // Authority held by an organisation reaches its members.
    expect(
      (await rsg(['organisations', 'add', '--identifier', 'ACME-1', '--name', 'Acme'], { urls })).code,
    ).toBe(0);
    expect(
      (
        await rsg(
          ['organisations', 'add-member', '--identifier', 'ACME-1', '--email', 'owner@example.test'],
          { urls },
        )
      ).code,
    ).toBe(0);
    expect(
      (
        await rsg(
          [
            'users',
            'grant-authority',
            '--organisation',
            'ACME-1',
            '--service',
            'nzbn',
            '--kind',
            'entity',
            '--id',
            object.id,
          ],
          { urls },
        )
      ).code,
    ).toBe(0);
    expect(await mayAct(gateway.runtime.gateway.pool, object, { userId: user.rows[0].id })).toBe(true);
  });

  it('oauth clients create and rotate-key', async () => {
    const urls = gateway.urls;
    await rsg(['users', 'add', '--email', 'dev2@example.test'], { urls });
    const created = await rsg(
      ['oauth', 'clients', 'create', '--user', 'dev2@example.test', '--name', 'Job', '--json'],
      { urls },
    );
    expect(created.code).toBe(0);
    const { clientId, clientSecret } = JSON.parse(created.stdout);
    const token = await gateway.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=client_credentials&client_id=${clientId}&client_secret=${clientSecret}`,
    });
    expect(token.statusCode).toBe(200);
    const bad = await rsg(
      ['oauth', 'clients', 'create', '--user', 'dev2@example.test', '--grant', 'authorization_code'],
      { urls },
    );
    expect(bad.stderr).toBe('rsg: authorization_code needs at least one redirect URI\n');
    const rotated = await rsg(['oauth', 'rotate-key', '--json'], { urls });
    expect(JSON.parse(rotated.stdout).kid).toMatch(/^[\w-]{16}$/);
  });
});
