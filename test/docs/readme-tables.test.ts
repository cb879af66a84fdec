import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every module README's file table names every TypeScript file of its folder, so the tables stay true
 * as files are added, split or moved. A README covers its folder and the folders below it, except those
 * that have a README of their own. A file counts as named when a table row (a line starting with `|`)
 * holds its path from the README's folder, or its name, in backticks.
 */
const ROOT = join(import.meta.dirname, '..', '..');

/** The READMEs whose tables are file maps. test/README.md describes conventions, not files. */
function readmes(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const sub = join(dir, entry.name);
      if (existsSync(join(sub, 'README.md'))) found.push(join(sub, 'README.md'));
      walk(sub);
    }
  };
  for (const top of ['src', 'bench', 'test/scale']) {
    const dir = join(ROOT, top);
    if (existsSync(join(dir, 'README.md'))) found.push(join(dir, 'README.md'));
    walk(dir);
  }
  return [...new Set(found)].sort();
}

/** The .ts files a README answers for: its folder's, and those of sub-folders without a README. */
function filesCoveredBy(dir: string): string[] {
  const files: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!existsSync(join(path, 'README.md'))) walk(path);
      } else if (entry.name.endsWith('.ts')) {
        files.push(relative(dir, path));
      }
    }
  };
  walk(dir);
  return files.sort();
}

/** The backticked names on the README's table rows. */
function namedInTables(readme: string): Set<string> {
  const names = new Set<string>();
  for (const line of readFileSync(readme, 'utf8').split('\n')) {
    if (!line.trimStart().startsWith('|')) continue;
    for (const match of line.matchAll(/`([^`]+)`/g)) names.add(match[1]!.trim());
  }
  return names;
}

describe('README file tables', () => {
  const all = readmes();

  it('finds the module READMEs', () => {
    expect(all.map((path) => relative(ROOT, path))).toEqual(
      expect.arrayContaining(['src/platform/README.md', 'src/portal/README.md', 'bench/README.md']),
    );
  });

  it.each(all.map((path) => [relative(ROOT, path), path]))(
    '%s names every .ts file of its folder',
    (_, readme) => {
      const dir = join(readme, '..');
      const named = namedInTables(readme);
      const missing = filesCoveredBy(dir).filter((file) => {
        const name = file.split('/').pop()!;
        return !named.has(file) && !named.has(name) && !named.has(`${relative(ROOT, dir)}/${file}`);
      });
      expect(missing).toEqual([]);
    },
  );
});
