/**
 * Bulk data files (spec part E: "bulk data files, JSON or CSV, updated monthly"): one month's export of
 * one data set is two gzip files, `<dataset>-<YYYY-MM>.json.gz` (a JSON array, one record a line) and
 * `<dataset>-<YYYY-MM>.csv.gz` (a header line, then one record a line, RFC 4180 quoting), and a manifest
 * `<dataset>-<YYYY-MM>.manifest.json` naming each file's rows, bytes and SHA-256. Both files are written
 * in one pass over the rows the caller streams (batches, never the whole set), each through gzip into a
 * temporary file that is renamed into place when complete; the manifest is written last (also temp and
 * rename), so a month is listed only once both files are whole. A crash leaves no manifest and the
 * export is made again. The service that owns the data writes its files (through the contract's
 * `bulkData`); the portal lists and serves them. Months are New Zealand months of the environment's clock.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { drained } from './drained.ts';
import { formatNzDateTime } from './nz-time.ts';

export type BulkFormat = 'json' | 'csv';
export const BULK_FORMATS: readonly BulkFormat[] = ['json', 'csv'];

export interface BulkFile {
  format: BulkFormat;
  /** The file's name in the folder. */
  file: string;
  rows: number;
  /** Bytes of the gzip file. */
  bytes: number;
  /** Hex SHA-256 of the gzip file. */
  sha256: string;
}

export interface BulkManifest {
  dataset: string;
  /** `YYYY-MM`, a New Zealand month. */
  month: string;
  createdAt: string;
  files: BulkFile[];
}

const CHUNK = 64 * 1024;

/** One record: its JSON value and its CSV cells (in the data set's column order). */
export interface BulkRecord {
  json: unknown;
  csv: readonly (string | number | boolean | null)[];
}

const DATASET = /^[a-z][a-z0-9-]{0,40}$/;
export const MONTH = /^[0-9]{4}-(0[1-9]|1[0-2])$/;
const FILE = /^([a-z][a-z0-9-]{0,40})-([0-9]{4}-[0-9]{2})\.(json|csv)\.gz$/;
const MANIFEST = /^([a-z][a-z0-9-]{0,40})-([0-9]{4}-[0-9]{2})\.manifest\.json$/;

/**
 * One environment's folder: `RSG_BULK_DATA_DIR/<environment>`, else `<RSG_DATA_DIR or data>/bulk-data/
 * <environment>`.
 */
export function bulkDataFolder(environment: string, env: NodeJS.ProcessEnv = process.env): string {
  const root = env.RSG_BULK_DATA_DIR ?? path.join(env.RSG_DATA_DIR ?? 'data', 'bulk-data');
  return path.resolve(root, environment);
}

/** The New Zealand month (`YYYY-MM`) of an instant. */
export const nzMonthOf = (instant: Date): string => formatNzDateTime(instant.getTime()).slice(0, 7);

/** The month `count` months before `month`. */
export function monthsBefore(month: string, count: number): string {
  const [year, number] = month.split('-').map(Number) as [number, number];
  const index = year * 12 + (number - 1) - count;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

export const bulkFileName = (dataset: string, month: string, format: BulkFormat): string =>
  `${dataset}-${month}.${format}.gz`;
const manifestName = (dataset: string, month: string): string => `${dataset}-${month}.manifest.json`;

/** One CSV line (RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled). */
export function csvLine(cells: readonly (string | number | boolean | null)[]): string {
  return `${cells
    .map((cell) => {
      const text = cell === null ? '' : String(cell);
      return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
    })
    .join(',')}\r\n`;
}

/** A gzip file being written: bytes and SHA-256 of what reaches the disk, backpressure honoured. */
class GzipFile {
  private readonly gzip = createGzip();
  private readonly hash = createHash('sha256');
  bytes = 0;
  rows = 0;
  private readonly done: Promise<void>;

  constructor(readonly temporary: string) {
    const meter = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        this.hash.update(chunk);
        this.bytes += chunk.length;
        callback(null, chunk);
      },
    });
    this.done = pipeline(this.gzip, meter, createWriteStream(temporary, { flags: 'w' }));
    this.done.catch(() => {});
  }

  /** Writes, waiting for the gzip stream to drain when it asks (a failed file rejects the wait). */
  async write(text: string): Promise<void> {
    if (this.gzip.write(text)) return;
    // The pipeline destroys the gzip stream when the file fails; its error is the pipeline's.
    await drained(this.gzip, () => new Error('the bulk data file closed before it was complete'));
  }

  async close(): Promise<string> {
    this.gzip.end();
    await this.done;
    return this.hash.digest('hex');
  }

  destroy(): void {
    this.gzip.destroy();
  }
}

/**
 * Writes one month's files of a data set from `batches` (each a batch of records, read from the database
 * by the caller) and then its manifest; replaces an earlier export of the same month.
 */
export async function writeBulkExport(
  folder: string,
  input: { dataset: string; month: string; columns: readonly string[]; now: Date },
  batches: AsyncIterable<readonly BulkRecord[]>,
): Promise<BulkManifest> {
  if (!DATASET.test(input.dataset)) throw new RangeError(`not a data set name: ${input.dataset}`);
  if (!MONTH.test(input.month)) throw new RangeError(`not a month: ${input.month}`);
  await mkdir(folder, { recursive: true });
  const suffix = `${process.pid}.${Date.now()}.tmp`;
  const json = new GzipFile(
    path.join(folder, `${bulkFileName(input.dataset, input.month, 'json')}.${suffix}`),
  );
  const csv = new GzipFile(path.join(folder, `${bulkFileName(input.dataset, input.month, 'csv')}.${suffix}`));
  try {
    await csv.write(csvLine(input.columns));
    await json.write('[');
    // Text goes to gzip in pieces of about CHUNK characters: small strings are collected young, where
    // one string per batch (megabytes) would sit in the large-object space until a full collection.
    let jsonText = '';
    let csvText = '';
    for await (const batch of batches) {
      for (const record of batch) {
        if (record.csv.length !== input.columns.length) {
          throw new RangeError(`a CSV record has ${record.csv.length} cells, not ${input.columns.length}`);
        }
        jsonText += `${json.rows === 0 ? '\n' : ',\n'}${JSON.stringify(record.json)}`;
        json.rows++;
        csvText += csvLine(record.csv);
        csv.rows++;
        if (jsonText.length >= CHUNK) {
          await json.write(jsonText);
          jsonText = '';
        }
        if (csvText.length >= CHUNK) {
          await csv.write(csvText);
          csvText = '';
        }
      }
    }
    if (jsonText) await json.write(jsonText);
    if (csvText) await csv.write(csvText);
    await json.write('\n]\n');
    const files: BulkFile[] = [];
    for (const [format, file] of [
      ['json', json],
      ['csv', csv],
    ] as const) {
      const sha256 = await file.close();
      const name = bulkFileName(input.dataset, input.month, format);
      await rename(file.temporary, path.join(folder, name));
      files.push({ format, file: name, rows: file.rows, bytes: file.bytes, sha256 });
    }
    const manifest: BulkManifest = {
      dataset: input.dataset,
      month: input.month,
      createdAt: input.now.toISOString(),
      files,
    };
    const target = path.join(folder, manifestName(input.dataset, input.month));
    await writeFile(`${target}.${suffix}`, `${JSON.stringify(manifest, null, 2)}\n`);
    await rename(`${target}.${suffix}`, target);
    return manifest;
  } catch (error) {
    json.destroy();
    csv.destroy();
    await Promise.all([rm(json.temporary, { force: true }), rm(csv.temporary, { force: true })]);
    throw error;
  }
}

/** Every complete export in the folder, newest month first (data sets by name). */
export async function listBulkExports(folder: string): Promise<BulkManifest[]> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const manifests: BulkManifest[] = [];
  for (const name of names) {
    if (!MANIFEST.test(name)) continue;
    try {
      manifests.push(JSON.parse(await readFile(path.join(folder, name), 'utf8')) as BulkManifest);
    } catch (error) {
      // Removed meanwhile (pruned by another process): not listed.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return manifests.sort((a, b) => b.month.localeCompare(a.month) || a.dataset.localeCompare(b.dataset));
}

/** The export of one data set and month, when complete. */
export async function bulkExportOf(
  folder: string,
  dataset: string,
  month: string,
): Promise<BulkManifest | undefined> {
  if (!DATASET.test(dataset) || !MONTH.test(month)) return undefined;
  try {
    return JSON.parse(
      await readFile(path.join(folder, manifestName(dataset, month)), 'utf8'),
    ) as BulkManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The listed file of that name and where it is; undefined for a name that is not a listed file. */
export async function bulkFile(
  folder: string,
  name: string,
): Promise<{ manifest: BulkManifest; file: BulkFile; path: string } | undefined> {
  const match = FILE.exec(name);
  if (!match) return undefined;
  const manifest = await bulkExportOf(folder, match[1]!, match[2]!);
  const file = manifest?.files.find((candidate) => candidate.file === name);
  return manifest && file ? { manifest, file, path: path.join(folder, name) } : undefined;
}

/**
 * Deletes the exports of `dataset` older than the last `keepMonths` months up to `month` (manifests
 * first, so a month is never listed without its files), and temporary files left for more than a day
 * (real time) by a process that stopped mid-export. Resolves to the months removed.
 */
export async function pruneBulkExports(
  folder: string,
  dataset: string,
  month: string,
  keepMonths: number,
): Promise<string[]> {
  const oldestKept = monthsBefore(month, keepMonths - 1);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const removed = new Set<string>();
  const old = (match: RegExpExecArray | null) => match && match[1] === dataset && match[2]! < oldestKept;
  for (const name of names) {
    const manifest = MANIFEST.exec(name);
    if (!old(manifest)) continue;
    await rm(path.join(folder, name), { force: true });
    removed.add(manifest![2]!);
  }
  for (const name of names) {
    const file = FILE.exec(name);
    const temporary = /\.(\d+)\.(\d+)\.tmp$/.exec(name);
    if (
      old(file) ||
      (temporary && name.startsWith(`${dataset}-`) && Number(temporary[2]) < Date.now() - 86_400_000)
    ) {
      await rm(path.join(folder, name), { force: true });
    }
  }
  return [...removed].sort();
}
