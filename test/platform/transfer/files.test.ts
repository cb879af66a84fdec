import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../../src/platform/db/pool.ts';
import { RuleError } from '../../../src/platform/errors.ts';
import { canonicalJson, sameJson } from '../../../src/platform/transfer/canonical.ts';
import { ruleProblems, schemaProblems } from '../../../src/platform/transfer/check.ts';
import { importFiles } from '../../../src/platform/transfer/import.ts';
import { fileLines, isGzip, ndjsonOutput } from '../../../src/platform/transfer/ndjson.ts';
import { accepted, type TransferRegister } from '../../../src/platform/transfer/register.ts';
import { scratch } from '../../support/transfer.ts';

const folder = scratch();
const collect = async (file: string) => {
  const lines: [number, string][] = [];
  for await (const { line, text } of fileLines(file)) lines.push([line, text]);
  return lines;
};

describe('transfer files', () => {
  it('reads gzip by its magic bytes, whatever the name, and plain text named .gz', async () => {
    const text = '{"a":1}\r\n\n{"b":"é"}\n';
    writeFileSync(path.join(folder, 'zipped.ndjson'), gzipSync(text));
    writeFileSync(path.join(folder, 'plain.ndjson.gz'), text);
    expect(isGzip(path.join(folder, 'zipped.ndjson'))).toBe(true);
    expect(isGzip(path.join(folder, 'plain.ndjson.gz'))).toBe(false);
    const expected = [
      [1, '{"a":1}'],
      [2, ''],
      [3, '{"b":"é"}'],
    ];
    expect(await collect(path.join(folder, 'zipped.ndjson'))).toEqual(expected);
    expect(await collect(path.join(folder, 'plain.ndjson.gz'))).toEqual(expected);
  });

  it('writes one record a line, gzip when the name ends in .gz', async () => {
    for (const name of ['out.ndjson', 'out.ndjson.gz']) {
      const file = path.join(folder, name);
      const output = ndjsonOutput(file);
      await output.write({ n: 1 });
      await output.write({ n: 'two' });
      await output.close();
      expect(isGzip(file)).toBe(name.endsWith('.gz'));
      expect((await collect(file)).map(([, text]) => text)).toEqual(['{"n":1}', '{"n":"two"}']);
    }
    expect(readFileSync(path.join(folder, 'out.ndjson'), 'utf8')).toBe('{"n":1}\n{"n":"two"}\n');
  });

  it('names the field and the rule of a schema or a register rule', () => {
    const schema = Type.Object({
      name: Type.String(),
      items: Type.Array(Type.Object({ n: Type.Integer() })),
    });
    expect(schemaProblems(schema, { name: 'x', items: [{ n: 1 }, { n: 'two' }] })).toEqual([
      { field: 'items.1.n', rule: 'expected integer' },
    ]);
    expect(schemaProblems(schema, { name: 'x', items: [] })).toEqual([]);
    expect(
      ruleProblems(() => {
        throw new RuleError('debtors.0.lastName', 'is required');
      }),
    ).toEqual([{ field: 'debtors.0.lastName', rule: 'is required' }]);
    expect(() =>
      ruleProblems(() => {
        throw new Error('not a rule');
      }),
    ).toThrow('not a rule');
  });

  it('compares JSON by content, not key order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
  });

  it('hands records to the register 500 at a time, fewer when their lines are long', async () => {
    // A database whose connection takes the transaction's statements and nothing else.
    const client = { query: async () => ({ rows: [], rowCount: 0 }), release: () => {} };
    const database = { pool: { connect: async () => client } } as unknown as Database;
    const chunks: number[] = [];
    const register: TransferRegister = {
      name: 'test',
      records: 'lines',
      importer: () => ({
        check: (value) => accepted(value),
        write: async (_client, records) => {
          chunks.push(records.length);
          return { inserted: records.length, updated: 0, unchanged: 0 };
        },
      }),
      exportAll: async () => 0,
    };
    const short = path.join(folder, 'short.ndjson');
    writeFileSync(short, `${Array.from({ length: 1200 }, (_, i) => JSON.stringify({ i })).join('\n')}\n`);
    expect((await importFiles(database, register, { files: [short] })).inserted).toBe(1200);
    expect(chunks).toEqual([500, 500, 200]);
    chunks.length = 0;
    // Lines of 3 MiB: a chunk holds as many as pass 8 MiB of text.
    const long = path.join(folder, 'long.ndjson');
    const big = JSON.stringify({ text: 'x'.repeat(3 * 1024 * 1024) });
    writeFileSync(long, `${Array.from({ length: 5 }, () => big).join('\n')}\n`);
    await importFiles(database, register, { files: [long] });
    expect(chunks).toEqual([3, 2]);
  });

  it('checks the next chunk while one is written, one write at a time, and rolls back after the write', async () => {
    const log: string[] = [];
    const client = {
      query: async (sql: string) => {
        // The tables' statistics, looked at after each chunk (brought up to date as they grow).
        log.push(sql.includes('pg_stat_xact_user_tables') ? 'statistics' : sql);
        return { rows: [], rowCount: 0 };
      },
      release: () => {},
    };
    const database = { pool: { connect: async () => client } } as unknown as Database;
    let running = 0;
    let most = 0;
    let checkedWhileWriting = 0;
    const register: TransferRegister = {
      name: 'test',
      records: 'lines',
      importer: () => ({
        check: (value) => {
          if (running > 0) checkedWhileWriting++;
          return accepted(value);
        },
        write: async (_client, records) => {
          most = Math.max(most, ++running);
          log.push(`write ${records.length}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
          running--;
          if ((records[0] as { i: number }).i === 500) {
            log.push('failed');
            throw new Error('the disk is full');
          }
          log.push(`wrote ${records.length}`);
          return { inserted: records.length, updated: 0, unchanged: 0 };
        },
      }),
      exportAll: async () => 0,
    };
    const lines = Array.from({ length: 1200 }, (_, i) => JSON.stringify({ i }));
    const file = path.join(folder, 'writes.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    // The second chunk's write fails: thrown, nothing committed, the rollback after the write ended.
    await expect(importFiles(database, register, { files: [file] })).rejects.toThrow('the disk is full');
    expect(log).toEqual(['BEGIN', 'write 500', 'wrote 500', 'statistics', 'write 500', 'failed', 'ROLLBACK']);
    expect(most).toBe(1);
    expect(checkedWhileWriting).toBeGreaterThan(0);

    // A bad line after the first chunk: the write running ends before the rollback.
    log.length = 0;
    lines[700] = 'not json';
    writeFileSync(file, `${lines.join('\n')}\n`);
    await expect(importFiles(database, register, { files: [file] })).rejects.toThrow('nothing was imported');
    expect(log).toEqual(['BEGIN', 'write 500', 'wrote 500', 'statistics', 'ROLLBACK']);

    // A whole import of five chunks: the statistics looked at after each.
    log.length = 0;
    const more = Array.from({ length: 2_200 }, (_, i) => JSON.stringify({ i: i === 500 ? -1 : i }));
    writeFileSync(file, `${more.join('\n')}\n`);
    await importFiles(database, register, { files: [file] });
    expect(log.filter((entry) => !entry.startsWith('write'))).toEqual([
      'BEGIN',
      'wrote 500',
      'statistics',
      'wrote 500',
      'statistics',
      'wrote 500',
      'statistics',
      'wrote 500',
      'statistics',
      'wrote 200',
      'statistics',
      'COMMIT',
    ]);
  });

  it('lets a write see its answers while the next chunk is read', async () => {
    const client = { query: async () => ({ rows: [], rowCount: 0 }), release: () => {} };
    const database = { pool: { connect: async () => client } } as unknown as Database;
    let writing = false;
    const checkedWhileWriting: number[] = [];
    const register: TransferRegister = {
      name: 'test',
      records: 'lines',
      importer: () => ({
        check: (value) => {
          if (writing) checkedWhileWriting[checkedWhileWriting.length - 1]!++;
          return accepted(value);
        },
        write: async (_client, records) => {
          writing = true;
          checkedWhileWriting.push(0);
          // Three answers from the database, each a turn of the event loop away.
          for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
          writing = false;
          return { inserted: records.length, updated: 0, unchanged: 0 };
        },
      }),
      exportAll: async () => 0,
    };
    // Lines of about 1 KiB: the file is read 256 KiB at a time, about 250 lines.
    const file = path.join(folder, 'turns.ndjson');
    const pad = 'x'.repeat(1000);
    writeFileSync(file, `${Array.from({ length: 1500 }, (_, i) => JSON.stringify({ i, pad })).join('\n')}\n`);
    await importFiles(database, register, { files: [file] });
    // While the first two chunks were written, the reading gave the write its turns after a few records
    // each (about 8 KiB of text), not after all it had read ahead.
    expect(checkedWhileWriting).toHaveLength(3);
    expect(checkedWhileWriting[0]).toBeGreaterThan(0);
    expect(checkedWhileWriting[0]).toBeLessThan(50);
    expect(checkedWhileWriting[1]).toBeLessThan(50);
  });
});
