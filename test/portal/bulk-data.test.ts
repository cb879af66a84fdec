import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bulkExportOf } from '../../src/platform/bulk-files.ts';
import { setClock } from '../../src/platform/environment-clocks.ts';
import { listOutbox } from '../../src/platform/mail.ts';
import { derivedSigningKey, signedQuery } from '../../src/platform/signed-url.ts';
import { type JobsHandle, startJobs } from '../../src/runtime.ts';
import { BULK_COLUMNS } from '../../src/services/nzbn/domain/bulk-record.ts';
import { publicView } from '../../src/services/nzbn/domain/privacy.ts';
import { sandboxDocuments } from '../../src/services/nzbn/sandbox/documents.ts';
import { seedNzbn } from '../../src/services/nzbn/sandbox/seed.ts';
import { findEntity, parseEntity } from '../../src/services/nzbn/store/entities.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { csrfOf, type PortalClient, signedInUser } from './support/api.ts';

let t: TestGateway;
let jobs: JobsHandle;
let folder: string;
let user: Awaited<ReturnType<typeof signedInUser>>;
let operator: Awaited<ReturnType<typeof signedInUser>>;
const previous = process.env.RSG_BULK_DATA_DIR;

/** 23:00 on 30 November 2026 in New Zealand: an hour before December starts on the sandbox clock. */
const LATE_NOVEMBER = '2026-11-30T10:00:00Z';

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'rsg-bulk-'));
  process.env.RSG_BULK_DATA_DIR = folder;
  t = await testGateway({ clockMode: 'virtual', env: { RSG_BULK_DATA_MONTHS: '2' } });
  // The fixed test businesses and 3,000 generated entities: more than one batch of the export.
  await seedNzbn(
    {
      database: t.runtime.environments.sandbox,
      scale: 'small',
      clock: t.runtime.clocks.for('sandbox'),
      log: () => {},
      identity: { grantOperatorsAuthority: async () => {} },
    },
    { entities: 3000, chunkSize: 1000, threads: 0 },
  );
  await setClock(t.runtime.gateway.pool, 'sandbox', LATE_NOVEMBER);
  await t.runtime.clocks.reload();
  jobs = await startJobs(t.runtime, 'http://127.0.0.1:8080');
  user = await signedInUser(t);
  operator = await signedInUser(t, { operator: true });
}, 120_000);

afterAll(async () => {
  await jobs?.stop();
  await t?.close();
  if (previous === undefined) delete process.env.RSG_BULK_DATA_DIR;
  else process.env.RSG_BULK_DATA_DIR = previous;
  await rm(folder, { recursive: true, force: true });
});

const sandboxEntities = async () =>
  (
    await t.runtime.environments.sandbox.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM nzbn_entities',
    )
  ).rows[0]!.n;

const links = (body: string): string[] =>
  [...body.matchAll(/href="(\/portal\/bulk-data\/[^"]+)"/g)].map((match) =>
    match[1]!.replaceAll('&#38;', '&'),
  );

async function download(client: PortalClient | undefined, link: string) {
  return client ? client.get(link) : t.app.inject({ method: 'GET', url: link });
}

describe('bulk data by approval', () => {
  it('refuses bad requests with a 400 naming the field', async () => {
    const page = await user.client.get('/portal/bulk-data');
    expect(page.statusCode).toBe(200);
    const csrf = csrfOf(page.body);
    const wrongEnvironment = await user.client.request({
      url: '/portal/bulk-data/access',
      form: { csrf, environment: 'staging', purpose: 'research' },
    });
    expect(wrongEnvironment.statusCode).toBe(400);
    expect(wrongEnvironment.body).toContain('environment: must be sandbox or production');
    const noPurpose = await user.client.request({
      url: '/portal/bulk-data/access',
      form: { csrf, environment: 'sandbox', purpose: '  ' },
    });
    expect(noPurpose.statusCode).toBe(400);
    expect(noPurpose.body).toContain('purpose: required');
    const noCsrf = await user.client.request({
      url: '/portal/bulk-data/access',
      form: { environment: 'sandbox', purpose: 'research' },
    });
    expect(noCsrf.statusCode).toBe(403);
  });

  it('goes from request through approval and the month-start export to a verified download', async () => {
    const asked = await user.client.submit('/portal/bulk-data', '/portal/bulk-data/access', {
      environment: 'sandbox',
      purpose: 'Matching our customer records',
    });
    expect(asked.statusCode).toBe(303);
    expect(asked.headers.location).toBe('/portal/bulk-data?asked=sandbox');
    expect((await user.client.get(asked.headers.location as string)).body).toContain(
      'Your sandbox request is waiting for an operator',
    );
    const again = await user.client.submit('/portal/bulk-data', '/portal/bulk-data/access', {
      environment: 'sandbox',
      purpose: 'Once more',
    });
    expect(again.headers.location).toBe('/portal/bulk-data?already=sandbox');
    // The operators were told.
    expect((await listOutbox(t.runtime.gateway.pool, { to: operator.email }))[0]?.subject).toBe(
      'Bulk data access request (sandbox)',
    );

    // Not a user's page to decide on.
    const queue = await operator.client.get('/portal/operator/approvals');
    expect(queue.body).toContain('Bulk data access requests');
    const id = /\/portal\/operator\/bulk-data\/access\/([0-9a-f-]{36})/.exec(queue.body)![1]!;
    const byUser = await user.client.request({
      url: `/portal/operator/bulk-data/access/${id}`,
      form: { csrf: csrfOf((await user.client.get('/portal/bulk-data')).body), decision: 'approve' },
    });
    expect(byUser.statusCode).toBe(403);
    // Declining needs a reason.
    const bare = await operator.client.submit(
      '/portal/operator/approvals',
      `/portal/operator/bulk-data/access/${id}`,
      {
        decision: 'decline',
      },
    );
    expect(bare.statusCode).toBe(400);
    expect(bare.body).toContain('reason: required');
    const approved = await operator.client.submit(
      '/portal/operator/approvals',
      `/portal/operator/bulk-data/access/${id}`,
      { decision: 'approve', reason: '' },
    );
    expect(approved.statusCode).toBe(303);
    const mail = (await listOutbox(t.runtime.gateway.pool, { to: user.email }))[0]!;
    expect(mail.subject).toBe('Your sandbox bulk data access was approved');

    // Approved, but no month has started since the gateway started: no files yet.
    await jobs.settle();
    expect(await bulkExportOf(path.join(folder, 'sandbox'), 'nzbn-entities', '2026-11')).toBeUndefined();
    const empty = await user.client.get('/portal/bulk-data');
    expect(empty.body).toContain('No files yet');
    expect(links(empty.body)).toEqual([]);

    // The sandbox clock moves over the month start: December's export is written.
    await setClock(t.runtime.gateway.pool, 'sandbox', '2026-11-30T11:00:01Z');
    await vi.waitFor(
      async () =>
        expect(await bulkExportOf(path.join(folder, 'sandbox'), 'nzbn-entities', '2026-12')).toBeDefined(),
      { timeout: 60_000, interval: 200 },
    );
    const manifest = (await bulkExportOf(path.join(folder, 'sandbox'), 'nzbn-entities', '2026-12'))!;
    const count = await sandboxEntities();
    expect(count).toBeGreaterThan(3000);
    expect(manifest.files.map((file) => [file.format, file.rows])).toEqual([
      ['json', count],
      ['csv', count],
    ]);
    // Nothing half-written is left in the folder.
    expect((await readdir(path.join(folder, 'sandbox'))).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    const page = await user.client.get('/portal/bulk-data');
    const [jsonLink, csvLink] = links(page.body);
    expect(jsonLink).toContain('/portal/bulk-data/sandbox/files/nzbn-entities-2026-12.json.gz?expires=');
    expect(csvLink).toContain('/portal/bulk-data/sandbox/files/nzbn-entities-2026-12.csv.gz?expires=');

    // The link works without a session (curl), and the bytes are the manifest's.
    const json = await download(undefined, jsonLink!);
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toBe('application/gzip');
    expect(json.rawPayload.length).toBe(manifest.files[0]!.bytes);
    expect(createHash('sha256').update(json.rawPayload).digest('hex')).toBe(manifest.files[0]!.sha256);
    const records = JSON.parse(gunzipSync(json.rawPayload).toString('utf8')) as { nzbn: string }[];
    expect(records).toHaveLength(count);
    expect(new Set(records.map((record) => record.nzbn)).size).toBe(count);
    // Each record is the entity's public view: an entity hiding something shows it hidden.
    const hiding = (
      await t.runtime.environments.sandbox.pool.query<{ nzbn: string }>(
        'SELECT nzbn FROM nzbn_entities WHERE hides_items ORDER BY nzbn LIMIT 1',
      )
    ).rows[0]!.nzbn;
    const stored = (await findEntity(t.runtime.environments.sandbox.pool, sandboxDocuments, hiding))!;
    const record = records.find((candidate) => candidate.nzbn === hiding);
    expect(record).toEqual(publicView(parseEntity(stored)));
    expect(record).not.toEqual(parseEntity(stored));

    const csv = await download(user.client, csvLink!);
    expect(csv.statusCode).toBe(200);
    expect(createHash('sha256').update(csv.rawPayload).digest('hex')).toBe(manifest.files[1]!.sha256);
    const lines = gunzipSync(csv.rawPayload).toString('utf8').split('\r\n');
    expect(lines.at(-1)).toBe('');
    expect(lines[0]).toBe(BULK_COLUMNS.map((column) => column.name).join(','));
    // Quoted fields may not hold line breaks here (addresses are joined with ", "), so lines are records.
    expect(lines.length - 2).toBe(count);

    // A changed signature, path or caller is refused; an expired link is gone.
    const tampered = jsonLink!.replace(
      /signature=(.)/,
      (_m, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`,
    );
    const refused = await download(undefined, tampered);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('This download link is not valid');
    const otherFile = jsonLink!.replace('.json.gz', '.csv.gz');
    expect((await download(undefined, otherFile)).statusCode).toBe(403);
    const key = derivedSigningKey(t.runtime.keyedUniform, 'portal|download');
    const filePath = '/portal/bulk-data/sandbox/files/nzbn-entities-2026-12.json.gz';
    const expired = await download(
      undefined,
      `${filePath}?${signedQuery(key, filePath, user.user.id, Date.now() - 3_600_000, 900)}`,
    );
    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain('This download link has expired');

    // A well-signed link made for a user without approved access: 403.
    const stranger = await signedInUser(t);
    const forStranger = await download(
      stranger.client,
      `${filePath}?${signedQuery(key, filePath, stranger.user.id, Date.now(), 900)}`,
    );
    expect(forStranger.statusCode).toBe(403);
    expect(forStranger.body).toContain('No bulk data access');
    // And the stranger's page offers the request form, no files.
    const strangerPage = await stranger.client.get('/portal/bulk-data');
    expect(links(strangerPage.body)).toEqual([]);
    expect(strangerPage.body).toContain('Ask for sandbox bulk data access');
    // Production is approved separately.
    const production = `/portal/bulk-data/production/files/nzbn-entities-2026-12.json.gz`;
    expect(
      (
        await download(
          undefined,
          `${production}?${signedQuery(key, production, user.user.id, Date.now(), 900)}`,
        )
      ).statusCode,
    ).toBe(403);
  });

  it('lets an operator revoke approved access: its links stop at once, the user is told and may ask again', async () => {
    const before = await user.client.get('/portal/bulk-data');
    const [link] = links(before.body);
    expect((await download(undefined, link!)).statusCode).toBe(200);
    const approvals = await operator.client.get('/portal/operator/approvals');
    expect(approvals.body).toContain('Approved bulk data access');
    const id = /\/portal\/operator\/bulk-data\/access\/([0-9a-f-]{36})\/revoke/.exec(approvals.body)?.[1];
    expect(id).toBeDefined();
    // A reason is required; only operators revoke; an unknown id is a 404.
    const bare = await operator.client.submit(
      '/portal/operator/approvals',
      `/portal/operator/bulk-data/access/${id}/revoke`,
      { reason: '' },
    );
    expect(bare.statusCode).toBe(400);
    expect(bare.body).toContain('reason: required');
    const byUser = await user.client.submit(
      '/portal/bulk-data',
      `/portal/operator/bulk-data/access/${id}/revoke`,
      {
        reason: 'mine',
      },
    );
    expect(byUser.statusCode).toBe(403);
    const unknown = await operator.client.submit(
      '/portal/operator/approvals',
      '/portal/operator/bulk-data/access/00000000-0000-4000-8000-000000000000/revoke',
      { reason: 'no such grant' },
    );
    expect(unknown.statusCode).toBe(404);
    expect((await download(undefined, link!)).statusCode).toBe(200);

    const revoked = await operator.client.submit(
      '/portal/operator/approvals',
      `/portal/operator/bulk-data/access/${id}/revoke`,
      { reason: 'The agreed project has ended' },
    );
    expect(revoked.statusCode).toBe(303);
    // The link made while approved stops at once.
    const refused = await download(undefined, link!);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('No bulk data access');
    const mail = (await listOutbox(t.runtime.gateway.pool, { to: user.email }))[0]!;
    expect(mail.subject).toBe('Your sandbox bulk data access was revoked');
    expect(mail.text).toContain('Reason from the operator: The agreed project has ended');
    // Revoking twice finds nothing approved.
    const twice = await operator.client.submit(
      '/portal/operator/approvals',
      `/portal/operator/bulk-data/access/${id}/revoke`,
      { reason: 'again' },
    );
    expect(twice.statusCode).toBe(404);
    // The user's page says so, shows no files, and offers the form again.
    const after = await user.client.get('/portal/bulk-data');
    expect(after.body).toContain('revoked');
    expect(after.body).toContain('Reason: The agreed project has ended');
    expect(links(after.body)).toEqual([]);
    const again = await user.client.submit('/portal/bulk-data', '/portal/bulk-data/access', {
      environment: 'sandbox',
      purpose: 'A new project',
    });
    expect(again.statusCode).toBe(303);
    const waiting = await user.client.get('/portal/bulk-data');
    expect(waiting.body).toContain('waiting');
    // Approved again, the files are back (the tests below use this access).
    const queue = await operator.client.get('/portal/operator/approvals');
    const renewed = /\/portal\/operator\/bulk-data\/access\/([0-9a-f-]{36})"/.exec(queue.body)?.[1];
    expect(renewed).toBeDefined();
    expect(renewed).not.toBe(id);
    const approved = await operator.client.submit(
      '/portal/operator/approvals',
      `/portal/operator/bulk-data/access/${renewed}`,
      { decision: 'approve', reason: '' },
    );
    expect(approved.statusCode).toBe(303);
    const [fresh] = links((await user.client.get('/portal/bulk-data')).body);
    expect((await download(undefined, fresh!)).statusCode).toBe(200);
  });

  it('lets an operator run an export now, and only an operator', async () => {
    const byUser = await user.client.submit('/portal/bulk-data', '/portal/operator/bulk-data/export', {
      environment: 'production',
    });
    expect(byUser.statusCode).toBe(403);
    const ran = await operator.client.submit('/portal/bulk-data', '/portal/operator/bulk-data/export', {
      environment: 'production',
    });
    expect(ran.statusCode).toBe(303);
    expect(ran.headers.location).toBe('/portal/bulk-data?exported=production#bulk-production');
    const month = (await bulkExportOf(path.join(folder, 'production'), 'nzbn-entities', currentNzMonth()))!;
    const rows = (
      await t.runtime.environments.production.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM nzbn_entities',
      )
    ).rows[0]!.n;
    expect(month.files.map((file) => file.rows)).toEqual([rows, rows]);
  });

  it('keeps the last RSG_BULK_DATA_MONTHS months and deletes older ones', async () => {
    await setClock(t.runtime.gateway.pool, 'sandbox', '2026-12-31T11:00:01Z');
    await vi.waitFor(
      async () =>
        expect(await bulkExportOf(path.join(folder, 'sandbox'), 'nzbn-entities', '2027-01')).toBeDefined(),
      { timeout: 60_000, interval: 200 },
    );
    expect(await bulkExportOf(path.join(folder, 'sandbox'), 'nzbn-entities', '2026-12')).toBeDefined();
    await setClock(t.runtime.gateway.pool, 'sandbox', '2027-01-31T11:00:01Z');
    await vi.waitFor(
      async () =>
        expect(await bulkExportOf(path.join(folder, 'sandbox'), 'nzbn-entities', '2027-02')).toBeDefined(),
      { timeout: 60_000, interval: 200 },
    );
    // The prune removes a month's manifest first, then its files (never listed without them): its
    // files may outlive the manifest for a moment, so the test waits for both to be gone.
    await vi.waitFor(
      async () => {
        expect(await bulkExportOf(path.join(folder, 'sandbox'), 'nzbn-entities', '2026-12')).toBeUndefined();
        const left = await readdir(path.join(folder, 'sandbox'));
        expect(left.filter((name) => name.includes('2026-12'))).toEqual([]);
      },
      { timeout: 10_000, interval: 100 },
    );
    const names = await readdir(path.join(folder, 'sandbox'));
    expect(names.filter((name) => name.startsWith('nzbn-entities-2027-')).sort()).toEqual([
      'nzbn-entities-2027-01.csv.gz',
      'nzbn-entities-2027-01.json.gz',
      'nzbn-entities-2027-01.manifest.json',
      'nzbn-entities-2027-02.csv.gz',
      'nzbn-entities-2027-02.json.gz',
      'nzbn-entities-2027-02.manifest.json',
    ]);
    // A link to a deleted month: gone.
    const key = derivedSigningKey(t.runtime.keyedUniform, 'portal|download');
    const old = '/portal/bulk-data/sandbox/files/nzbn-entities-2026-12.csv.gz';
    const gone = await download(undefined, `${old}?${signedQuery(key, old, user.user.id, Date.now(), 900)}`);
    expect(gone.statusCode).toBe(410);
  });
});

function currentNzMonth(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Auckland', year: 'numeric', month: '2-digit' })
    .format(new Date())
    .slice(0, 7);
}
