import { createHash } from 'node:crypto';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

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
    return validators.get(key) ?? remember(validators, key, compile(schema));
  };
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
    return serializers.get(key) ?? remember(serializers, key, compile(route));
  };
}
