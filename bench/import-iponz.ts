/**
 * `rsg import iponz` at scale (goals as the other imports': ≥ 50% of COPY's rate, RSS ≤ 300 MB): a
 * generated NDJSON file of the example file's records (docs/formats/examples/iponz.ndjson: three clients,
 * an international application, a design, a patent, two trade marks and a filed case's correspondence)
 * under new numbers and identifiers, `BENCH_GROUPS` times, in the order an export writes them, imported
 * by the transfer framework into an empty production register, against COPY of the same rows into the
 * same tables, in the same run, rounds interleaved (import-support.ts). The records carry no documents'
 * bytes (their files would measure the document store, not the register); their document rows stay. The
 * COPY contender's rows are the import's own (`copyOfImport`); the trade marks' title words are made by
 * the register's triggers in both. Knobs: `BENCH_GROUPS` (1,000: 9,000 records), `BENCH_ROUNDS` (3),
 * `BENCH_RECORD=0` (print only).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/platform/db/pool.ts';
import { FolderDocumentStore } from '../src/platform/documents/folder-store.ts';
import { importFiles } from '../src/platform/transfer/import.ts';
import { iponzTransfer } from '../src/services/iponz/transfer/index.ts';
import { copyOfImport, importAsCommand, report, rounds, writeGroups } from './import-support.ts';
import { benchDatabases, recordResults, root } from './support.ts';

const GROUPS = Number(process.env.BENCH_GROUPS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
if (GROUPS > 99_999) throw new Error('BENCH_GROUPS: at most 99,999 (the designs’ numbers)');

const templates = readFileSync(path.join(root, 'docs/formats/examples/iponz.ndjson'), 'utf8')
  .split('\n')
  .filter(Boolean);
const KINDS = ['client', 'internationalApplication', 'design', 'patent', 'tradeMark', 'correspondence'];

/** The example's identifiers, and each one's in group `i`. */
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const IDENTIFIERS: Record<string, (i: number) => string> = {
  '100101': (i) => String(2_000_000 + 3 * i),
  '100102': (i) => String(2_000_001 + 3 * i),
  '100103': (i) => String(2_000_002 + 3 * i),
  '412345': (i) => String(400_000 + i),
  '545678': (i) => String(500_000 + i),
  '1012345': (i) => String(1_000_000 + i),
  '1900000': (i) => String(1_500_000 + i),
  '70000001': (i) => String(71_000_000 + i),
  '80000001': (i) => String(81_000_000 + 3 * i),
  '80000002': (i) => String(81_000_001 + 3 * i),
  '80000003': (i) => String(81_000_002 + 3 * i),
  'PCT/NZ2023/000412': (i) => `PCT/NZ2023/${pad(i, 6)}`,
  'WO/2024/051234': (i) => `WO/2024/${pad(i, 6)}`,
};
const DOCUMENT = /09a1b2c3d4e5f60([1-4])/g;
const IDENTIFIER = new RegExp(`\\b(${Object.keys(IDENTIFIERS).join('|').replaceAll('/', '\\/')})\\b`, 'g');

/** The example's lines of group `i`: every number and identifier its own, no documents' bytes. */
function group(i: number): { kind: string; line: string }[] {
  return templates.map((template) => {
    const text = template
      .replace(IDENTIFIER, (id) => IDENTIFIERS[id]!(i))
      .replace(DOCUMENT, (_, k: string) => `09${i.toString(16).padStart(13, '0')}${k}`);
    const record = JSON.parse(text) as { record: string; register?: { documentFiles: unknown[] } };
    if (record.register) record.register.documentFiles = [];
    return { kind: record.record, line: `${JSON.stringify(record)}\n` };
  });
}

async function main() {
  const databases = await benchDatabases('import-iponz');
  const folder = await mkdtemp(path.join(tmpdir(), 'rsg-bench-import-iponz-'));
  const database = openDatabase(databases.setup.urls.production, { max: 4, name: 'production' });
  try {
    process.stderr.write(`writing ${GROUPS.toLocaleString('en-NZ')} groups of the example's records …\n`);
    const file = await writeGroups(path.join(folder, 'register.ndjson'), KINDS, GROUPS, group);
    const records = GROUPS * templates.length;
    const store = new FolderDocumentStore(path.join(folder, 'documents'));
    const register = iponzTransfer(() => store);
    const load = async () => void (await importFiles(database, register, { files: [file] }));
    const copied = await copyOfImport(database, folder, 'iponz_', load, ['iponz_title_words']);
    const results = await rounds(
      [
        { name: 'rsg import iponz', ...copied, run: load },
        { name: 'COPY of the same rows', ...copied, run: copied.copy },
      ],
      ROUNDS,
    );
    const command = await importAsCommand(['iponz', file], databases.setup.urls, copied);
    const markdown = report(
      `IP office: import of ${records.toLocaleString('en-NZ')} records (\`npm run bench:import-iponz\`)`,
      records,
      results,
      undefined,
      command,
    );
    process.stdout.write(markdown);
    await recordResults('import-iponz', markdown);
  } finally {
    await database.close();
    await databases.release();
    await rm(folder, { recursive: true, force: true });
  }
}

await main();
