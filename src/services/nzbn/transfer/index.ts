/**
 * `rsg import nzbn` and `rsg export nzbn` (docs/formats/nzbn.md) on the platform's transfer framework.
 *
 * Idempotent by business number: a line that says what the register holds changes nothing. A changed
 * entity becomes its next version (the replaced document kept, as every update keeps it); history
 * periods and organisation parts the register lacks are added, changed parts replaced. Every committed
 * transaction tells every process's entity cache to forget what it holds. Change events (the watchlists'
 * and the change event search's) only with `--emit-changes`: NEW for a new entity, one event per changed
 * part of a changed one. No fees.
 */
import type { RecordImporter, TransferRegister } from '../../../platform/transfer/register.ts';
import type { DocumentSource } from '../store/document-source.ts';
import { entitiesAfter } from '../store/transfer.ts';
import { bulkFileImporter } from './bulk-file.ts';
import { NzbnImporter } from './importer.ts';
import { entityLine } from './records.ts';

const PAGE = 500;

/** The register's transfer; `documents` makes the sandbox's generated entities' documents. */
export function nzbnTransfer(documents: DocumentSource): TransferRegister {
  return {
    name: 'nzbn',
    records: 'entities whole (private parts, roles, history, organisation parts), or the bulk CSV',
    importOptions: { 'bulk-csv': { type: 'boolean', usage: '[--bulk-csv]' } },
    importer: (session) =>
      session.options['bulk-csv'] === true
        ? (bulkFileImporter(session, documents) as RecordImporter<unknown>)
        : new NzbnImporter(session, documents),
    async exportAll({ database, output }) {
      let count = 0;
      let after = '';
      for (;;) {
        const rows = await entitiesAfter(database.pool, documents, after, PAGE);
        for (const row of rows) await output.writeLine(entityLine(row));
        count += rows.length;
        if (rows.length < PAGE) return count;
        after = rows.at(-1)!.stored.nzbn;
      }
    },
  };
}
