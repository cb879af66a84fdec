/**
 * `npm run openapi:export`: writes every register's OpenAPI document (both environments) to
 * packages/client/openapi/, and the client's generated types (from each sandbox document) to
 * packages/client/src/generated/, with the IP office's SOAP types from its WSDLs and XSDs. All are committed; test/client/contracts.test.ts fails while they
 * differ from what the gateway's code makes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { documentText, exportDocuments } from './openapi-export-documents.ts';
import { soapTypesText } from './openapi-export-soap.ts';
import { typesText } from './openapi-export-types.ts';

const root = path.join(import.meta.dirname, '..', 'packages', 'client');
const documents = await exportDocuments();
mkdirSync(path.join(root, 'openapi'), { recursive: true });
mkdirSync(path.join(root, 'src', 'generated'), { recursive: true });
for (const [name, document] of documents) {
  writeFileSync(path.join(root, 'openapi', `${name}.json`), documentText(document));
  const [register, environment] = name.split('.') as [string, string];
  if (environment === 'sandbox') {
    writeFileSync(path.join(root, 'src', 'generated', `${register}.ts`), await typesText(register, document));
  }
  console.log(`${name}: ${Object.keys(document.paths).length} paths`);
}
writeFileSync(path.join(root, 'src', 'generated', 'iponz-soap.ts'), soapTypesText());
console.log('iponz SOAP: generated/iponz-soap.ts');
