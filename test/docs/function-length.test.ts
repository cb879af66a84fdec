import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No function of the product is longer than 150 lines (src/services/README.md): an operation, a route
 * plugin, a generator step, a page each stay readable on their own. Data tables are not functions, so they
 * are not counted; a function that grows past the limit is split by what it does. A route handler reads
 * its input, calls an operation and shapes the answer: at most 40 lines, in every module.
 */
const SRC = join(import.meta.dirname, '..', '..', 'src');
const LIMIT = 150;
const HANDLER_LIMIT = 40;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Functions of `file` longer than `limit` lines; `only` picks the functions that count (all by default). */
function longFunctions(file: string, limit = LIMIT, only: (node: ts.Node) => boolean = () => true): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body && only(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      if (last - first + 1 > limit)
        found.push(`${relative(SRC, file)}:${first + 1} is ${last - first + 1} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A route handler: the function given last to `scope.get(…)`, `scope.post(…)` and their kin. */
const isHandler = (node: ts.Node): boolean => {
  const call = node.parent;
  return (
    call !== undefined &&
    ts.isCallExpression(call) &&
    call.arguments.at(-1) === node &&
    ts.isPropertyAccessExpression(call.expression) &&
    ['get', 'post', 'put', 'patch', 'delete', 'head', 'route'].includes(call.expression.name.text)
  );
};

describe('the product’s functions', () => {
  it(`are at most ${LIMIT} lines each`, () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(400);
    expect(files.flatMap((file) => longFunctions(file))).toEqual([]);
  });

  it(`have route handlers of at most ${HANDLER_LIMIT} lines`, () => {
    const routes = sourceFiles(SRC).filter((file) => /[/\\]routes[/\\]/.test(file));
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.flatMap((file) => longFunctions(file, HANDLER_LIMIT, isHandler))).toEqual([]);
  });
});
