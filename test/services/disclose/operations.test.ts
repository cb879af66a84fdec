import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../src/gateway/service-context.ts';
import { listNewOrChanged, searchRecords } from '../../../src/services/disclose/operations/searches.ts';
import { type DiscloseGateway, discloseGateway, sandboxContext } from './support.ts';

const OPERATIONS = path.resolve(import.meta.dirname, '../../../src/services/disclose/operations');

/** A JSON answer's content as a client reads it: what an operation's body must serialise to. */
const asSent = (body: unknown) => JSON.parse(JSON.stringify(body));

const FIRST_PAGE = { page: 1, pageSize: 20, offset: 0 };

describe('operations/ speak no HTTP', () => {
  it('no file of services/disclose/operations imports Fastify', () => {
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
  let d: DiscloseGateway;
  let context: ServiceContext;
  beforeAll(async () => {
    d = await discloseGateway();
    context = sandboxContext(d.gateway);
  }, 120_000);
  afterAll(() => d?.close());

  it('searches: the same content and Last-Modified as the API answers', async () => {
    const found = await searchRecords(context, { subject: 'offer', issuer: 'Harbour', page: FIRST_PAGE });
    const answer = await d.get('/offers?issuer=Harbour');
    expect(asSent(found.body)).toEqual(answer.json());
    expect(found.lastModified.toUTCString()).toBe(answer.headers['last-modified']);
    const changed = await listNewOrChanged(context, {
      subject: 'scheme',
      from: '2020-01-01',
      to: '2026-05-20',
      page: FIRST_PAGE,
    });
    expect(asSent(changed.body)).toEqual(
      (await d.get('/new-or-changed-schemes?start-date=2020-01-01&end-date=2026-05-20')).json(),
    );
  });

  it('searches check their rules as the API does, naming the field', async () => {
    await expect(
      listNewOrChanged(context, { subject: 'offer', from: '2026-02-30', to: '2026-03-01', page: FIRST_PAGE }),
    ).rejects.toMatchObject({ field: 'start-date' });
    await expect(
      listNewOrChanged(context, { subject: 'offer', from: '2026-03-02', to: '2026-03-01', page: FIRST_PAGE }),
    ).rejects.toMatchObject({ field: 'end-date' });
    await expect(
      searchRecords(context, { subject: 'offer', nameOrNumber: '  ', page: FIRST_PAGE }),
    ).rejects.toMatchObject({ field: 'name-or-number' });
  });
});
