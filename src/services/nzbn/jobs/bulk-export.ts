/**
 * The monthly bulk data export of the register's public data (spec part E: "bulk data files, JSON or
 * CSV, updated monthly"), in one environment. An export is made when the environment's clock is in a New
 * Zealand month that has none and the month before it has one, or this process saw the clock in an
 * earlier month (the sandbox's virtual clock moved over a month start counts): so every month start
 * makes one, a process that was down over a month start makes it when it comes back, and a register
 * that never had one gets its first from an operator (`exportNow`, the portal's button), not from
 * merely starting. The files (platform/bulk-files.ts) are streamed from one snapshot of the register in
 * keyset batches through gzip; months older than `bulkDataMonths` are deleted after each export.
 */
import {
  type BulkManifest,
  bulkDataFolder,
  bulkExportOf,
  monthsBefore,
  nzMonthOf,
  pruneBulkExports,
  writeBulkExport,
} from '../../../platform/bulk-files.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { Database } from '../../../platform/db/pool.ts';
import { BackgroundJob } from '../../../platform/jobs.ts';
import type { BulkExportInput, JobContext, RunningJobs } from '../../contract.ts';
import { BULK_COLUMNS, BULK_DATASET, bulkCells } from '../domain/bulk-record.ts';
import { publicView } from '../domain/privacy.ts';
import { withEntitySnapshot } from '../store/bulk-export.ts';
import type { DocumentSource } from '../store/document-source.ts';
import { parseEntity } from '../store/entities.ts';

const BATCH = 2_000;
export const DEFAULT_BULK_DATA_MONTHS = 12;

/**
 * Writes this month's files now (the environment clock's month), the documents of generated entities
 * from `documents`; undefined while another process is.
 */
export async function exportBusinessNumbers(
  input: BulkExportInput,
  documents: DocumentSource,
): Promise<BulkManifest | undefined> {
  const now = input.clock.now();
  const month = nzMonthOf(now);
  const folder = input.folder ?? bulkDataFolder(input.environment);
  const manifest = await withEntitySnapshot(input.database.pool, documents, BATCH, (batches) =>
    writeBulkExport(
      folder,
      { dataset: BULK_DATASET, month, columns: BULK_COLUMNS.map((column) => column.name), now },
      records(batches),
    ),
  );
  if (manifest) {
    const keep = input.settings.bulkDataMonths ?? DEFAULT_BULK_DATA_MONTHS;
    await pruneBulkExports(folder, BULK_DATASET, month, keep);
  }
  return manifest;
}

async function* records(batches: AsyncIterable<Parameters<typeof parseEntity>[0][]>) {
  for await (const batch of batches) {
    yield batch.map((stored) => {
      const entity = publicView(parseEntity(stored));
      return { json: entity, csv: bulkCells(entity) };
    });
  }
}

/**
 * The job: checks once a second and whenever the sandbox clock moves (the platform's serial runner:
 * exports never overlap in a process, and a database outage is logged once and retried).
 */
export class BulkExportJob extends BackgroundJob implements RunningJobs {
  /** The earliest month this process saw the clock in. */
  private firstSeen: string | undefined;
  readonly folder: string;

  constructor(
    private readonly context: JobContext,
    private readonly input: {
      database: Database;
      clock: Clock;
      documents: DocumentSource;
      intervalMs?: number;
    },
  ) {
    super({
      name: `bulk data export (${context.environment})`,
      intervalMs: input.intervalMs,
      onClockMoved: (handler) => context.onClockMoved(handler),
      log: context.log,
    });
    this.folder = bulkDataFolder(context.environment);
  }

  override start(): void {
    this.firstSeen = nzMonthOf(this.input.clock.now());
    super.start();
  }

  describe(): string {
    return 'monthly bulk data export';
  }

  /** Whether this month's export is due (see the file's comment). */
  private async due(month: string): Promise<boolean> {
    if (await bulkExportOf(this.folder, BULK_DATASET, month)) return false;
    if (this.firstSeen !== undefined && this.firstSeen < month) return true;
    return (await bulkExportOf(this.folder, BULK_DATASET, monthsBefore(month, 1))) !== undefined;
  }

  protected async run(): Promise<void> {
    const month = nzMonthOf(this.input.clock.now());
    if (!(await this.due(month))) return;
    const manifest = await exportBusinessNumbers(
      {
        environment: this.context.environment,
        database: this.input.database,
        clock: this.input.clock,
        settings: this.context.settings,
        folder: this.folder,
      },
      this.input.documents,
    );
    if (manifest) {
      this.context.log.info(
        { service: 'nzbn', month, rows: manifest.files[0]?.rows },
        `bulk data export ${month} (${this.context.environment}) written`,
      );
    }
  }
}
