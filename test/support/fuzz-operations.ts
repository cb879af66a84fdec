import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { dialectCodes, dialectError, expectCatalogued } from './error-codes.ts';
import { type FingerprintedTables, fingerprint } from './fingerprint.ts';
import { Deep, dateText, deepJson, hostile, hostileString, httpDate } from './fuzz.ts';
import { OpenApi, type Operation, type Schema, serviceBase, serviceOf } from './openapi.ts';
import { subscriber } from './runtime.ts';
import {
  accessOf,
  bodyOf,
  type OperationAccess,
  queriesOf,
  type ServiceFixture,
  type ServiceSubject,
  type Values,
} from './service-fixture.ts';

/**
 * The "no 500s" fuzzer: every operation of a service's OpenAPI document (as the running gateway serves
 * it) is called with path parameters, query parameters, precondition and Accept headers and JSON bodies
 * built from the operation's own schemas and the fixture's values: valid ones (so a request reaches the
 * domain rules and the database), awkward ones the schema allows (unicode, the edges of a length,
 * impossible dates) and hostile ones at any depth (empty and very long strings, NUL, lone surrogates,
 * SQL and JSON metacharacters, wrong types, huge and negative numbers, broken %-encoding, repeated and
 * unknown parameters, extra fields, JSON nested 100,000 deep). The fixture's valid example queries and
 * body are sent too, with a parameter or a field dropped, repeated or replaced. A body of another kind
 * (a multipart upload, which the fixture gives as bytes) is sent whole, cut at any byte, with a byte
 * changed or as random bytes, now and then under another type.
 *
 * Every answer must be below 500; an error must be in the service's dialect with a code of its
 * catalogue (and a 400 `invalid-parameter` must name the field); a successful answer must conform to the
 * document; and a refused write must leave the service's tables as they were (a fingerprint before and
 * after). The caller is the fixture's owner (with a user's token where the operation needs one), so
 * writes get past authorisation and reach validation.
 *
 * Deterministic: one fixed seed per operation (`seed` + its index) and a fixed number of runs;
 * FUZZ_SEED=<n> shifts the seeds, FUZZ_RUNS=<n> sets the runs per operation, to explore by hand.
 */
export interface FuzzOptions {
  seed: number;
  /** Requests per operation; `perOperation` overrides it for some. */
  runs: number;
  perOperation?: Record<string, number>;
  /** Fields a valid body leaves out (they must name something that exists, or be allocated first). */
  leaveOut?: string[];
  /** Other names a 400 may give a field by (a published spelling of a parameter). */
  fieldAliases?: string[];
}

type Level = 'valid' | 'awkward' | 'hostile';
const LEVELS: Level[] = ['valid', 'awkward', 'hostile'];

interface Request {
  path: Record<string, string>;
  /** `name=value` pairs, already encoded (or raw junk). */
  query: string[];
  headers: Record<string, string>;
  body?: string;
  /** A body of another kind than JSON (a multipart upload), with the type it is sent as. */
  raw?: { bytes: Buffer; contentType: string };
}

/**
 * A raw example body (a multipart upload) as sent, cut at any byte, with a byte changed, or replaced by
 * random bytes; mostly under its own type, now and then under another.
 */
function rawBodies(example: Buffer, contentType: string): fc.Arbitrary<NonNullable<Request['raw']>> {
  const bytes = fc.oneof(
    { weight: 4, arbitrary: fc.constant(example) },
    { weight: 3, arbitrary: fc.nat(example.length).map((n) => example.subarray(0, n)) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.nat(Math.max(0, example.length - 1)), fc.integer({ min: 0, max: 255 }))
        .map(([at, byte]) => {
          const copy = Buffer.from(example);
          copy[at] = byte;
          return copy;
        }),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((array) => Buffer.from(array)) },
  );
  const types = fc.oneof(
    { weight: 8, arbitrary: fc.constant(contentType) },
    fc.constantFrom(
      'application/json',
      'text/plain',
      'multipart/form-data',
      'multipart/form-data; boundary=x',
    ),
  );
  return fc.record({ bytes, contentType: types });
}

/** Raw, possibly broken, URL bytes: sent as they are. */
const RAW_JUNK = ['%00', '%', '%Z', '%ZZ', '%E0%A4%A', '%C0%AF', '%FF%FE', '%ED%A0%80', '%25', '+', '%0D%0A'];
const UNKNOWN_NAMES = ['foo', '__proto__', 'constructor', 'a[]', 'a[0]', 'a.b', '', '%00', '%ZZ', 'PAGE'];
const ACCEPT = ['application/json', '*/*', 'text/csv', 'application/xml', '', 'application/json;q=2', ',,,'];

/** Text for a URL: encoded, or raw when it already looks %-encoded (junk included). */
function urlText(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  if (/%/.test(text) && /^[\x21-\x7e]*$/.test(text)) return text;
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80'; // a lone surrogate, as its UTF-8 bytes would be
  }
}

const headerText = (value: unknown): string | undefined => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /^[\x20-\x7e]{0,4000}$/.test(text) ? text : undefined;
};

const HEADER_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  'if-match': fc.oneof(fc.constantFrom('*', '"x"', 'W/"x"', '"', ''), hostileString),
  'if-none-match': fc.oneof(fc.constantFrom('*', '"x"', 'W/"x"', '"', ''), hostileString),
  'if-modified-since': fc.oneof(httpDate, hostileString),
  'if-unmodified-since': fc.oneof(httpDate, hostileString),
};

/** Dates a register reads: ordinary ones, early years, leap days, offsets and Z. */
const validDate = fc.constantFrom(
  '2024-02-01',
  '2024-02-29',
  '2000-02-29',
  '0000-01-01',
  '0050-06-01',
  '1900-01-01',
  '9999-12-31',
  '2009-03-24T00:00:00.000+1300',
  '2024-06-01T10:00:00Z',
  '2024-06-01T10:00:00.000-14:00',
);

/** The values a description lists ("EMAIL or PUSH", "changeDate (default), entityName or nzbn"). */
const listed = (description = ''): string[] =>
  [...new Set(description.match(/\b[A-Za-z][A-Za-z0-9_]+\b/g) ?? [])].filter(
    (word) =>
      !/^(or|and|the|a|an|is|to|in|default|same|as|of|not|no|every|but|e|g|they|have|source|register)$/.test(
        word,
      ),
  );

/** Text a string field accepts by its schema but that is awkward: unicode, edges of its length. */
const awkward = (schema: Schema): fc.Arbitrary<string> => {
  const max = schema.maxLength ?? 300;
  const min = schema.minLength ?? 0;
  return fc.constantFrom(
    'Ōtāhuhu Māori Trust',
    '  padded  ',
    '😀🔥 Ltd',
    "O'Brien & Sons (NZ) Ltd.",
    '\u202Eevil',
    '\uD800',
    'x'.repeat(Math.max(min, max)),
    'ā'.repeat(Math.max(min, max)),
    'x'.repeat(Math.max(min, 1)),
    '1e3',
  );
};

class Generator {
  constructor(
    private readonly subject: ServiceSubject,
    private readonly options: FuzzOptions,
  ) {}

  /** The fixture's values for `name`, at `level`. */
  private fixtureValues(name: string, level: Level): fc.Arbitrary<unknown> | undefined {
    const values: Values | undefined = this.subject.values?.(name);
    if (values === undefined) return undefined;
    if (values instanceof fc.Arbitrary) return values;
    const all = level === 'valid' ? values.valid : [...values.valid, ...(values.odd ?? [])];
    return all.length ? fc.constantFrom(...all) : undefined;
  }

  string(schema: Schema, name: string, level: Level, description?: string): fc.Arbitrary<unknown> {
    const odd = level !== 'valid';
    const given = this.fixtureValues(name, level);
    if (given) return odd ? fc.oneof({ weight: 4, arbitrary: given }, awkward(schema)) : given;
    if (this.subject.ids[name] !== undefined) return fc.constant(this.subject.ids[name]);
    if (schema.format === 'uuid' || /Id$/.test(name)) return fc.uuid();
    if (/date/i.test(name)) return odd ? fc.oneof(validDate, dateText) : validDate;
    if (/email/i.test(name)) {
      const valid = ['owner@example.test', 'fuzz@example.test', 'a@b.c'];
      return fc.constantFrom(...valid, ...(odd ? ['Ā@b.nz', 'no-at-sign', 'a@b.c'.padStart(254, 'x')] : []));
    }
    if (/endpoint|url/i.test(name)) {
      const valid = ['https://kowhai.example', 'http://localhost:9/hook', 'https://x.example/a?b=c#d'];
      const strange = [
        'https://x.example/%zz',
        'https://user:pw@x.example',
        'ftp://x.example',
        'https://[::1',
      ];
      return fc.constantFrom(...valid, ...(odd ? strange : []));
    }
    const limit = (text: string) => (schema.maxLength ? text.slice(0, schema.maxLength) : text);
    const plausible: fc.WeightedArbitrary<unknown>[] = [];
    const hints = [...(schema.examples ?? []), ...listed(schema.description ?? description)];
    if (hints.length) plausible.push({ weight: 4, arbitrary: fc.constantFrom(...hints) });
    if (schema.pattern) {
      try {
        plausible.push({ weight: 4, arbitrary: fc.stringMatching(new RegExp(schema.pattern)).map(limit) });
      } catch {
        // A pattern fast-check cannot generate from: the other values still cover the field.
      }
    }
    if (!plausible.length || odd) {
      const size = { minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 30, 30) };
      plausible.push({ weight: 1, arbitrary: fc.string(size) });
    }
    if (odd) plausible.push({ weight: 1, arbitrary: awkward(schema) });
    return fc.oneof(...plausible);
  }

  /** A value for `schema` at `level`: a hostile one now and then at any depth when the level is hostile. */
  value(schema: Schema, name: string, level: Level, description?: string): fc.Arbitrary<unknown> {
    const plausible = this.plausible(schema, name, level, description);
    return level === 'hostile' ? fc.oneof({ weight: 6, arbitrary: plausible }, hostile) : plausible;
  }

  private plausible(schema: Schema, name: string, level: Level, description?: string): fc.Arbitrary<unknown> {
    if (schema.enum) {
      const given = level === 'valid' ? undefined : this.fixtureValues(name, level);
      return given ? fc.oneof(fc.constantFrom(...schema.enum), given) : fc.constantFrom(...schema.enum);
    }
    if (schema.anyOf)
      return fc.oneof(...schema.anyOf.map((branch) => this.plausible(branch, name, level, description)));
    switch (schema.type) {
      case 'object': {
        const required = schema.required ?? [];
        const leaveOut = new Set(this.options.leaveOut ?? []);
        const properties = Object.entries(schema.properties ?? {}).filter(
          ([key]) => level !== 'valid' || required.includes(key) || !leaveOut.has(key),
        );
        const model = Object.fromEntries(
          properties.map(([key, property]) => [key, this.value(property, key, level)]),
        );
        const extra =
          typeof schema.additionalProperties === 'object'
            ? fc.dictionary(
                fc.string({ maxLength: 10 }),
                this.value(schema.additionalProperties, name, level),
                {
                  maxKeys: 3,
                },
              )
            : level === 'valid'
              ? fc.constant({})
              : fc.dictionary(fc.constantFrom('extra', '__proto__', 'constructor', ''), hostile, {
                  maxKeys: 1,
                });
        const fixed =
          level === 'hostile'
            ? fc.oneof(
                { weight: 4, arbitrary: fc.record(model, { requiredKeys: required }) },
                fc.record(model, { requiredKeys: [] }),
              )
            : fc.record(model, { requiredKeys: required });
        return fc.tuple(fixed, extra).map(([named, more]) => ({ ...more, ...named }));
      }
      case 'array':
        return fc.array(this.value(schema.items ?? {}, name, level), {
          minLength: level === 'hostile' ? 0 : Math.min(1, schema.maxItems ?? 1),
          maxLength: Math.min(schema.maxItems ?? 3, 3),
        });
      case 'string':
        return this.string(schema, name, level, description);
      case 'integer': {
        const given = this.fixtureValues(name, level);
        if (given && level === 'valid') return given;
        const min = schema.minimum ?? -1_000_000;
        const max = schema.maximum ?? 1_000_000;
        const numbers =
          level === 'valid' ? fc.integer({ min, max: Math.min(max, min + 5) }) : fc.integer({ min, max });
        const odd = fc.constantFrom(min - 1, max + 1, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 0, -1);
        return level === 'valid' ? numbers : fc.oneof({ weight: 3, arbitrary: numbers }, odd);
      }
      case 'number':
        return fc.double({ noNaN: true, noDefaultInfinity: true });
      case 'boolean':
        return level === 'valid'
          ? fc.boolean()
          : fc.oneof(fc.boolean(), fc.constantFrom('true', 'True', 1, 'yes'));
      case 'null':
        return fc.constant(null);
      default:
        return this.fixtureValues(name, level) ?? hostile;
    }
  }

  /** One query parameter's values on the wire: 0, 1 or several, sometimes with raw junk. */
  private queryValues(operation: Operation, name: string, level: Level): fc.Arbitrary<string[]> {
    const parameter = operation.parameters.find((p) => p.in === 'query' && p.name === name);
    const one = this.value(parameter?.schema ?? {}, name, level, parameter?.description).map((value) =>
      Array.isArray(value) && value.length && level !== 'hostile'
        ? value.map((v) => urlText(typeof v === 'string' ? v : String(v))).join(',')
        : urlText(typeof value === 'string' ? value : String(value)),
    );
    const piece = fc.oneof({ weight: 12, arbitrary: one }, fc.constantFrom(...RAW_JUNK));
    const wire =
      level === 'hostile' ? fc.array(piece, { minLength: 1, maxLength: 2 }).map((p) => p.join('')) : one;
    return fc.oneof(
      { weight: 12, arbitrary: wire.map((v) => [v]) },
      { weight: level === 'hostile' ? 2 : 0, arbitrary: fc.array(wire, { minLength: 2, maxLength: 3 }) },
    );
  }

  /** A query built from the schema: every parameter at one level, the required ones always given. */
  private schemaQuery(operation: Operation, level: Level): fc.Arbitrary<string[]> {
    const inQuery = operation.parameters.filter((p) => p.in === 'query');
    if (!inQuery.length) return fc.constant([]);
    return fc
      .record(Object.fromEntries(inQuery.map((p) => [p.name, this.queryValues(operation, p.name, level)])), {
        requiredKeys: level === 'hostile' ? [] : inQuery.filter((p) => p.required).map((p) => p.name),
      })
      .map((values) => Object.entries(values).flatMap(([name, list]) => list.map((v) => `${name}=${v}`)));
  }

  /** A valid example query with up to two parameters dropped, repeated or replaced. */
  private exampleQuery(operation: Operation, examples: string[]): fc.Arbitrary<string[]> {
    const names = operation.parameters.filter((p) => p.in === 'query').map((p) => p.name);
    const mutation = fc.record({
      name: fc.constantFrom(...names),
      kind: fc.constantFrom('drop', 'repeat', 'replace', 'replace'),
      level: fc.constantFrom(...LEVELS),
    });
    return fc
      .tuple(fc.constantFrom(...examples), fc.array(mutation, { maxLength: names.length ? 2 : 0 }))
      .chain(([example, mutations]) =>
        fc.tuple(
          fc.constant(example),
          fc.tuple(
            ...mutations.map((m) =>
              this.queryValues(operation, m.name, m.level).map((values) => ({ ...m, values })),
            ),
          ),
        ),
      )
      .map(([example, mutations]) => {
        let pairs = example ? example.split('&') : [];
        for (const { name, kind, values } of mutations) {
          const mine = (pair: string) => pair.split('=')[0] === name;
          if (kind === 'drop') pairs = pairs.filter((pair) => !mine(pair));
          else if (kind === 'repeat') pairs.push(...pairs.filter(mine));
          else pairs = [...pairs.filter((pair) => !mine(pair)), ...values.map((v) => `${name}=${v}`)];
        }
        return pairs;
      });
  }

  /** The example body with one field dropped or replaced, or a field added. */
  private exampleBody(operation: Operation, example: unknown): fc.Arbitrary<unknown> {
    if (example === null || typeof example !== 'object' || Array.isArray(example))
      return fc.constant(example);
    const fields = Object.keys(example);
    const properties = operation.body?.properties ?? {};
    const names = [...new Set([...fields, ...Object.keys(properties)])];
    if (!names.length) return fc.constant(example);
    return fc
      .record({
        name: fc.constantFrom(...names),
        kind: fc.constantFrom('keep', 'drop', 'replace', 'replace'),
        level: fc.constantFrom(...LEVELS),
      })
      .chain(({ name, kind, level }) =>
        this.value(properties[name] ?? {}, name, level).map((value) => {
          const copy: Record<string, unknown> = { ...(example as Record<string, unknown>) };
          if (kind === 'drop') delete copy[name];
          else if (kind === 'replace') copy[name] = value;
          return copy;
        }),
      );
  }

  request(operation: Operation, access: OperationAccess): fc.Arbitrary<Request> {
    const inPath = operation.parameters.filter((p) => p.in === 'path');
    const inHeaders = operation.parameters.filter((p) => p.in === 'header');
    const path = fc.record(
      Object.fromEntries(
        inPath.map((p) => {
          const fixed = access.path?.[p.name];
          const valid =
            fixed !== undefined
              ? fc.oneof(fc.constant(fixed), this.string(p.schema, p.name, 'valid'))
              : this.string(p.schema, p.name, 'valid');
          return [
            p.name,
            fc.oneof({ weight: 9, arbitrary: valid }, this.value(p.schema, p.name, 'hostile')).map(urlText),
          ];
        }),
      ),
    );
    const examples = queriesOf(access);
    const queries: fc.Arbitrary<string[]>[] = LEVELS.map((level) => this.schemaQuery(operation, level));
    if (examples.length)
      queries.push(this.exampleQuery(operation, examples), this.exampleQuery(operation, examples));
    const unknown = fc.array(
      fc
        .tuple(
          fc.constantFrom(...UNKNOWN_NAMES),
          fc.oneof(hostileString.map(urlText), fc.constantFrom(...RAW_JUNK)),
        )
        .map(([n, v]) => `${n}=${v}`),
      { maxLength: 2 },
    );
    const query = fc
      .tuple(fc.oneof(...queries), fc.oneof({ weight: 5, arbitrary: fc.constant([]) }, unknown))
      .map(([known, extra]) => [...known, ...extra]);
    // Preconditions now and then: most of them fail (412), which would hide the rest of the request.
    const preconditions = inHeaders.length
      ? fc.record(
          Object.fromEntries(inHeaders.map((p) => [p.name, HEADER_VALUES[p.name] ?? hostileString])),
          { requiredKeys: [] },
        )
      : fc.constant({});
    const headers = fc
      .tuple(
        fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, preconditions),
        fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, fc.constantFrom(...ACCEPT)),
      )
      .map(([values, accept]) => {
        const all: Record<string, string> = {};
        for (const [name, value] of Object.entries(values)) {
          const text = headerText(value);
          if (text !== undefined) all[name] = text;
        }
        if (accept !== undefined) all.accept = accept;
        return all;
      });
    const example = bodyOf(access, this.subject);
    if (Buffer.isBuffer(example)) {
      const raw = rawBodies(example, access.headers?.['content-type'] ?? 'application/octet-stream');
      return fc.record({ path, query, headers, raw });
    }
    let body: fc.Arbitrary<unknown> = fc.constant(undefined);
    if (operation.body) {
      const bodies: fc.WeightedArbitrary<unknown>[] = LEVELS.map((level) => ({
        weight: 5,
        arbitrary: this.value(operation.body!, 'body', level),
      }));
      if (example !== undefined) bodies.push({ weight: 10, arbitrary: this.exampleBody(operation, example) });
      bodies.push({ weight: 1, arbitrary: deepJson });
      body = fc.oneof(...bodies);
    }
    return fc
      .record({ path, query, headers, body }, { requiredKeys: ['path', 'query', 'headers'] })
      .map(({ body: value, ...rest }) => ({
        ...rest,
        ...(value === undefined
          ? {}
          : { body: value instanceof Deep ? value.text : (JSON.stringify(value) ?? 'null') }),
      }));
  }
}

export function fuzzOperations(fixture: ServiceFixture, options: FuzzOptions): void {
  const service = serviceOf(fixture.service);
  const codes = dialectCodes(service);
  const base = serviceBase(fixture.service);
  const ids = Object.keys(fixture.operations);
  let subject: ServiceSubject;
  let api: OpenApi;
  let operations: Map<string, Operation>;
  let key: string;
  let tables: FingerprintedTables[];
  let generator: Generator;

  beforeAll(async () => {
    subject = await fixture.setup();
    const gateway = subject.gateway;
    key = subject.key ?? (await subscriber(gateway, `sandbox-${fixture.service}`)).primaryKey;
    // Hundreds of calls in a few seconds: above the sandbox product's rate limit and quota.
    await updateProduct(gateway.runtime.gateway.pool, `sandbox-${fixture.service}`, {
      rateLimitPerMinute: 1_000_000,
      quota: null,
    });
    api = await OpenApi.fetch(gateway.app, base);
    operations = new Map(api.operations().map((operation) => [operation.id, operation]));
    tables = subject.tables ?? [
      { pool: gateway.runtime.environments.sandbox.pool, prefixes: [`${service.id.replaceAll('-', '_')}_`] },
    ];
    generator = new Generator(subject, options);
  }, 120_000);
  afterAll(() => subject?.close());

  /**
   * The names a 400 may give as its field (or the start of it, up to a `.`): the operation's parameters, its body's
   * fields, the parts of a request (`body`, `path` …), an array index, and any name the request sent.
   */
  const fieldNames = (operation: Operation, request: Request): Set<string> => {
    const names = new Set([
      ...operation.parameters.map((p) => p.name),
      ...Object.keys(operation.body?.properties ?? {}),
      ...(operation.formFields ?? []),
      ...(options.fieldAliases ?? []),
      'body',
      'path',
      'params',
      'querystring',
      'headers',
      'request',
    ]);
    for (const pair of request.query) {
      const name = pair.split('=')[0] ?? '';
      try {
        names.add(decodeURIComponent(name).replaceAll('\u0000', '\\u0000'));
      } catch {
        names.add(name); // a name the query parser cannot decode is kept as written
      }
    }
    try {
      const body: unknown = request.body === undefined ? undefined : JSON.parse(request.body);
      if (body && typeof body === 'object') for (const key of Object.keys(body)) names.add(key);
    } catch {
      // not JSON (or too deep to parse here): the parser's refusal names no field
    }
    return names;
  };

  const check = (label: string, response: LightMyRequestResponse, operation: Operation, request: Request) => {
    const where = `${label} → ${response.statusCode} ${response.body.slice(0, 300)}`;
    expect(response.statusCode, where).toBeLessThan(500);
    expect(response.body, where).not.toMatch(/\n\s+at [^\n]+:\d+:\d+/);
    if (response.statusCode < 400) return;
    // An empty path parameter can make a path no operation has: API Management's own 404 (mount.ts).
    if (response.body === '{"statusCode":404,"message":"Resource not found"}') return;
    // Or another operation's path (`/entities/organisation-parts-purchase/` is the entity
    // `organisation-parts-purchase`): its refusal names that operation's fields.
    const elsewhere = Object.values(request.path).some((value) => value === '');
    const code = dialectError(response, service.dialect, label);
    expectCatalogued(code, response.statusCode, codes, where);
    if (code === 'invalid-parameter') {
      const body = response.json();
      const fields = (body.list ?? body.errors ?? []) as { field: string }[];
      expect(fields.length, `${where}: names the field`).toBeGreaterThan(0);
      const names = fieldNames(operation, request);
      for (const { field } of fields) {
        const named = [...names].some((name) => field === name || field.startsWith(`${name}.`));
        if (!/^\d+(\.|$)/.test(field) && !named && !elsewhere)
          expect.fail(`${where}: the field "${field}" is no field of the request`);
      }
    }
  };

  it('fuzzes every operation of the OpenAPI document (each has a fixture entry)', () => {
    expect([...operations.keys()].sort()).toEqual([...ids].sort());
  });

  // Deletions last (the deepest first), so they do not take away what the other operations use.
  const order = ids
    .filter((id) => !accessOf(fixture.operations[id]!).coveredBy)
    .sort(
      (a, b) =>
        Number(a.startsWith('DELETE ')) - Number(b.startsWith('DELETE ')) ||
        (a.startsWith('DELETE ') ? b.length - a.length : 0),
    );
  it.each(order.map((id) => [id, ids.indexOf(id)] as const))(
    '%s: below 500, errors in the dialect with a catalogued code, a refused write writes nothing',
    async (id, index) => {
      const operation = operations.get(id);
      if (!operation) return expect.fail(`${id} is not in the OpenAPI document`);
      const access = accessOf(fixture.operations[id]!);
      const token = access.user ? subject.owner?.token : undefined;
      const numRuns = Number(process.env.FUZZ_RUNS ?? options.perOperation?.[id] ?? options.runs);
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(generator.request(operation, access), async (request) => {
          const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => request.path[name] ?? '');
          const url = `${base}${path}${request.query.length ? `?${request.query.join('&')}` : ''}`;
          const sent = request.raw
            ? `[${request.raw.bytes.length} bytes of ${request.raw.contentType}]`
            : request.body;
          const label = `${operation.method} ${url.slice(0, 200)} ${sent?.slice(0, 200) ?? ''}`;
          const before = operation.method === 'GET' ? undefined : await fingerprint(...tables);
          const response = await subject.gateway.app.inject({
            method: operation.method as 'GET',
            url,
            headers: {
              ...subject.headers,
              ...access.headers,
              'Ocp-Apim-Subscription-Key': key,
              ...(token ? { authorization: `Bearer ${token}` } : {}),
              ...request.headers,
              ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
              ...(request.raw ? { 'content-type': request.raw.contentType } : {}),
            },
            ...(request.body === undefined ? {} : { payload: request.body }),
            ...(request.raw ? { payload: request.raw.bytes } : {}),
          });
          statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
          check(label, response, operation, request);
          // A successful answer conforms to the document (an empty path parameter makes another path).
          if (response.statusCode < 400 && !Object.values(request.path).includes('')) {
            api.conformsUrl(operation.method, url, response);
          }
          if (before !== undefined && response.statusCode >= 400) {
            expect(await fingerprint(...tables), `${label}: a refused write wrote nothing`).toBe(before);
          }
        }),
        { seed: options.seed + index + Number(process.env.FUZZ_SEED ?? 0), numRuns, endOnFailure: true },
      );
      // The input must reach past validation now and then, not only bounce off it.
      const passed = [...statuses].filter(([status]) => status < 400).reduce((n, [, count]) => n + count, 0);
      expect(passed, `${id}: answers ${JSON.stringify([...statuses])}`).toBeGreaterThan(0);
    },
  );
}
