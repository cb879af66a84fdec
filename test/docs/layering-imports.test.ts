import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layers inside a register (src/services/README.md), from the import statements of its files:
 *
 * - `store/` talks only to the database: no file of a service's `store/` reaches that service's
 *   `sandbox/`, `routes/`, `jobs/` or `operations/`, directly or through the service's other files (what
 *   a read needs of the sandbox generator comes through a seam the service wires at start: nzbn's
 *   `DocumentSource`; the seed's rows are made in `sandbox/` and loaded through the store's functions);
 * - `routes/` never reaches `jobs/`, directly or through the service's other files (an operation the
 *   routes call): what both need lives in `operations/` or `domain/`, and a job is started by the
 *   service's definition (`index.ts`).
 *
 * Every module reference counts: `import` and `export … from` (type-only ones too), `import()`, an
 * `import('…')` type, and a worker's module (`new URL('…', import.meta.url)`). No file is exempt. A
 * failure names each file, what it reaches, and the chain of imports that gets there.
 */
const SERVICES = join(import.meta.dirname, '..', '..', 'src', 'services');

/** The module specifiers a TypeScript file refers to. */
function moduleReferences(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const literal = (node: ts.Node | undefined) =>
    node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;
  const visit = (node: ts.Node): void => {
    let specifier: string | undefined;
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node))
      specifier = literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      specifier = literal(node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      specifier = literal(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      specifier = literal(node.argument.literal);
    else if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'URL' &&
      node.arguments?.[1]?.getText(source) === 'import.meta.url'
    )
      specifier = literal(node.arguments[0]);
    if (specifier !== undefined) found.push(specifier);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Every service's files (`nzbn/store/entities.ts`), each with the files of its own service it refers to. */
function serviceGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const service of readdirSync(SERVICES)) {
    const folder = join(SERVICES, service);
    if (!statSync(folder).isDirectory()) continue;
    for (const file of sourceFiles(folder)) {
      const targets = moduleReferences(file, readFileSync(file, 'utf8'))
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => resolve(dirname(file), specifier))
        .map((path) => (existsSync(path) || !existsSync(`${path}.ts`) ? path : `${path}.ts`))
        .filter((path) => path.startsWith(folder + sep))
        .map((path) => relative(SERVICES, path));
      graph.set(relative(SERVICES, file), targets);
    }
  }
  return graph;
}

/** `nzbn/store/entities.ts` → `store`; a file at the service's top (`nzbn/index.ts`) → its name. */
const layerOf = (file: string): string => file.split('/')[1]!.replace(/\.ts$/, '');

/**
 * The files of `layer` that reach a file of one of `forbidden` (in the same service), each with the
 * shortest chain of imports that does.
 */
function crossings(graph: Map<string, string[]>, layer: string, forbidden: readonly string[]): string[] {
  const found: string[] = [];
  for (const start of [...graph.keys()].filter((file) => layerOf(file) === layer)) {
    const via = new Map<string, string>([[start, start]]);
    const queue = [start];
    while (queue.length > 0) {
      const file = queue.shift()!;
      const target = (graph.get(file) ?? []).find((next) => forbidden.includes(layerOf(next)));
      if (target) {
        const chain = [target];
        for (let step = file; step !== start; step = via.get(step)!) chain.unshift(step);
        found.push(`${start} → ${chain.join(' → ')}`);
        break;
      }
      for (const next of graph.get(file) ?? []) {
        if (via.has(next)) continue;
        via.set(next, file);
        queue.push(next);
      }
    }
  }
  return found;
}

describe('the layers inside a register', () => {
  const graph = serviceGraph();

  it('reads every kind of module reference', () => {
    const text = [
      "import type { A } from '../sandbox/a.ts';",
      "import {\n  b,\n  c,\n} from '../jobs/b.ts';",
      "export { d } from '../routes/d.ts';",
      "export * from './e.ts';",
      "import './f.ts';",
      "const g = await import('../operations/g.ts');",
      "type H = import('../sandbox/h.ts').H;",
      "const worker = new URL('../sandbox/worker.ts', import.meta.url);",
      "const other = new URL('https://example.test/', base);",
      "import pg from 'pg';",
    ].join('\n');
    expect(moduleReferences('x.ts', text)).toEqual([
      '../sandbox/a.ts',
      '../jobs/b.ts',
      '../routes/d.ts',
      './e.ts',
      './f.ts',
      '../operations/g.ts',
      '../sandbox/h.ts',
      '../sandbox/worker.ts',
      'pg',
    ]);
  });

  it('finds a crossing through the service’s other files, with its chain', () => {
    const made = new Map([
      ['x/routes/a.ts', ['x/operations/b.ts']],
      ['x/operations/b.ts', ['x/domain/c.ts', 'x/jobs/d.ts']],
      ['x/domain/c.ts', []],
      ['x/jobs/d.ts', []],
      ['x/store/e.ts', ['x/domain/c.ts']],
    ]);
    expect(crossings(made, 'routes', ['jobs'])).toEqual(['x/routes/a.ts → x/operations/b.ts → x/jobs/d.ts']);
    expect(crossings(made, 'store', ['sandbox', 'routes', 'jobs', 'operations'])).toEqual([]);
  });

  it('sees the registers’ stores, routes and jobs', () => {
    const files = [...graph.keys()];
    for (const layer of ['store', 'routes', 'jobs', 'sandbox', 'operations']) {
      expect(files.filter((file) => layerOf(file) === layer).length, layer).toBeGreaterThan(5);
    }
  });

  it('a store reaches none of its service’s sandbox, routes, jobs or operations', () => {
    expect(crossings(graph, 'store', ['sandbox', 'routes', 'jobs', 'operations'])).toEqual([]);
  });

  it('the routes reach none of their service’s jobs', () => {
    expect(crossings(graph, 'routes', ['jobs'])).toEqual([]);
  });
});
