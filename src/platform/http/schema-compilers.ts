import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { keepFile } from '../kept-file.js';

/**
 * Compiled request validators and response serializers, shared by every Fastify app this process builds
 * and by the two environments of one app. Compiling the registers' schemas (Ajv for what comes in,
 * fast-json-stringify for what goes out) was most of a start's time, and each schema was compiled once
 * per environment and again for every app a process builds (a test harness's reset-free restarts, a
 * test file's gateways). A compiled function depends only on its schema and the compiler's context (its
 * options and the shared schemas it can reference), so the same text of both gets the same function.
 *
 * - `shareValidators` is Fastify's `ajv.onCreate`: it wraps the instance's `compile`. The default
 *   validator compiler stays Fastify's own (a custom one would change how header schemas are read).
 * - `sharedSerializers` is Fastify's `schemaController.compilersFactory.buildSerializer`: the default
 *   selector, memoised.
 *
 * A schema that holds what JSON cannot say (a function, a regular expression) is compiled every time.
 * The functions are pure (a validator's `errors` is read synchronously right after its call), so
 * sharing them is safe; the maps are bounded.
 *
 * Across processes (`keepCompiledCode`, the test harness's new processes): each compiled function's
 * code is kept in a folder, a file named by a hash of its key and the compilers' versions, so a new
 * process evaluates the code instead of compiling the schema: Ajv's standalone code of a validator, and
 * fast-json-stringify's standalone code of a serializer (its own validators inlined). A function whose
 * code the compiler cannot give (a format or keyword that is a function) is compiled as before.
 */
const MAX_ENTRIES = 20_000;
const validators = new Map<string, unknown>();
const serializers = new Map<string, (document: unknown) => string>();

class Unkeyable extends Error {}

/** The schema's text, or undefined when JSON cannot hold all of it (a function, a cycle). */
function keyOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === 'function' || item instanceof RegExp) throw new Unkeyable();
      return item;
    });
  } catch {
    return undefined;
  }
}

/**
 * A compiler's context as text: its options may hold functions (Ajv's URI resolver, a logger), which
 * are the same modules' in every app of the process, so they are named rather than refused; an object
 * met again (a module's `default` pointing back at itself) is named by its first path.
 */
function contextOf(value: unknown): string {
  const seen = new Map<object, string>();
  return JSON.stringify(value, function (this: unknown, key: string, item: unknown) {
    if (typeof item === 'function') return `function ${item.name}`;
    if (item instanceof RegExp) return String(item);
    if (typeof item !== 'object' || item === null) return item;
    const first = seen.get(item);
    if (first !== undefined) return `[seen ${first}]`;
    seen.set(item, `${seen.size}:${key}`);
    return item;
  });
}

const digest = (text: string): string => createHash('sha256').update(text).digest('base64url');

function remember<T>(map: Map<string, T>, key: string, value: T): T {
  if (map.size >= MAX_ENTRIES) map.clear();
  map.set(key, value);
  return value;
}

/** What of an Ajv instance this needs (Ajv is Fastify's, not a dependency of ours). */
interface CompilingAjv {
  compile(schema: unknown, meta?: boolean): unknown;
  opts: unknown;
  schemas: Record<string, { schema?: unknown } | undefined>;
}

/**
 * The compilers' packages, as Fastify's validator compiler and our serializer compiler resolve them: the
 * kept code requires their runtime parts by name.
 */
const compilers = (() => {
  let resolved: { ajv: NodeJS.Require; serializer: NodeJS.Require; versions: string } | undefined;
  return () => {
    if (resolved) return resolved;
    const here = createRequire(import.meta.url);
    const ajv = createRequire(createRequire(here.resolve('fastify')).resolve('@fastify/ajv-compiler'));
    const serializer = createRequire(here.resolve('@fastify/fast-json-stringify-compiler'));
    const version = (require: NodeJS.Require, name: string) =>
      (require(`${name}/package.json`) as { version: string }).version;
    const versions = JSON.stringify([
      version(ajv, 'ajv'),
      version(ajv, 'ajv-formats'),
      version(serializer, 'fast-json-stringify'),
    ]);
    resolved = { ajv, serializer, versions };
    return resolved;
  };
})();

let codeFolder: string | undefined;

/** Keeps each compiled function's code in `folder` from now on, and reads it there (undefined: off). */
export function keepCompiledCode(folder: string | undefined): void {
  codeFolder = folder;
}

/** Forgets this process's compiled functions: the next apps compile (or read kept code) again. */
export function forgetCompiled(): void {
  validators.clear();
  serializers.clear();
}

const keptFile = (kind: string, key: string): string | undefined =>
  codeFolder && path.join(codeFolder, `${kind}-${digest(`${compilers().versions}:${key}`)}.js`);

/** The function the kept CommonJS `code` exports, its `require` the compiler's. */
function evaluate<T>(code: string, require: NodeJS.Require): T {
  const module = { exports: {} as unknown };
  new Function('require', 'module', 'exports', code)(require, module, module.exports);
  return module.exports as T;
}

/** The code kept in `file`, or undefined. */
function readKept(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Fastify's `ajv.onCreate`: the instance's compiled schemas are shared with every other instance's. */
export function shareValidators(ajv: CompilingAjv): void {
  const compile = ajv.compile.bind(ajv);
  let context: string | undefined;
  ajv.compile = (schema: unknown, meta?: boolean) => {
    const text = meta ? undefined : keyOf(schema);
    if (text === undefined) return compile(schema, meta);
    // Read at the first compile: the shared schemas are added after onCreate.
    context ??= digest(
      contextOf([ajv.opts, Object.entries(ajv.schemas).map(([id, env]) => [id, env?.schema])]),
    );
    const key = `${context}:${text}`;
    return validators.get(key) ?? remember(validators, key, keptValidator(ajv, key, schema, compile));
  };
}

/** The validator from its kept code, else compiled (and its standalone code kept when Ajv can give it). */
function keptValidator(
  ajv: CompilingAjv,
  key: string,
  schema: unknown,
  compile: (schema: unknown) => unknown,
): unknown {
  const file = keptFile('validator', key);
  if (file === undefined) return compile(schema);
  const { ajv: require } = compilers();
  const code = readKept(file);
  if (code !== undefined) return evaluate(code, require);
  const options = (ajv.opts as { code: { source?: boolean; formats?: unknown } }).code;
  // Standalone code needs the source kept and the formats named as code (ajv-formats' full set, the
  // set Fastify's compiler adds).
  options.source = true;
  options.formats ??= (require('ajv') as { _: (parts: TemplateStringsArray) => unknown })
    ._`require("ajv-formats/dist/formats").fullFormats`;
  const compiled = compile(schema);
  try {
    const standalone = require('ajv/dist/standalone') as { default: (ajv: unknown, fn: unknown) => string };
    keepFile(file, standalone.default(ajv, compiled));
  } catch {}
  return compiled;
}

const defaultSerializers = SerializerSelector();

/** Fastify's `compilersFactory.buildSerializer`: the default, with each compiled serializer shared. */
export function sharedSerializers(
  externalSchemas?: unknown,
  options?: Parameters<typeof defaultSerializers>[1],
): ReturnType<typeof defaultSerializers> {
  const compile = defaultSerializers(externalSchemas, options);
  const prefix = digest(contextOf([externalSchemas, options]));
  return (route) => {
    const text = keyOf(route.schema);
    if (text === undefined) return compile(route);
    const key = `${prefix}:${text}`;
    return (
      serializers.get(key) ??
      remember(serializers, key, keptSerializer(key, route, externalSchemas, options) ?? compile(route))
    );
  };
}

type Serializer = (document: unknown) => string;

/**
 * The serializer from its kept code, else built as fast-json-stringify's standalone code (what the
 * default compiler builds, in that mode), kept and evaluated; undefined when there is no folder or the
 * code cannot be built.
 */
function keptSerializer(
  key: string,
  route: { schema?: unknown },
  externalSchemas: unknown,
  options: object | undefined,
): Serializer | undefined {
  const file = keptFile('serializer', key);
  if (file === undefined) return undefined;
  const { serializer: require } = compilers();
  let code = readKept(file);
  if (code === undefined) {
    // As the default compiler (SerializerSelector) calls it: the route's own schema out of the shared.
    const schema = route.schema as { $id?: string };
    const shared = { ...(externalSchemas as Record<string, unknown> | undefined) };
    if (schema.$id) delete shared[schema.$id];
    try {
      const build = require('fast-json-stringify') as (schema: unknown, options: object) => string;
      code = build(schema, { ...options, schema: shared, mode: 'standalone', inlineValidators: true });
    } catch {
      return undefined;
    }
    keepFile(file, code);
  }
  return evaluate<Serializer>(code, require);
}
