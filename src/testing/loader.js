// The loader of the gateway's TypeScript sources for a test suite's process (entry.js): Node's
// in-thread module hooks (`module.registerHooks`) give each `.ts` module its JavaScript, kept in the
// machine's cache folder under a hash of the source and the transform, so a new process reads
// JavaScript instead of asking tsx's hooks about every module (most of a new process's module load).
// The JavaScript is Node's type stripping (`stripTypeScriptTypes`: the types blanked out, every line
// and column where it was, no source map needed), or, for a module whose syntax stripping cannot erase,
// esbuild's transform (tsx's own esbuild) with an inline source map, which stack traces follow under
// `--enable-source-maps` (turning source maps on for every process would have each module's and each
// compiled schema's text searched for one). V8's code cache of what the process compiles is kept there
// too (`module.enableCompileCache`). On a Node without `registerHooks` it is tsx's loader.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import nodeModule, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { keepFile } from '../platform/kept-file.js';
import { trustedCacheFolder } from './cache-folder.js';

const registered = Symbol.for('register-services-gateway.loader');

/**
 * Node's type stripping, without the one-time "experimental feature" warning it prints to a suite's
 * output (a warning about the loader's means, not about the suite); every other warning passes.
 */
function stripped(source) {
  const emit = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    if (String(warning?.message ?? warning).includes('stripTypeScriptTypes')) return;
    return emit.call(process, warning, ...rest);
  };
  try {
    return nodeModule.stripTypeScriptTypes(source, { mode: 'strip' });
  } finally {
    process.emitWarning = emit;
  }
}

/** Registers the loader, once a process. */
export async function registerLoader() {
  if (globalThis[registered]) return;
  globalThis[registered] = true;
  if (
    typeof nodeModule.registerHooks !== 'function' ||
    typeof nodeModule.stripTypeScriptTypes !== 'function'
  ) {
    const { register } = await import('tsx/esm/api');
    register();
    return;
  }
  // A cache folder somebody else could write in is not read: every module is made anew then.
  let folder;
  try {
    folder = path.join(trustedCacheFolder(), 'modules');
  } catch {}
  // V8's code cache of the modules this process compiles from now on (the gateway's and its packages'),
  // kept in the same folder: a new process compiles less (unless the suite chose its own cache).
  if (folder && typeof nodeModule.enableCompileCache === 'function') {
    nodeModule.enableCompileCache(path.join(path.dirname(folder), 'v8'));
  }
  const require = createRequire(import.meta.url);
  let esbuild;
  // Loaded at the first module missing from the cache only.
  const transformer = () => {
    esbuild ??= createRequire(require.resolve('tsx/package.json'))('esbuild');
    return esbuild;
  };
  const version = require('esbuild/package.json', {
    paths: [path.dirname(require.resolve('tsx/package.json'))],
  });
  const options = (file) => ({
    loader: 'ts',
    format: 'esm',
    target: `node${process.versions.node}`,
    keepNames: true,
    sourcemap: 'inline',
    sourcefile: file,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
  });
  const salt = JSON.stringify([process.versions.node, version.version, options('')]);
  const javascriptOf = (source, file) => {
    try {
      return stripped(source);
    } catch {
      return transformer().transformSync(source, options(file)).code;
    }
  };
  nodeModule.registerHooks({
    load(url, context, nextLoad) {
      if (!url.startsWith('file:') || !new URL(url).pathname.endsWith('.ts')) return nextLoad(url, context);
      const file = fileURLToPath(url);
      const source = readFileSync(file, 'utf8');
      const key = createHash('sha256').update(salt).update(file).update('\0').update(source).digest('hex');
      const cached = folder && path.join(folder, `${key}.js`);
      let code;
      try {
        code = readFileSync(cached, 'utf8');
      } catch {
        code = javascriptOf(source, file);
        if (cached) keepFile(cached, code);
      }
      return { format: 'module', source: code, shortCircuit: true };
    },
  });
}
