import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The rental statistics' rules and their engine stay apart: domain/ says what an answer is and holds no
 * worker threads, shared memory, files or WebAssembly, nor anything of the engine, the store or the
 * operations; the rest of the service reaches the engine only through engine/index.ts.
 */
const SERVICE = join(import.meta.dirname, '../../../src/services/market-rent');

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The modules a file imports (static and dynamic, types too), as written. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1] as string);
}

describe('market-rent layers', () => {
  it('domain/ holds rules only: no worker threads, shared memory, files or WebAssembly', () => {
    const files = sources(join(SERVICE, 'domain'));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const name = relative(SERVICE, file);
      for (const module of importsOf(text)) {
        expect(module, name).not.toMatch(/^(node:)?(worker_threads|fs|fs\/promises|child_process)$/);
        expect(module, name).not.toMatch(/^\.\.\/(engine|store|operations|routes|commands|sandbox)\//);
      }
      expect(text, name).not.toMatch(/SharedArrayBuffer|Atomics\.|WebAssembly|readFileSync|createReadStream/);
    }
  });

  it('the rest of the service reaches the engine through engine/index.ts only', () => {
    const outside = sources(SERVICE).filter((file) => !relative(SERVICE, file).startsWith('engine/'));
    let reaching = 0;
    for (const file of outside) {
      const name = relative(SERVICE, file);
      for (const module of importsOf(readFileSync(file, 'utf8'))) {
        if (!/(^|\/)engine\//.test(module)) continue;
        reaching++;
        expect(module, name).toMatch(/(^|\/)engine\/index\.ts$/);
      }
    }
    expect(reaching).toBeGreaterThan(0);
  });
});
