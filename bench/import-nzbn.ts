/**
 * `rsg import nzbn` at scale (goal: the full register, 700,000 entities, ≤ 60 s, ≥ 50% of COPY's rate,
 * RSS ≤ 300 MB): an NDJSON file of whole entities (the example file's entities, docs/formats/examples/
 * nzbn.ndjson, under new business numbers and names) imported by the transfer framework into an empty
 * production register, against COPY of the same rows (entities, history, organisation parts) into the
 * same tables, in the same run, rounds interleaved (import-support.ts). Knobs: `BENCH_ENTITIES`
 * (700,000), `BENCH_ROUNDS` (3), `BENCH_RECORD=0` (print only).
 */

import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { copyLine } from '../src/platform/db/copy-text.ts';
import { openDatabase } from '../src/platform/db/pool.ts';
import { withCheckDigit } from '../src/platform/gs1.ts';
import { parseNzDateTime } from '../src/platform/nz-time.ts';
import { importFiles } from '../src/platform/transfer/import.ts';
import { sandboxDocuments } from '../src/services/nzbn/sandbox/documents.ts';
import { PART_COPY_COLUMNS, partCopyLine } from '../src/services/nzbn/store/org-parts.ts';
import {
  ENTITY_COLUMNS,
  entityCopyLine,
  HISTORY_COPY_COLUMNS,
  toEntityRow,
} from '../src/services/nzbn/store/rows.ts';
import { nzbnTransfer } from '../src/services/nzbn/transfer/index.ts';
import { copyTableFrom, importAsCommand, report, rounds } from './import-support.ts';
import { benchDatabases, recordResults, root } from './support.ts';

const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 700_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const templates = readFileSync(path.join(root, 'docs/formats/examples/nzbn.ndjson'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));

function record(i: number) {
  const template = templates[i % templates.length];
  const nzbn = withCheckDigit(`9429${String(10_000_000 + i).padStart(8, '0')}`);
  const entity = { ...template.entity, nzbn, entityName: `BENCH ENTITY ${i} LIMITED` };
  const organisationParts = template.organisationParts.map((part: { opn: string }, k: number) => ({
    ...part,
    opn: withCheckDigit(`9429${String(60_000_000 + i * 4 + k).padStart(8, '0')}`),
    parentNzbn: nzbn,
    parentNzbnName: entity.entityName,
  }));
  return { entity, previousNames: template.previousNames, history: template.history, organisationParts };
}

async function writeFiles(folder: string) {
  const files = {
    ndjson: path.join(folder, 'entities.ndjson'),
    entities: path.join(folder, 'entities.copy'),
    history: path.join(folder, 'history.copy'),
    parts: path.join(folder, 'parts.copy'),
  };
  const out = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, createWriteStream(f)])) as Record<
    keyof typeof files,
    ReturnType<typeof createWriteStream>
  >;
  const write = async (stream: ReturnType<typeof createWriteStream>, text: string) => {
    if (!stream.write(text)) await once(stream, 'drain');
  };
  const iso = (text: string | null) =>
    text === null ? null : new Date(parseNzDateTime(text)!).toISOString();
  for (let i = 0; i < ENTITIES; i++) {
    const r = record(i);
    await write(out.ndjson, `${JSON.stringify(r)}\n`);
    const row = toEntityRow(r.entity, { origin: 'registered', previousNames: r.previousNames });
    await write(out.entities, entityCopyLine(row));
    for (const h of r.history) {
      await write(
        out.history,
        copyLine([r.entity.nzbn, h.kind, JSON.stringify(h.item), iso(h.startDate), iso(h.endDate)]),
      );
    }
    for (const part of r.organisationParts)
      await write(out.parts, partCopyLine(part, new Date(row.lastUpdated)));
  }
  await Promise.all(Object.values(out).map((s) => new Promise((resolve) => s.end(resolve))));
  return files;
}

async function main() {
  const databases = await benchDatabases('import-nzbn');
  const folder = await mkdtemp(path.join(tmpdir(), 'rsg-bench-import-nzbn-'));
  const database = openDatabase(databases.setup.urls.production, { max: 4, name: 'production' });
  try {
    process.stderr.write(`writing ${ENTITIES.toLocaleString('en-NZ')} entities …\n`);
    const files = await writeFiles(folder);
    const reset = async () => {
      await database.pool.query(
        'TRUNCATE nzbn_entities, nzbn_entity_history, nzbn_entity_versions, nzbn_organisation_parts, transfer_checkpoints CASCADE',
      );
    };
    const check = async () => {
      const { rows } = await database.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM nzbn_entities',
      );
      if (rows[0]!.n !== ENTITIES) throw new Error(`expected ${ENTITIES} entities, found ${rows[0]!.n}`);
    };
    const register = nzbnTransfer(sandboxDocuments);
    const results = await rounds(
      [
        {
          name: 'rsg import nzbn',
          reset,
          check,
          run: async () => void (await importFiles(database, register, { files: [files.ndjson] })),
        },
        {
          name: 'COPY of the same rows',
          reset,
          check,
          run: async () => {
            const client = await database.pool.connect();
            try {
              await client.query('BEGIN');
              const copy = (table: string, file: string) => copyTableFrom(client, table, file);
              await copy(`nzbn_entities (${ENTITY_COLUMNS.join(', ')})`, files.entities);
              await copy(`nzbn_entity_history (${HISTORY_COPY_COLUMNS})`, files.history);
              await copy(`nzbn_organisation_parts (${PART_COPY_COLUMNS})`, files.parts);
              await client.query('COMMIT');
            } finally {
              client.release();
            }
          },
        },
      ],
      ROUNDS,
    );
    const command = await importAsCommand(['nzbn', files.ndjson], databases.setup.urls, { reset, check });
    const markdown = report(
      `Business number register: import of ${ENTITIES.toLocaleString('en-NZ')} entities (\`npm run bench:import-nzbn\`)`,
      ENTITIES,
      results,
      { seconds: 60, records: 700_000 },
      command,
    );
    process.stdout.write(markdown);
    await recordResults('import-nzbn', markdown);
  } finally {
    await database.close();
    await databases.release();
    await rm(folder, { recursive: true, force: true });
  }
}

await main();
