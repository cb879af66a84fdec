import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layering the service template promises (src/services/README.md): the list of services is imported
 * only by the composition root (the app, the runtime and the CLI), and no module outside a service
 * imports that service's files — a service is reached through its definition in the list.
 */
const SRC = join(import.meta.dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module a file imports, as a path from src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)[^'"]*from '(\.[^']+)'/gm)].map((m) =>
    relative(SRC, join(file, '..', m[1]!)),
  );
}

const files = sourceFiles(SRC).map((file) => ({ name: relative(SRC, file), imports: importsOf(file) }));
const serviceOf = (path: string) => /^services\/([^/]+)\//.exec(path)?.[1];

describe('layering', () => {
  it('only the composition root imports the list of services', () => {
    const importers = files.filter((f) => f.imports.includes('services/registry.ts')).map((f) => f.name);
    expect(
      importers.filter((name) => !['app.ts', 'runtime.ts'].includes(name) && !name.startsWith('cli/')),
    ).toEqual([]);
    expect(importers.length).toBeGreaterThan(0);
  });

  it("no module outside a service imports that service's files", () => {
    const crossings = files.flatMap((file) =>
      file.imports
        .filter((target) => {
          const owner = serviceOf(target);
          return (
            owner !== undefined && owner !== serviceOf(file.name) && file.name !== 'services/registry.ts'
          );
        })
        .map((target) => `${file.name} → ${target}`),
    );
    expect(crossings).toEqual([]);
  });
});
