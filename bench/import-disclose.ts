/**
 * `rsg import disclose` at scale (goals as the other imports': ≥ 50% of COPY's rate, RSS ≤ 300 MB): a
 * generated NDJSON file of the example file's records (docs/formats/examples/disclose.ndjson: a scheme,
 * two offers, a fund with three versions and its holdings) under new numbers, `BENCH_GROUPS` times, in
 * the order an export writes them (schemes, offers, funds, holdings), imported by the transfer framework
 * into an empty production register, against COPY of the same rows into the same tables, in the same
 * run, rounds interleaved (import-support.ts). The records carry no documents (their files would
 * measure the document store, not the register). The COPY contender's rows are the import's own: after
 * a first, untimed import every table it filled is copied out (`COPY … TO`), and those files are what
 * the contender loads. Knobs: `BENCH_GROUPS` (2,000: 10,000 records), `BENCH_ROUNDS` (3),
 * `BENCH_RECORD=0` (print only).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/platform/db/pool.ts';
import { importFiles } from '../src/platform/transfer/import.ts';
import { folderDocumentFiles } from '../src/services/disclose/store/document-files.ts';
import { discloseTransfer } from '../src/services/disclose/transfer/index.ts';
import { copyOfImport, importAsCommand, report, rounds, writeGroups } from './import-support.ts';
import { benchDatabases, recordResults, root } from './support.ts';

const GROUPS = Number(process.env.BENCH_GROUPS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const templates = readFileSync(path.join(root, 'docs/formats/examples/disclose.ndjson'), 'utf8')
  .split('\n')
  .filter(Boolean);
const KINDS = ['scheme', 'offer', 'fund', 'fundHoldings'] as const;

/** Each document and notice id of the example: a digit of its own (there are fewer than ten). */
const ids = new Map<string, number>();
const idIndex = (id: string) => {
  if (!ids.has(id)) ids.set(id, ids.size);
  if (ids.size > 10) throw new Error('the example has more than ten ids');
  return ids.get(id)!;
};

/** The example's lines of group `i`: every number and id its own, no documents. */
function group(i: number): { kind: string; line: string }[] {
  const n = 1_000_000 + i;
  return templates.map((template) => {
    const text = template
      .replace(/SCH20001/g, `SCH${n}`)
      .replace(/OFR2000(\d)/g, (_, k: string) => `OFR${2 * n + Number(k)}`)
      .replace(/FND20001/g, `FND${n}`)
      .replace(/DOC\d{6,9}/g, (id) => `DOC${idIndex(id)}${n}`);
    const record = JSON.parse(text) as { record: string; documents?: unknown[] };
    if (record.documents) record.documents = [];
    return { kind: record.record, line: `${JSON.stringify(record)}\n` };
  });
}

async function main() {
  const databases = await benchDatabases('import-disclose');
  const folder = await mkdtemp(path.join(tmpdir(), 'rsg-bench-import-disclose-'));
  const database = openDatabase(databases.setup.urls.production, { max: 4, name: 'production' });
  try {
    process.stderr.write(`writing ${GROUPS.toLocaleString('en-NZ')} groups of the example's records …\n`);
    const file = await writeGroups(path.join(folder, 'register.ndjson'), KINDS, GROUPS, group);
    const records = GROUPS * templates.length;
    const register = discloseTransfer(() => folderDocumentFiles(path.join(folder, 'documents')));
    const copied = await copyOfImport(database, folder, 'disclose_', async () => {
      await importFiles(database, register, { files: [file] });
    });
    const results = await rounds(
      [
        {
          name: 'rsg import disclose',
          ...copied,
          run: async () => void (await importFiles(database, register, { files: [file] })),
        },
        { name: 'COPY of the same rows', ...copied, run: copied.copy },
      ],
      ROUNDS,
    );
    const command = await importAsCommand(['disclose', file], databases.setup.urls, copied);
    const markdown = report(
      `Offers register: import of ${records.toLocaleString('en-NZ')} records (\`npm run bench:import-disclose\`)`,
      records,
      results,
      undefined,
      command,
    );
    process.stdout.write(markdown);
    await recordResults('import-disclose', markdown);
  } finally {
    await database.close();
    await databases.release();
    await rm(folder, { recursive: true, force: true });
  }
}

await main();
