import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No function of a register or of the gateway is longer than 150 lines (src/services/README.md): an
 * operation, a route plugin, a generator step, a step of mounting a service each stay readable on their
 * own. Data tables are not functions, so they are not counted; a function that grows past the limit is
 * split by what it does.
 */
const SRC = join(import.meta.dirname, '..', '..', 'src');
const SERVICES = join(SRC, 'services');
const GATEWAY = join(SRC, 'gateway');
const LIMIT = 150;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function longFunctions(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      if (last - first + 1 > LIMIT)
        found.push(`${relative(SRC, file)}:${first + 1} is ${last - first + 1} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the registers’ and the gateway’s functions', () => {
  it(`are at most ${LIMIT} lines each`, () => {
    const files = [...sourceFiles(SERVICES), ...sourceFiles(GATEWAY)];
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(longFunctions)).toEqual([]);
  });
});
