/**
 * `rsg import iponz` and `rsg export iponz` (docs/formats/iponz.md) on the platform's transfer
 * framework: clients, published international applications, patents, trade marks and designs (each the
 * bibliographic document's JSON form with its history, renewals, parties, documents, goods and services,
 * and what the register keeps beside it), and filed cases' correspondence; the documents' bytes as files
 * beside the NDJSON. An import also takes the bibliographic XML the API answers (importer.ts, xml.ts).
 */
import { mkdirSync } from 'node:fs';
import type { Database } from '../../../platform/db/pool.ts';
import type { DocumentStore } from '../../../platform/documents/store.ts';
import { documentsFolderFor } from '../../../platform/transfer/documents.ts';
import type { TransferRegister } from '../../../platform/transfer/register.ts';
import { documentStoreFor } from '../documents/location.ts';
import { casesAfter } from '../store/cases.ts';
import { clientsAfter } from '../store/clients.ts';
import { applicationsAfter, caseKey, casesKept, correspondenceAfter } from '../store/transfer.ts';
import { correspondenceLine } from './correspondence.ts';
import { IponzImporter, storedFiles } from './importer.ts';
import { applicationLine, caseLine, clientLine } from './records.ts';

const PAGE = 500;

/** The register's transfer; `store` gives an environment's document store (the configured one). */
export function iponzTransfer(
  store: (database: Database) => DocumentStore = documentStoreFor,
): TransferRegister {
  return {
    name: 'iponz',
    records:
      'clients, international applications, cases (history, renewals, parties, documents), correspondence; documents as files beside FILE; or bibliographic XML',
    importOptions: { documents: { type: 'string', usage: '[--documents DIR]' } },
    exportOptions: { documents: { type: 'string', usage: '[--documents DIR]' } },
    importer: (session) => new IponzImporter(session, store(session.database)),
    async exportAll({ database, output, options, file }) {
      const pool = database.pool;
      const folder = documentsFolderFor(options.documents, file);
      const documents = store(database);
      let count = 0;
      for (let after = 0; ; ) {
        const clients = await clientsAfter(pool, after, PAGE);
        for (const client of clients) await output.write(clientLine(client));
        count += clients.length;
        if (clients.length < PAGE) break;
        after = clients.at(-1)!.clientId;
      }
      for (let after = ''; ; ) {
        const applications = await applicationsAfter(pool, after, PAGE);
        for (const application of applications) await output.write(applicationLine(application));
        count += applications.length;
        if (applications.length < PAGE) break;
        after = applications.at(-1)!.internationalApplicationNumber;
      }
      for (let after = { kind: '', caseNumber: 0 }; ; ) {
        const cases = await casesAfter(pool, after, PAGE);
        const kept = await casesKept(pool, cases);
        for (const record of cases) {
          const held = kept.get(caseKey(record))!;
          if (held.stored.size > 0 && !folder)
            throw new Error('an export to standard output needs --documents DIR for the documents’ files');
          if (held.stored.size > 0) mkdirSync(folder!, { recursive: true });
          const files = await storedFiles(documents, record, held, folder);
          await output.write(caseLine(record, held, files).line);
        }
        count += cases.length;
        if (cases.length < PAGE) break;
        after = cases.at(-1)!;
      }
      for (let after = { kind: '', caseNumber: 0 }; ; ) {
        const records = await correspondenceAfter(pool, after, PAGE);
        for (const record of records) await output.write(correspondenceLine(record));
        count += records.length;
        if (records.length < PAGE) break;
        after = records.at(-1)!;
      }
      return count;
    },
  };
}
