import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, setPassword } from '../../src/identity/operations/users.ts';
import { seedNzbn } from '../../src/services/nzbn/sandbox/seed.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { uniqueEmail } from './support/api.ts';
import {
  ARTIFACTS,
  CHROMIUM,
  expectLabelledControls,
  freePort,
  hasChromium,
  launchChromium,
  screenshots,
} from './support/browser.ts';

type Browser = Awaited<ReturnType<typeof launchChromium>>;
type Page = Awaited<ReturnType<Browser['newPage']>>;

if (!hasChromium) {
  console.warn(`portal bulk data browser test skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);
}

describe.skipIf(!hasChromium)('bulk data and data requests in Chromium', { timeout: 180_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let base: string;
  let user: Page;
  let operator: Page;
  let folder: string;
  const userEmail = uniqueEmail();
  const operatorEmail = uniqueEmail();
  const saved = { bulk: process.env.RSG_BULK_DATA_DIR, requests: process.env.RSG_DATA_REQUESTS_DIR };

  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'rsg-bulk-browser-'));
    process.env.RSG_BULK_DATA_DIR = path.join(folder, 'bulk');
    process.env.RSG_DATA_REQUESTS_DIR = path.join(folder, 'requests');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    gateway = await testGateway({ env: { PORT: String(port), RSG_PUBLIC_URL: base } });
    await gateway.app.listen({ port, host: '127.0.0.1' });
    await seedNzbn(
      {
        database: gateway.runtime.environments.sandbox,
        scale: 'small',
        clock: gateway.runtime.clocks.for('sandbox'),
        log: () => {},
        identity: { grantOperatorsAuthority: async () => {} },
      },
      { entities: 0, threads: 0 },
    );
    const pool = gateway.runtime.gateway.pool;
    const person = await addUser(pool, { email: userEmail, name: 'Dana Analyst' });
    await setPassword(pool, person.id, 'analysts want the data');
    const admin = await addUser(pool, { email: operatorEmail, name: 'Olive Operator', isOperator: true });
    await setPassword(pool, admin.id, 'operators approve things');
    browser = await launchChromium();
    user = await (await browser.newContext({ acceptDownloads: true })).newPage();
    operator = await (await browser.newContext({ acceptDownloads: true })).newPage();
    await signIn(user, userEmail, 'analysts want the data');
    await signIn(operator, operatorEmail, 'operators approve things');
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    if (saved.bulk === undefined) delete process.env.RSG_BULK_DATA_DIR;
    else process.env.RSG_BULK_DATA_DIR = saved.bulk;
    if (saved.requests === undefined) delete process.env.RSG_DATA_REQUESTS_DIR;
    else process.env.RSG_DATA_REQUESTS_DIR = saved.requests;
    await rm(folder, { recursive: true, force: true });
  });

  async function signIn(page: Page, email: string, password: string) {
    await page.goto(`${base}/portal/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/signin'));
  }

  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name, exact: true }).click();

  it('bulk data: request → operator approves → export now → download', async () => {
    await nav(user, 'Bulk data');
    await user.getByRole('heading', { name: 'Bulk data', level: 1 }).waitFor();
    await expectLabelledControls(user);
    await screenshots(user, 'bulk-data-ask');
    await user
      .getByLabel('What you will use the sandbox data for')
      .fill('Testing our import of the register');
    await user.getByRole('button', { name: 'Ask for sandbox bulk data access' }).click();
    await user.getByText('Your sandbox request is waiting for an operator').waitFor();
    await screenshots(user, 'bulk-data-waiting');

    await nav(operator, 'Approvals');
    await operator.getByRole('heading', { name: 'Bulk data access requests' }).waitFor();
    await screenshots(operator, 'approvals-bulk-data');
    await operator.getByRole('button', { name: `Approve sandbox bulk data for ${userEmail}` }).click();
    await operator.getByText('No bulk data access requests are waiting.').waitFor();

    await nav(operator, 'Bulk data');
    await operator.getByRole('button', { name: 'Run the sandbox export now' }).click();
    await operator.getByText('The sandbox export ran; its files are listed below.').waitFor();
    await screenshots(operator, 'bulk-data-operator');

    await user.reload();
    await user.getByRole('link', { name: /^JSON file of / }).waitFor();
    await expectLabelledControls(user);
    await screenshots(user, 'bulk-data-files');
    const count = (
      await gateway.runtime.environments.sandbox.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM nzbn_entities',
      )
    ).rows[0]!.n;
    const [download] = await Promise.all([
      user.waitForEvent('download'),
      user.getByRole('link', { name: /^CSV file of / }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^nzbn-entities-\d{4}-\d{2}\.csv\.gz$/);
    const saved = path.join(ARTIFACTS, download.suggestedFilename());
    await download.saveAs(saved);
    const lines = gunzipSync(await readFile(saved))
      .toString('utf8')
      .split('\r\n');
    expect(lines.length - 2).toBe(count);

    // The operator revokes the access (a reason required): the user's page says so, without files.
    await nav(operator, 'Approvals');
    await operator.getByRole('heading', { name: 'Approved bulk data access' }).waitFor();
    await expectLabelledControls(operator);
    await screenshots(operator, 'approvals-bulk-revoke');
    await operator.getByLabel('Reason (required; the user is mailed)').fill('The agreed project has ended');
    await operator.getByRole('button', { name: `Revoke sandbox bulk data for ${userEmail}` }).click();
    await operator.getByText('No one has bulk data access.').waitFor();
    await user.reload();
    await user.getByText('Reason: The agreed project has ended').waitFor();
    expect(await user.getByRole('link', { name: /^CSV file of / }).count()).toBe(0);
    await screenshots(user, 'bulk-data-revoked');
  });

  it('data request: the form → operator answers with a file → the requester downloads it', async () => {
    await nav(user, 'Data requests');
    await user.getByRole('heading', { name: 'Data requests', level: 1 }).waitFor();
    await expectLabelledControls(user);
    await screenshots(user, 'data-requests-form');
    await user.getByLabel('What data').fill('Every offer’s name, issuer and status since 2020');
    await user.getByLabel('Purpose').fill('A study of the market');
    await user.getByLabel('JSON').check();
    await user.getByRole('button', { name: 'Send the request' }).click();
    await user.getByText('Your request is recorded').waitFor();

    await nav(operator, 'Answer data requests');
    await operator.getByText('Every offer’s name, issuer and status since 2020').waitFor();
    await expectLabelledControls(operator);
    await screenshots(operator, 'operator-data-requests');
    const bytes = Buffer.from(
      JSON.stringify({ offers: [{ number: 'OFR10001', nonce: randomBytes(8).toString('hex') }] }),
    );
    await operator
      .getByLabel(/The answer's file/)
      .setInputFiles({ name: 'offers.json', mimeType: 'application/json', buffer: bytes });
    await operator.getByLabel('Note to the requester (optional)').fill('As of today');
    await operator.getByRole('button', { name: 'Answer with this file' }).click();
    await operator.getByText('The request was answered').waitFor();
    await screenshots(operator, 'operator-data-requests-answered');

    await user.reload();
    await user.getByRole('link', { name: 'Download offers.json' }).waitFor();
    await screenshots(user, 'data-requests-answered');
    const [download] = await Promise.all([
      user.waitForEvent('download'),
      user.getByRole('link', { name: 'Download offers.json' }).click(),
    ]);
    const saved = path.join(ARTIFACTS, 'data-request-offers.json');
    await download.saveAs(saved);
    const got = await readFile(saved);
    expect(createHash('sha256').update(got).digest('hex')).toBe(
      createHash('sha256').update(bytes).digest('hex'),
    );
  });
});
