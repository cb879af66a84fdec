/**
 * `rsg import ppsr` at scale (goal: 1,000,000 financing statements ≤ 60 s, ≥ 50% of COPY's rate, RSS
 * ≤ 300 MB): a generated NDJSON file of statements (two versions each, PIN verifiers included as an
 * export with `--include-secrets` has them) imported by the transfer framework into an empty production
 * register, against COPY of the same rows (statements, versions, search keys) into the same tables, in
 * the same run, rounds interleaved (import-support.ts). Knobs: `BENCH_STATEMENTS` (1,000,000),
 * `BENCH_ROUNDS` (3), `BENCH_RECORD=0` (print only).
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { copyLine } from '../src/platform/db/copy-text.ts';
import { openDatabase } from '../src/platform/db/pool.ts';
import { formatNzDateTime } from '../src/platform/nz-time.ts';
import { ServerKeys } from '../src/platform/server-keys.ts';
import { importFiles } from '../src/platform/transfer/import.ts';
import { searchKeysOf } from '../src/services/ppsr/domain/search-keys.ts';
import { ppsrTransfer } from '../src/services/ppsr/transfer/index.ts';
import { copyTableFrom, importAsCommand, report, rounds } from './import-support.ts';
import { benchDatabases, recordResults } from './support.ts';

const STATEMENTS = Number(process.env.BENCH_STATEMENTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const keys = new ServerKeys('a-server-secret-for-the-import-benchmark-only');

const hex = (text: string) => createHash('sha256').update(text).digest('hex');
const ALPHABET = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';

function statement(i: number) {
  const number = `BEN${String(i).padStart(13, '0')}`;
  const registered = Date.UTC(2022, 0, 1) + i * 1000;
  const amended = registered + 86_400_000;
  const plate = `B${Array.from({ length: 5 }, (_, k) => ALPHABET[Math.floor(i / 33 ** k) % 33]).join('')}`;
  const document = {
    debtors: [
      i % 2 === 0
        ? {
            debtorType: 'person',
            firstName: `First${i % 997}`,
            lastName: `Last${i % 10007}`,
            dateOfBirth: '1980-05-17',
          }
        : {
            debtorType: 'organisation',
            organisationName: `Bench Trading ${i} Limited`,
            organisationType: 'TRUST',
          },
    ],
    securedParties: [{ name: 'Bench Lender Limited', email: 'lender@bench.example' }],
    collaterals: [
      {
        collateralType: 'GOODS_MOTOR_VEHICLES',
        motorVehicles: [{ make: 'Toyota', model: 'Hilux', year: 2020, registrationPlate: plate }],
      },
    ],
  };
  const versions = [
    {
      version: 1,
      change: 'Registered',
      changedDate: formatNzDateTime(registered),
      expiryDate: '2027-01-01',
      ...document,
      collaterals: [{ collateralType: 'AAPP' }],
    },
    {
      version: 2,
      change: 'Amended',
      changedDate: formatNzDateTime(amended),
      expiryDate: '2027-01-01',
      ...document,
    },
  ];
  return {
    record: 'financingStatement',
    registrationNumber: number,
    registrationDate: versions[0]!.changedDate,
    expiryDate: '2027-01-01',
    versions,
    pinVerifiers: {
      financingStatementPin: { verifier: hex(`s${i}`), keyIds: 'none' },
      debtorPin: { verifier: hex(`d${i}`), keyIds: 'none' },
    },
  };
}

/** The NDJSON file and the three COPY files of the same rows. */
async function writeFiles(folder: string) {
  const files = {
    ndjson: path.join(folder, 'statements.ndjson'),
    statements: path.join(folder, 'statements.copy'),
    versions: path.join(folder, 'versions.copy'),
    keys: path.join(folder, 'keys.copy'),
  };
  const out = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, createWriteStream(f)])) as Record<
    keyof typeof files,
    ReturnType<typeof createWriteStream>
  >;
  const write = async (stream: ReturnType<typeof createWriteStream>, text: string) => {
    if (!stream.write(text)) await once(stream, 'drain');
  };
  for (let i = 0; i < STATEMENTS; i++) {
    const s = statement(i);
    await write(out.ndjson, `${JSON.stringify(s)}\n`);
    const last = s.versions.at(-1)!;
    const doc = (v: (typeof s.versions)[number]) =>
      JSON.stringify({ debtors: v.debtors, securedParties: v.securedParties, collaterals: v.collaterals });
    await write(
      out.statements,
      copyLine([
        s.registrationNumber,
        null,
        null,
        new Date(Date.parse(s.registrationDate.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'))).toISOString(),
        s.expiryDate,
        null,
        2,
        last.changedDate,
        `\\x${s.pinVerifiers.financingStatementPin.verifier}`,
        'none',
        `\\x${s.pinVerifiers.debtorPin.verifier}`,
        'none',
        doc(last),
      ]),
    );
    for (const v of s.versions) {
      await write(
        out.versions,
        copyLine([s.registrationNumber, v.version, v.change, v.changedDate, v.expiryDate, null, doc(v)]),
      );
    }
    for (const key of searchKeysOf(last.debtors as never, last.collaterals as never)) {
      await write(
        out.keys,
        copyLine([key.kind, key.key, s.registrationNumber, key.dateOfBirth, s.expiryDate]),
      );
    }
  }
  await Promise.all(Object.values(out).map((s) => new Promise((resolve) => s.end(resolve))));
  return files;
}

async function main() {
  const databases = await benchDatabases('import-ppsr');
  const folder = await mkdtemp(path.join(tmpdir(), 'rsg-bench-import-ppsr-'));
  const database = openDatabase(databases.setup.urls.production, { max: 4, name: 'production' });
  try {
    process.stderr.write(`writing ${STATEMENTS.toLocaleString('en-NZ')} statements …\n`);
    const files = await writeFiles(folder);
    const reset = async () => {
      await database.pool.query(
        'TRUNCATE ppsr_search_keys, ppsr_financing_statement_versions, ppsr_verification_statements, ppsr_financing_statements, transfer_checkpoints',
      );
    };
    const check = async () => {
      const { rows } = await database.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM ppsr_financing_statement_versions',
      );
      if (rows[0]!.n !== 2 * STATEMENTS)
        throw new Error(`expected ${2 * STATEMENTS} versions, found ${rows[0]!.n}`);
    };
    const register = ppsrTransfer(() => keys);
    const results = await rounds(
      [
        {
          name: 'rsg import ppsr',
          reset,
          check,
          run: async () => {
            await importFiles(database, register, { files: [files.ndjson] });
          },
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
              await copy(
                'ppsr_financing_statements (registration_number, organisation_id, secured_party_group_id, registered_at, expiry_date, discharged_at, version, changed_at, pin_hash, pin_key_ids, debtor_pin_hash, debtor_pin_key_ids, document)',
                files.statements,
              );
              await copy(
                'ppsr_financing_statement_versions (registration_number, version, change, changed_at, expiry_date, transaction_id, document)',
                files.versions,
              );
              await copy(
                'ppsr_search_keys (kind, key, registration_number, date_of_birth, expiry_date)',
                files.keys,
              );
              await client.query('COMMIT');
            } finally {
              client.release();
            }
          },
        },
      ],
      ROUNDS,
    );
    const command = await importAsCommand(
      ['ppsr', files.ndjson, '--pin-report', path.join(folder, 'pins.csv')],
      databases.setup.urls,
      { reset, check },
    );
    const markdown = report(
      `Secured interests register: import of ${STATEMENTS.toLocaleString('en-NZ')} financing statements (\`npm run bench:import-ppsr\`)`,
      STATEMENTS,
      results,
      { seconds: 60, records: 1_000_000 },
      command,
    );
    process.stdout.write(markdown);
    await recordResults('import-ppsr', markdown);
  } finally {
    await database.close();
    await databases.release();
    await rm(folder, { recursive: true, force: true });
  }
}

await main();
