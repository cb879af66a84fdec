import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { TestGateway } from '../support/runtime.ts';

/**
 * What the client's end-to-end tests share: the test gateway listening on a real socket (the client
 * speaks HTTP through `fetch`, as a user's program does), and the check that it serves the documents
 * the client's types were generated from.
 */
export async function listening(gateway: TestGateway): Promise<string> {
  return gateway.app.listen({ port: 0, host: '127.0.0.1' });
}

const OPENAPI = path.join(import.meta.dirname, '..', '..', 'packages', 'client', 'openapi');

/** The gateway at `baseUrl` serves, in both environments, the register's committed document. */
export async function servesCommittedDocuments(
  baseUrl: string,
  register: string,
  base: string,
): Promise<void> {
  for (const [environment, prefix] of [
    ['sandbox', '/sandbox'],
    ['production', '/gateway'],
  ] as const) {
    const served = await fetch(`${baseUrl}${prefix}${base}/openapi.json`);
    expect(served.status).toBe(200);
    const committed = JSON.parse(readFileSync(path.join(OPENAPI, `${register}.${environment}.json`), 'utf8'));
    expect(await served.json(), `${register}.${environment}.json: run npm run openapi:export`).toEqual(
      committed,
    );
  }
}
