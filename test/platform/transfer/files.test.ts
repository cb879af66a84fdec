import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { RuleError } from '../../../src/platform/errors.ts';
import { canonicalJson, sameJson } from '../../../src/platform/transfer/canonical.ts';
import { ruleProblems, schemaProblems } from '../../../src/platform/transfer/check.ts';
import { fileLines, isGzip, ndjsonOutput } from '../../../src/platform/transfer/ndjson.ts';
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
});
