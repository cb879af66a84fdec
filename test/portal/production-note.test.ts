import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_DOCS } from '../../src/portal/pages/products.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { PortalClient } from './support/api.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway();
});
afterAll(() => gateway?.close());

describe('production pages', () => {
  it('say that production starts empty, name the import commands and their docs, and the key per environment', async () => {
    const client = new PortalClient(gateway.app);
    for (const url of [
      '/portal/products',
      '/portal/products/production-market-rent',
      '/portal/products/production-disclose',
    ]) {
      const page = await client.get(url);
      expect(page.statusCode, url).toBe(200);
      expect(page.body, url).toContain('Production starts empty.');
      for (const register of ['nzbn', 'ppsr', 'disclose', 'iponz', 'bonds'])
        expect(page.body, url).toContain(`<code>rsg import ${register} FILE</code>`);
      expect(page.body, url).toContain(`<code>${IMPORT_DOCS}</code>`);
      expect(page.body, url).toContain('<em>invalid subscription key</em>');
    }
    expect((await client.get('/portal/products/sandbox-market-rent')).body).not.toContain(
      'Production starts empty.',
    );
    expect((await client.get('/portal')).body).toContain('it starts\nempty until an operator imports data');
  });

  it('points at documents and commands that exist', () => {
    expect(existsSync(IMPORT_DOCS)).toBe(true);
    expect(existsSync('docs/formats')).toBe(true);
    const readme = readFileSync('README.md', 'utf8');
    expect(readme).toContain('## Production data');
    for (const register of ['nzbn', 'ppsr', 'disclose', 'iponz', 'bonds'])
      expect(readme).toContain(`rsg -- import ${register} `);
  });
});
