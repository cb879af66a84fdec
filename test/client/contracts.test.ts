import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type DocumentName,
  documentText,
  exportDocuments,
  type OpenApiDocument,
} from '../../scripts/openapi-export-documents.ts';
import { soapTypesText } from '../../scripts/openapi-export-soap.ts';
import { typesText } from '../../scripts/openapi-export-types.ts';

/**
 * The client's committed contracts follow the gateway's code: the OpenAPI documents in
 * packages/client/openapi/ are what the gateway's routes make now (exported without a database), and the
 * generated types in packages/client/src/generated/ are what openapi-typescript makes of them. Either
 * one stale fails here: run `npm run openapi:export` and commit what it writes.
 */
const CLIENT = path.join(import.meta.dirname, '..', '..', 'packages', 'client');
let documents: Map<DocumentName, OpenApiDocument>;

beforeAll(async () => {
  documents = await exportDocuments();
}, 120_000);

describe('the committed OpenAPI documents', () => {
  it('are the ten the gateway makes, and no others', () => {
    const committed = readdirSync(path.join(CLIENT, 'openapi')).sort();
    expect(committed).toEqual([...documents.keys()].map((name) => `${name}.json`).sort());
  });

  it('match what the routes make now', () => {
    for (const [name, document] of documents) {
      const committed = readFileSync(path.join(CLIENT, 'openapi', `${name}.json`), 'utf8');
      // Compared as text: one difference is enough, and its place is in the message.
      expect(committed, `${name}.json is stale: run npm run openapi:export`).toBe(documentText(document));
    }
  });
});

describe('the generated types', () => {
  it('are what openapi-typescript makes of the committed documents', async () => {
    const generated = readdirSync(path.join(CLIENT, 'src', 'generated'))
      .filter((f) => f !== 'iponz-soap.ts')
      .sort();
    const registers = [...documents.keys()].filter((n) => n.endsWith('.sandbox')).map((n) => n.split('.')[0]);
    expect(generated).toEqual(registers.map((id) => `${id}.ts`).sort());
    for (const register of registers) {
      const document = JSON.parse(
        readFileSync(path.join(CLIENT, 'openapi', `${register}.sandbox.json`), 'utf8'),
      );
      const committed = readFileSync(path.join(CLIENT, 'src', 'generated', `${register}.ts`), 'utf8');
      expect(committed, `generated/${register}.ts is stale: run npm run openapi:export`).toBe(
        await typesText(register!, document),
      );
    }
  }, 60_000);
});

describe('the generated SOAP types', () => {
  it('are what the IP office’s WSDLs and XSDs make', () => {
    const committed = readFileSync(path.join(CLIENT, 'src', 'generated', 'iponz-soap.ts'), 'utf8');
    expect(committed, 'generated/iponz-soap.ts is stale: run npm run openapi:export').toBe(soapTypesText());
  });
});
