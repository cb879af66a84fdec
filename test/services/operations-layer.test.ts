import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The operations layer speaks no HTTP (docs/architecture.md): no file of a module's `operations/` imports
 * Fastify or names its request and reply, so the CLI, imports and jobs call operations as routes do. The
 * portal's reference and try-it operations are the exception: they call the running app (`inject`).
 */
const SRC = path.resolve(import.meta.dirname, '../../src');
const EXCEPTIONS = new Set(['portal/operations/reference.ts', 'portal/operations/try-it.ts']);

const folders = [
  ...readdirSync(path.join(SRC, 'services')).map((service) => `services/${service}/operations`),
  ...readdirSync(SRC).map((module) => `${module}/operations`),
].filter((folder) => {
  try {
    return readdirSync(path.join(SRC, folder)).length > 0;
  } catch {
    return false;
  }
});

describe('operations/ speak no HTTP', () => {
  it('finds every register’s operations', () => {
    for (const service of ['nzbn', 'market-rent', 'iponz', 'ppsr', 'disclose'])
      expect(folders).toContain(`services/${service}/operations`);
  });

  it.each(folders)('no file of src/%s imports Fastify', (folder) => {
    const files = readdirSync(path.join(SRC, folder)).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      if (EXCEPTIONS.has(`${folder}/${name}`)) continue;
      const text = readFileSync(path.join(SRC, folder, name), 'utf8');
      expect(text, name).not.toMatch(/from ['"]fastify['"]|from ['"]@fastify\//);
      expect(text, name).not.toMatch(/FastifyRequest|FastifyReply/);
    }
  });
});
