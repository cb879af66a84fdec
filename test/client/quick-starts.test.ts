import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RegisterError } from '../../packages/client/src/index.ts';
import { addOrganisation } from '../../src/identity/operations/organisations.ts';
import { addMember } from '../../src/identity/store/memberships.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';
import { listening } from './support.ts';

/**
 * The portal's TypeScript quick starts use the typed client, installed from the gateway: each card's
 * install line names the gateway's download, each snippet type-checks against the client's own types
 * (a method, parameter or value the client does not take fails here), and each runs as written against
 * the running gateway — reaching the register (its answer, or its own 404 for the unseeded sandbox's
 * fixture), never a refusal of the call's shape (400, 406), the gateway's 404 or a method the client lacks.
 */
const ROOT = path.join(import.meta.dirname, '..', '..');
const CLIENT = path.join(ROOT, 'packages', 'client', 'src', 'index.ts');
const REGISTERS = ['nzbn', 'market-rent', 'iponz', 'ppsr', 'disclose'] as const;

let gateway: TestGateway;
let baseUrl: string;
let folder: string;
const keys: Record<string, string> = {};
let organisation: string;

beforeAll(async () => {
  gateway = await testGateway();
  baseUrl = await listening(gateway);
  folder = await mkdtemp(path.join(tmpdir(), 'rsg-quick-starts-'));
  for (const register of REGISTERS) {
    const { primaryKey, user } = await subscriber(gateway, `sandbox-${register}`);
    keys[register] = primaryKey;
    if (register === 'disclose') {
      const pool = gateway.runtime.gateway.pool;
      const made = await addOrganisation(pool, {
        environment: 'sandbox',
        identifier: 'quick-start',
        name: 'Q',
      });
      await addMember(pool, made.id, user.id, 'owner');
      organisation = made.identifier;
    }
  }
}, 180_000);
afterAll(async () => {
  await gateway?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

const unescaped = (text: string) =>
  text
    .replaceAll('&#34;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

interface QuickStart {
  install: string;
  typescript: string;
}

/** Each register's quick start as the signed-out landing page shows it. */
async function quickStarts(): Promise<Map<string, QuickStart>> {
  const page = await (await fetch(`${baseUrl}/portal`)).text();
  const found = new Map<string, QuickStart>();
  for (const register of REGISTERS) {
    const start = page.indexOf(`id="register-${register}"`);
    const card = page.slice(start, page.indexOf('</article>', start));
    const install = /<pre tabindex="0" class="install">([^<]+)<\/pre>/.exec(card)?.[1];
    const typescript = /<pre tabindex="0" class="typescript">([^<]+)<\/pre>/.exec(card)?.[1];
    if (install && typescript) {
      found.set(register, { install: unescaped(install), typescript: unescaped(typescript) });
    }
  }
  return found;
}

/** The type errors of the snippets, checked as a user's modules importing the client's own types. */
function typeErrors(files: Map<string, string>): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    typeRoots: [path.join(ROOT, 'node_modules', '@types')],
    skipLibCheck: true,
    baseUrl: ROOT,
    paths: { '@register-services/client': [CLIENT] },
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => files.get(name) ?? readFile(name);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.getSourceFile = (name, language, ...rest) =>
    files.has(name)
      ? ts.createSourceFile(name, files.get(name)!, language)
      : getSourceFile(name, language, ...rest);
  const program = ts.createProgram([...files.keys()], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && files.has(d.file.fileName))
    .map(
      (d) => `${path.basename(d.file!.fileName)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
}

describe('the landing page’s TypeScript quick starts', () => {
  it('install the client from this gateway, one per register', async () => {
    const starts = await quickStarts();
    expect([...starts.keys()].sort()).toEqual([...REGISTERS].sort());
    for (const [register, { install, typescript }] of starts) {
      expect(install, register).toMatch(/^npm install https?:\/\/[^ ]+\/portal\/downloads\/client\.tgz$/);
      expect(typescript, register).toContain("from '@register-services/client'");
      expect(typescript, register).toContain(`register: '${register}'`);
      expect(typescript, register).not.toContain('fetch(');
    }
    expect(starts.get('disclose')!.typescript).toContain('organisation: process.env.RSG_ORGANISATION!');
  });

  it('type-check against the client’s types', async () => {
    const starts = await quickStarts();
    const files = new Map(
      [...starts].map(([register, { typescript }]) => [
        path.join(folder, `${register}.ts`),
        `${typescript}\nexport {};\n`,
      ]),
    );
    expect(typeErrors(files)).toEqual([]);
    // The check itself: a method the client lacks, or a parameter by another name, fails it.
    const nzbn = starts.get('nzbn')!.typescript;
    const broken = new Map([
      [path.join(folder, 'wrong-method.ts'), nzbn.replace(/client\.(\w+)\(/, 'client.$1Typo(')],
      [path.join(folder, 'wrong-parameter.ts'), nzbn.replace('path: { nzbn:', 'path: { id:')],
    ]);
    expect(typeErrors(broken)).toHaveLength(2);
  }, 120_000);

  it('run as written against the gateway', async () => {
    const starts = await quickStarts();
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      for (const [register, { typescript }] of starts) {
        process.env.RSG_KEY = keys[register];
        process.env.RSG_ORGANISATION = organisation;
        const file = path.join(folder, `run-${register}.ts`);
        await writeFile(file, typescript.replace("'@register-services/client'", JSON.stringify(CLIENT)));
        log.mockClear();
        const outcome = await import(/* @vite-ignore */ file).then(
          () => 'answered',
          (error: unknown) => error,
        );
        if (outcome === 'answered') {
          expect(log, register).toHaveBeenCalledTimes(1);
          continue;
        }
        // The unseeded sandbox has no fixture: the register's own 404 to a well-formed call (not the
        // gateway's, which would mean an address the register does not serve).
        expect(outcome, `${register}: ${String(outcome)}`).toBeInstanceOf(RegisterError);
        const refusal = outcome as RegisterError;
        expect(refusal.status, `${register}: ${refusal.message}`).toBe(404);
        expect(refusal.details.kind, register).not.toBe('gateway');
      }
    } finally {
      log.mockRestore();
      delete process.env.RSG_KEY;
      delete process.env.RSG_ORGANISATION;
    }
  }, 120_000);
});
