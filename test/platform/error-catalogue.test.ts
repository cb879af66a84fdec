import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/platform/http/error-codes.ts';
import * as platform from '../../src/platform/http/error-codes.ts';

/**
 * The error catalogue across every module: the codes every API shares (platform/http/error-codes.ts)
 * and each module's own, beside it in `errors.ts` (the five services, billing, identity, the gateway).
 * Every catalogue a module exports is found here by walking src/, so a module cannot add codes the test
 * does not see; each code has a status and a meaning, and one code means one status and one meaning
 * wherever it is written.
 */
const SRC = join(import.meta.dirname, '..', '..', 'src');

function moduleCatalogueFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return moduleCatalogueFiles(path);
    // platform/errors.ts and platform/http/errors.ts are the mechanism, not catalogues.
    return name === 'errors.ts' && !path.includes(`${join('src', 'platform')}`) ? [path] : [];
  });
}

const isCode = (value: unknown): value is ErrorCode =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ErrorCode).code === 'string' &&
  typeof (value as ErrorCode).status === 'number';

/** Every code of a module's exports: its `*_ERRORS` records and single codes. */
function codesOf(exports: Record<string, unknown>): { name: string; code: ErrorCode }[] {
  return Object.entries(exports).flatMap(([name, value]) => {
    if (isCode(value)) return [{ name, code: value }];
    if (/_ERRORS$/.test(name) && value && typeof value === 'object')
      return Object.entries(value as Record<string, unknown>)
        .filter(([, code]) => isCode(code))
        .map(([key, code]) => ({ name: `${name}.${key}`, code: code as ErrorCode }));
    return [];
  });
}

/** The modules with codes of their own; the portal's errors.ts only makes the platform's shared codes. */
const WITH_CODES = [
  'billing/errors.ts',
  'gateway/errors.ts',
  'identity/errors.ts',
  'services/disclose/errors.ts',
  'services/iponz/errors.ts',
  'services/nzbn/errors.ts',
  'services/ppsr/errors.ts',
];

describe('the error catalogue of every module', () => {
  it('finds a catalogue in each module that has codes of its own', async () => {
    const files = moduleCatalogueFiles(SRC).map((file) => relative(SRC, file));
    expect(files).toEqual(expect.arrayContaining(WITH_CODES));
  });

  it('every code has a status and a meaning; one code string, one status and meaning', async () => {
    const all: { where: string; name: string; code: ErrorCode }[] = codesOf(platform).map((c) => ({
      where: 'platform/http/error-codes.ts',
      ...c,
    }));
    for (const file of moduleCatalogueFiles(SRC)) {
      const exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      const found = codesOf(exports);
      if (WITH_CODES.includes(relative(SRC, file)))
        expect(found.length, `${relative(SRC, file)} exports no catalogue`).toBeGreaterThan(0);
      all.push(...found.map((c) => ({ where: relative(SRC, file), ...c })));
    }
    const byCode = new Map<string, { where: string; name: string; code: ErrorCode }>();
    const clashes: string[] = [];
    for (const entry of all) {
      // 4xx and 5xx, and the SOAP answers that carry an error in a 200 (the IP office's App Error).
      expect(entry.code.status, entry.name).toBeGreaterThanOrEqual(
        entry.name.startsWith('SOAP_BODY') ? 200 : 400,
      );
      expect(entry.code.status, entry.name).toBeLessThan(600);
      expect(entry.code.meaning.length, `${entry.name} has a meaning`).toBeGreaterThan(10);
      // API Management's refusals and the admin pages' problems are catalogues of their own bodies; every
      // other code may reach a register's client beside any other, so there one code is one thing.
      const family = /^(APIM_ERRORS|GATEWAY_TIMEOUT)/.test(entry.name)
        ? 'apim'
        : entry.name.startsWith('PROBLEM_ERRORS')
          ? 'admin'
          : 'registers';
      const key = `${family}|${entry.code.dialect ?? ''}|${entry.code.code}`;
      const seen = byCode.get(key);
      if (seen && (seen.code.status !== entry.code.status || seen.code.meaning !== entry.code.meaning))
        clashes.push(`${entry.code.code}: ${seen.where} ${seen.name} and ${entry.where} ${entry.name}`);
      else byCode.set(key, entry);
    }
    expect(clashes).toEqual([]);
    expect(all.length).toBeGreaterThan(50);
  });
});
