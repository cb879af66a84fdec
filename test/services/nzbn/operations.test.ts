import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../src/gateway/service-context.ts';
import { noPreconditions } from '../../../src/platform/http/operation.ts';
import { addListItem, ENTITY_LISTS } from '../../../src/services/nzbn/operations/entity-lists.ts';
import { changePrivacySettings } from '../../../src/services/nzbn/operations/entity-updates.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { sandboxContext, userCaller } from './support/context.ts';

const OPERATIONS = path.resolve(import.meta.dirname, '../../../src/services/nzbn/operations');

describe('operations/ speak no HTTP', () => {
  it('no file of services/nzbn/operations imports Fastify', () => {
    const files = readdirSync(OPERATIONS).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      const text = readFileSync(path.join(OPERATIONS, name), 'utf8');
      expect(text, name).not.toMatch(/from ['"]fastify['"]|from ['"]@fastify\//);
      expect(text, name).not.toMatch(/FastifyRequest|FastifyReply/);
    }
  });
});

describe('operations called without HTTP (as the CLI or an import does)', () => {
  let t: NzbnTest;
  let context: ServiceContext;
  beforeAll(async () => {
    t = await nzbnTest();
    context = sandboxContext(t.gateway);
  });
  afterAll(() => t?.close());

  const E = FIXTURE.authority;
  const read = (nzbn: string) => t.call('GET', `/entities/${nzbn}`, { token: t.owner.token });

  it('adds an item to a list: the entity the API reads has it, with the validators it answers', async () => {
    const websites = ENTITY_LISTS.find((list) => list.path === 'websites')!;
    const added = await addListItem(context, {
      caller: userCaller(t.owner.userId),
      nzbn: E,
      preconditions: noPreconditions,
      list: websites,
      item: { url: 'https://operations.example.test' },
    });
    expect(added.result).toMatchObject({ url: 'https://operations.example.test' });
    const after = await read(E);
    expect(after.json().websites).toContainEqual(added.result);
    expect(after.headers.etag).toBe(added.validators.etag);
    expect(after.headers['last-modified']).toBe(added.validators.lastModified.toUTCString());
  });

  it('checks business authority and the domain rules as the API does', async () => {
    const input = { nzbn: E, preconditions: noPreconditions, settings: { emailPrivateInformation: true } };
    await expect(changePrivacySettings(context, { ...input, caller: undefined })).rejects.toMatchObject({
      status: 403,
    });
    await expect(
      changePrivacySettings(context, { ...input, caller: userCaller(t.owner.userId), nzbn: '9429000003026' }),
    ).rejects.toMatchObject({ status: 400, fields: [{ field: 'nzbn' }] });
  });

  it('holds the preconditions it is given inside its transaction: a failing one writes nothing', async () => {
    const before = await read(E);
    const stale = () => {
      throw Object.assign(new Error('stale'), { status: 412 });
    };
    await expect(
      changePrivacySettings(context, {
        caller: userCaller(t.owner.userId),
        nzbn: E,
        preconditions: stale,
        settings: { emailPrivateInformation: true },
      }),
    ).rejects.toThrow('stale');
    expect((await read(E)).headers.etag).toBe(before.headers.etag);
  });
});
