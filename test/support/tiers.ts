import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The two tiers of the suite. A test file is in the **unit** tier when nothing it or its test helpers
 * (the relative imports inside `test/`, followed through) do needs a database, a server, a browser, a
 * child process or the network; every other file is in the **integration** tier. The tier is read from
 * the files, not declared: a helper that starts using the database moves every file that imports it.
 * The unit tier runs with connections and listening refused (`offline.ts`), so a file put there wrongly
 * fails at once, naming what it tried to open.
 */
const NEEDS_THE_WORLD = [
  /support\/runtime\.ts/, // test gateways and their databases
  /support\/global-setup\.ts/,
  /\bDATABASE_URL\b|\bREDIS_URL\b/,
  /['"]node:(child_process|net|http|https|worker_threads)['"]/,
  /['"](pg|ioredis|playwright-core|autocannon|nodemailer)['"]/,
  /\bchromium\b/i,
  /\bfetch\(/,
  /\bbuildApp\b|\bopenRuntime\b|\bopenDatabase\b|\bstartEmbedded\b/,
];

const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return testFiles(file);
    return name.endsWith('.test.ts') ? [file] : [];
  });
}

/** Whether a file of the tests, or a test helper it imports, needs the world outside the process. */
function needsTheWorld(file: string, testRoot: string, seen: Map<string, boolean>): boolean {
  const known = seen.get(file);
  if (known !== undefined) return known;
  seen.set(file, false); // an import cycle among helpers decides nothing by itself
  const text = readFileSync(file, 'utf8');
  let needs = NEEDS_THE_WORLD.some((pattern) => pattern.test(text));
  for (const match of needs ? [] : text.matchAll(IMPORT)) {
    const target = path.resolve(path.dirname(file), (match[1] ?? match[2])!);
    // Only the tests' own helpers are followed; the product's modules are what the tests exercise.
    if (!target.startsWith(testRoot + path.sep) || !target.endsWith('.ts')) continue;
    if (needsTheWorld(target, testRoot, seen)) {
      needs = true;
      break;
    }
  }
  seen.set(file, needs);
  return needs;
}

/** The unit tier's files, relative to `root` (the project's folder), for vitest.config.ts. */
export function unitTestFiles(root: string): string[] {
  const testRoot = path.join(root, 'test');
  const seen = new Map<string, boolean>();
  return testFiles(testRoot)
    .filter((file) => !needsTheWorld(file, testRoot, seen))
    .map((file) => path.relative(root, file).split(path.sep).join('/'))
    .sort();
}
