import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICES } from '../../src/services/registry.ts';
import { hasChromium, launchChromium } from '../portal/support/browser.ts';
import { rsg } from '../support/cli.ts';
import { freshDatabases, TEST_SERVER_SECRET } from '../support/runtime.ts';

/**
 * The README's quick start, followed as a first-time user follows it: start the gateway as `npm start`
 * does, read the keys it prints, make every register's first call in the sandbox, create the production
 * subscriptions and organisation with the README's commands, make the same calls in production, and
 * open the portal. The calls and commands are read from README.md, so the README and this test cannot
 * drift apart.
 */
const ROOT = path.join(import.meta.dirname, '..', '..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
/** The address the README's examples use; the test's gateway listens elsewhere. */
const README_BASE = 'http://127.0.0.1:8080';

/** The text of a README section (from its `## ` heading to the next). */
function section(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section "${heading}"`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

/** The lines of a section's ```sh blocks. */
function shellLines(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
    m[1]!.split('\n').filter((l) => l.trim()),
  );
}

/** Words of a shell line: double-quoted strings kept whole; a trailing `# comment` dropped. */
function words(line: string): string[] {
  return [...line.replace(/\s+#.*$/, '').matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

interface Call {
  product: string;
  url: string;
  headers: Record<string, string>;
}

/** A README `curl -H "Name: value" … "URL"` line; the key is the `<product key>` placeholder. */
function curlCall(line: string): Call {
  const parts = words(line);
  expect(parts[0]).toBe('curl');
  const headers: Record<string, string> = {};
  let url = '';
  for (let i = 1; i < parts.length; i++) {
    if (parts[i] === '-H') {
      const [name, ...value] = parts[++i]!.split(':');
      headers[name!.trim()] = value.join(':').trim();
    } else url = parts[i]!;
  }
  const product = /^<([a-z-]+) key>$/.exec(headers['Ocp-Apim-Subscription-Key'] ?? '')?.[1];
  if (!product || !url.startsWith(README_BASE)) throw new Error(`not a first call: ${line}`);
  return { product, url, headers };
}

/** The lists of records in an answer (not `links`, the only list every paged answer has). */
const recordLists = (body: Record<string, unknown>) =>
  Object.entries(body)
    .filter(([name, value]) => name !== 'links' && Array.isArray(value))
    .map(([, value]) => value as unknown[]);

const sandboxCalls = shellLines(section('First calls in the sandbox')).map(curlCall);
const productionLines = shellLines(section('Production'));
const productionCommands = productionLines.filter((l) => l.startsWith('npm run rsg -- ')).map(words);
const productionCalls = productionLines.filter((l) => l.startsWith('curl ')).map(curlCall);

let child: ChildProcess | undefined;
let output = '';
let base = '';
const databases = await freshDatabases();
const urls = { gateway: databases.gateway, sandbox: databases.sandbox, production: databases.production };

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await databases.drop();
});

// A real `rsg start` (migrations and the first start's sandbox seed) and a browser: a minute or two.
describe("the README's quick start", { timeout: 180_000 }, () => {
  beforeAll(async () => {
    // As package.json's `start` script runs it, on the test's databases instead of the embedded server.
    const proc = spawn(
      process.execPath,
      ['--min-semi-space-size=16', path.join(ROOT, 'bin/rsg.js'), 'start'],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          LOG_LEVEL: 'warn',
          PORT: '0',
          RSG_METRICS_PORT: '0',
          RSG_SERVER_SECRET: TEST_SERVER_SECRET,
          DATABASE_URL: urls.gateway,
          SANDBOX_DATABASE_URL: urls.sandbox,
          PRODUCTION_DATABASE_URL: urls.production,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = proc;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`rsg start did not get ready:\n${output}`)), 150_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        base = /listening on (http:\/\/[\d.]+:\d+)/.exec(output)?.[1] ?? '';
        if (base && /sandbox-disclose\s+\S+\s+[0-9a-f]{64}/.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      proc.once('exit', (code) => reject(new Error(`rsg start exited (${code}):\n${output}`)));
    });
  }, 180_000);

  const call = (c: Call, keys: Map<string, string>) => {
    const key = keys.get(c.product);
    if (!key) throw new Error(`no key for ${c.product}`);
    return fetch(c.url.replace(README_BASE, base), {
      headers: { ...c.headers, 'Ocp-Apim-Subscription-Key': key },
    });
  };

  it('names a first call for every register, in both environments', () => {
    const ids = SERVICES.map((s) => s.id).sort();
    expect(sandboxCalls.map((c) => c.product).sort()).toEqual(ids.map((id) => `sandbox-${id}`));
    expect(productionCalls.map((c) => c.product).sort()).toEqual(ids.map((id) => `production-${id}`));
  });

  it('sandbox: the printed keys answer every first call with data', async () => {
    const keys = new Map(
      [...output.matchAll(/^ {2}(sandbox-[a-z-]+)\s+\S+\s+([0-9a-f]{64})$/gm)].map((m) => [m[1]!, m[2]!]),
    );
    for (const c of sandboxCalls) {
      const response = await call(c, keys);
      const body = (await response.json()) as Record<string, unknown>;
      expect({ url: c.url, status: response.status }).toEqual({ url: c.url, status: 200 });
      // Records: at least one list of the answer has items.
      expect(
        recordLists(body).some((list) => list.length > 0),
        `${c.url}: ${JSON.stringify(body).slice(0, 300)}`,
      ).toBe(true);
    }
  });

  it("production: the README's commands give access, and every first call answers 200 with an empty list", async () => {
    const keys = new Map<string, string>();
    for (const command of productionCommands) {
      const result = await rsg(command.slice(4), { urls });
      expect({ command: command.join(' '), ...result, stdout: '' }).toMatchObject({ code: 0, stderr: '' });
      if (command.includes('create')) {
        const product = command[command.indexOf('--product') + 1]!;
        keys.set(product, (JSON.parse(result.stdout) as { primaryKey: string }).primaryKey);
      }
    }
    for (const c of productionCalls) {
      const response = await call(c, keys);
      const body = (await response.json()) as Record<string, unknown>;
      expect({ url: c.url, status: response.status }).toEqual({ url: c.url, status: 200 });
      const lists = recordLists(body);
      expect(lists.length, `${c.url}: ${JSON.stringify(body)}`).toBeGreaterThan(0);
      expect(
        lists.every((list) => list.length === 0),
        `${c.url}: ${JSON.stringify(body)}`,
      ).toBe(true);
    }
  });

  it.skipIf(!hasChromium)('the portal landing page opens in Chromium', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const response = await page.goto(`${base}/portal`);
      expect(response?.status()).toBe(200);
      expect(await page.getByRole('heading', { level: 1 }).first().textContent()).toBe('Developer portal');
      // The landing page names every register.
      for (const service of SERVICES) {
        await expect(page.getByRole('heading', { level: 3, name: service.title }).count()).resolves.toBe(1);
      }
    } finally {
      await browser.close();
    }
  });
});
