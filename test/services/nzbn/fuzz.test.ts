/**
 * "No 500s": every operation of the served OpenAPI document (GET, POST, PUT, DELETE) is called with
 * random path parameters, query parameters, precondition headers and JSON bodies, built from the
 * operation's own schemas: plausible values (enums, patterns, the values a description lists, the
 * fixture numbers, dates) mixed with hostile ones (empty and very long strings, unicode, NUL, lone
 * surrogates, numbers as strings, huge and negative numbers, arrays for objects, nulls, deep nesting,
 * impossible dates, %-encoded junk). The owner's three-legged token holds authority over the fixtures
 * written to, so writes get past authorisation and reach validation. Every answer must be below 500; a
 * 4xx must have the register's error shape, and a refused write must have written nothing.
 *
 * Deterministic: one fixed seed per operation and a fixed number of runs (about 1,450 requests).
 */

import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateProduct } from '../../../src/gateway/products.ts';
import { nzbnService } from '../../../src/services/nzbn/index.ts';
import { dialectCodes, expectCatalogued } from '../../support/error-codes.ts';
import { BASE, FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { OpenApi } from './support/openapi.ts';

const NZBN_CODES = dialectCodes(nzbnService);

const SEED = 20_250_701;
const RUNS_PER_OPERATION = 25;

type Schema = {
  type?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  description?: string;
};
type Parameter = { in: string; name: string; required?: boolean; schema: Schema; description?: string };
type Operation = { method: string; path: string; parameters: Parameter[]; body?: Schema };
type Request = {
  path: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body?: string;
};

let t: NzbnTest;
let api: OpenApi;
let operations: Operation[];
/** Values that exist: organisation parts of owned entities, a watchlist. */
const known = { opns: [] as string[], watchlists: [] as string[] };

beforeAll(async () => {
  t = await nzbnTest();
  // ~1,500 calls in well under a minute: above the sandbox product's 300 a minute.
  await updateProduct(t.gateway.runtime.gateway.pool, 'sandbox-nzbn', { rateLimitPerMinute: 1_000_000 });
  api = await OpenApi.load(t);
  await t.grant(t.owner.userId, FIXTURE.company);
  await t.grant(t.owner.userId, FIXTURE.soleTrader);
  const document = (await t.call('GET', `${BASE}/openapi.json`, { key: null })).json() as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ['get', 'post', 'put', 'delete'].includes(method))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        parameters: (operation.parameters ?? []) as Parameter[],
        body: (operation.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)
          ?.content?.['application/json']?.schema,
      })),
  );
  // Deletions last (the deepest first), so they do not take away what the other operations use.
  operations.sort(
    (a, b) =>
      Number(a.method === 'DELETE') - Number(b.method === 'DELETE') ||
      (a.method === 'DELETE' ? b.path.length - a.path.length : 0),
  );
  for (const nzbn of [FIXTURE.authority, FIXTURE.orgParts]) {
    const parts = await t.call('GET', `/entities/${nzbn}/organisation-parts`, { token: t.owner.token });
    const listed = parts.json() as { organisationParts?: { opn: string }[] } | { opn: string }[];
    const items = Array.isArray(listed) ? listed : (listed.organisationParts ?? []);
    known.opns.push(...items.map((p) => p.opn));
  }
  const made = await t.call('POST', `/entities/${FIXTURE.authority}/organisation-parts`, {
    token: t.owner.token,
    payload: { name: 'Fuzz Depot', function: 'Warehouse' },
  });
  expect(made.statusCode, made.body).toBe(201);
  known.opns.unshift(made.json().opn);
  for (const name of ['Fuzz one', 'Fuzz two']) {
    const watchlist = await t.call('POST', '/watchlists', {
      payload: {
        name,
        channel: 'EMAIL',
        watchlistEmailAddresses: ['fuzz@example.test'],
        changeEventTypes: ['ALL'],
        nzbns: [FIXTURE.authority],
      },
    });
    expect(watchlist.statusCode, watchlist.body).toBe(201);
    known.watchlists.push(watchlist.json().watchlistId);
  }
});
afterAll(() => t?.close());

// ---------------------------------------------------------------------------------------------------
// Values

const LONG = [256, 5_000, 100_000];
const nest = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? { a: value } : [value];
  return value;
};

/** JSON nested deeper than a recursive walk of it can go (as text: JSON.stringify would recurse too). */
class Deep {
  constructor(readonly text: string) {}
}
const deepJson = fc
  .tuple(fc.constantFrom(20_000, 100_000), fc.boolean())
  .map(([depth, arrays]) =>
    arrays
      ? new Deep(`{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`)
      : new Deep(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  );

/** Impossible, out-of-range and odd dates, and dates built from random (often impossible) parts. */
const dateText = fc.oneof(
  fc.constantFrom(
    '2024-02-01',
    '2024-02-29',
    '2023-02-29',
    '2031-02-30',
    '2024-04-31',
    '2024-13-01',
    '2024-00-10',
    '2024-01-00',
    '0000-01-01',
    '0001-01-01',
    '0099-12-31',
    '1899-12-31',
    '9999-12-31',
    '+275760-09-13',
    '-000001-01-01',
    '2024-1-1',
    '20240101',
    '2024-06-01T10:00:00',
    '2024-06-01T10:00:00.000+1200',
    '2024-06-01T10:00:00Z',
    '2024-06-01T24:00:00',
    '2024-06-01T23:59:60Z',
    '2024-06-01T10:00:00+25:00',
    '2024-06-01T10:00:00.000+9999',
    '2024-06-01T10:00:00.000+1200junk',
    '0000-01-01T00:00:00.000+1400',
    '9999-12-31T23:59:59.999-1400',
    '2024-06-01 10:00',
    'yesterday',
    '1e3',
  ),
  fc
    .record({
      year: fc.integer({ min: 0, max: 99_999 }),
      month: fc.integer({ min: 0, max: 13 }),
      day: fc.integer({ min: 0, max: 32 }),
      time: fc.option(
        fc.record({
          hour: fc.integer({ min: 0, max: 25 }),
          minute: fc.integer({ min: 0, max: 61 }),
          offset: fc.constantFrom('', 'Z', '+1200', '+13:00', '-1400', '+2500'),
        }),
      ),
    })
    .map(({ year, month, day, time }) => {
      const pad = (n: number, width = 2) => String(n).padStart(width, '0');
      const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
      return time ? `${date}T${pad(time.hour)}:${pad(time.minute)}:00.000${time.offset}` : date;
    }),
);

const httpDate = fc.constantFrom(
  'Wed, 21 Oct 2015 07:28:00 GMT',
  'Thu, 31 Feb 2031 00:00:00 GMT',
  'Mon, 01 Jan 0000 00:00:00 GMT',
  'Fri, 31 Dec 275760 23:59:59 GMT',
  'not a date',
  '0',
  '-1',
  '',
);

const hostileString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\t\n',
    'null',
    'undefined',
    'true',
    '0',
    '-1',
    '1.5',
    '1e309',
    'NaN',
    'Infinity',
    '99999999999999999999999',
    '-0',
    '0x1F',
    '١٢٣٤٥٦٧٨٩٠١٢٣',
    ` ${FIXTURE.authority}`,
    `${FIXTURE.authority}\u0000`,
    "'; DROP TABLE nzbn_entities; --",
    '%',
    '%zz',
    '%00',
    '%C0%AF',
    '%E0%A4%A',
    '%25',
    '%2e%2e%2f',
    '../../etc/passwd',
    '\u0000',
    'a\u0000b',
    '\uD800',
    '\uFFFF',
    '\u202Eevil',
    'Ōtāhuhu Māori Ltd',
    '😀🔥',
    '𝕏𝕐',
    '<script>alert(1)</script>',
    '{"a":1}',
    '[]',
    '__proto__',
    'constructor',
    'hasOwnProperty',
  ),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(...LONG).map((n) => 'x'.repeat(n)),
  fc.constantFrom(...LONG).map((n) => 'ā'.repeat(n)),
  dateText,
);

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e308, -1e308),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom([], [null], [''], {}, { a: null }, JSON.parse('{"__proto__":{"x":1}}'), {
    constructor: { prototype: 1 },
  }),
  fc.constantFrom(5, 50, 2_000).map((depth) => nest(depth)),
  fc.array(hostileString, { maxLength: 4 }),
);

/** A business number: mostly ones the owner acts for, some the register holds or not, some broken. */
const nzbnText = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string>(FIXTURE.authority) },
  fc.constantFrom<string>(...Object.values(FIXTURE), '9429876543210', '9429000000000'),
  fc.stringMatching(/^[0-9]{13}$/),
);

/** The values a description lists ("EMAIL or PUSH", "changeDate (default), entityName or nzbn"). */
const listed = (description = ''): string[] =>
  [...new Set(description.match(/\b[A-Za-z][A-Za-z0-9_]+\b/g) ?? [])].filter(
    (word) => !/^(or|and|the|default|same|as|of|not|no|every|but|e|g|they|have|source|register)$/.test(word),
  );

/** Values of fields whose schema is a bare string, by name: ones the register accepts, then odd ones. */
const HINTS: Record<string, [valid: string[], odd: string[]]> = {
  classificationCode: [
    ['C121220', 'I490008', 'c121220'],
    ['Z999999', 'C12122'],
  ],
  'industry-code': [
    ['C121220', 'I490008', 'A041410'],
    ['Z999999', 'I'],
  ],
  gstNumber: [
    ['49-091-850', '49091850', '049091850'],
    ['123456789', '49-091-851', '0'],
  ],
  bankAccountNumber: [
    ['01-0902-0068389-00', '01-0902-0068389-000'],
    ['99-9999-9999999-99', '0109020068389'],
  ],
  paymentBankAccountNumber: [['01-0902-0068389-00'], ['12-3456-7890123-00']],
  tradingArea: [
    ['waikato', 'Auckland', "hawke's bay", 'Chatham Islands'],
    ['Mars', 'WAIKATO '],
  ],
  australianBusinessNumber: [
    ['51 824 753 556', '51824753556'],
    ['12 345 678 901', '00000000000'],
  ],
  entityStatusCode: [
    ['50', '62', '70', '80', '90', '91'],
    ['Registered', '0', '-1', '999'],
  ],
  entityTypeCode: [
    ['Sole_Trader', 'Partnership', 'Trading_Trust', 'SoleTrader', 'Trust'],
    ['LTD', 'GovtCentral'],
  ],
  changeEventTypes: [
    ['ALL', 'NEW', 'ENTITY_NAME', 'ROLES_DIRECTOR', 'ADDRESS'],
    ['NOT_A_TYPE', 'entity'],
  ],
  'change-event-type': [
    ['ALL', 'NEW', 'ENTITY', 'ENTITY_NAME', 'ROLES_DIRECTOR', 'ADDRESS'],
    ['NOPE', 'all,new'],
  ],
  'change-event-types': [['ALL', 'NEW', 'ENTITY_NAME'], ['NOPE']],
  'entity-status': [
    ['Registered', '50', '70', 'InLiquidation'],
    ['removed/closed', 'Nope'],
  ],
  'entity-type': [
    ['NZCompany', 'SoleTrader', 'LTD', 'ltd'],
    ['g', 'GovtCentral', 'Nope'],
  ],
  'search-term': [
    ['kowhai', 'Ōtāhuhu', "o'brien", '9429000001007', 'ltd'],
    ['&&', 'ltd*', 'a:b | c', "'"],
  ],
  'sort-by': [
    ['changeDate', 'entityName', 'nzbn', 'name', 'fromDate', 'watchlistId'],
    ['id; DROP', 'NZBN'],
  ],
  'sort-order': [['ASC', 'DESC', 'asc'], ['UP']],
  sortorder: [['ASC', 'DESC', 'desc'], ['UP']],
  'organisation-id': [['org-1'], ['12345', '']],
  organisationId: [['org-1'], ['12345']],
  privacy: [
    ['public', 'private'],
    ['PRIVATE', 'secret'],
  ],
  organisationPartStatus: [['Active', 'Inactive'], ['Sleeping']],
  status: [['Active', 'Inactive'], ['Sleeping']],
  phonePurpose: [['Primary', 'Mobile', 'Fax', 'Invoice'], ['Pager']],
  emailPurpose: [['Primary', 'Invoice', 'Enquiries', 'Orders'], ['Spam']],
  websitePurpose: [['Primary', 'Online store', 'Social media'], ['Blog']],
  channel: [
    ['EMAIL', 'PUSH'],
    ['SMS', 'email'],
  ],
  frequency: [['IMMEDIATE', 'DAILY', 'WEEKLY'], ['HOURLY']],
  wildcard: [['ALL', 'NEW'], ['SOME']],
  'address-type': [['REGISTERED', 'POSTAL', 'OFFICE'], ['HOME']],
  identifyingFactorOtherDescription: [['Whakapapa'], ['']],
};

/** Fields a valid body leaves out: they must name something that exists, or be allocated first. */
const LEFT_OUT_WHEN_VALID = new Set(['uniqueIdentifier', 'opn', 'parentGln']);

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

/**
 * How far a value strays: `valid` keeps to what the register accepts (so a request reaches its domain
 * rules and the database), `awkward` adds what the schema allows but is odd (unicode, the edges of a
 * length, impossible dates), `hostile` adds anything at any depth.
 */
type Level = 'valid' | 'awkward' | 'hostile';
const LEVELS: Level[] = ['valid', 'awkward', 'hostile'];

/** Dates the register reads: ordinary ones, the years 0000–0099, leap days, offsets and Z. */
const validDate = fc.constantFrom(
  '2024-02-01',
  '2024-02-29',
  '2000-02-29',
  '0000-01-01',
  '0000-02-29',
  '0050-06-01',
  '1850-06-01',
  '1900-01-01',
  '9999-12-31',
  '2009-03-24T00:00:00.000+1300',
  '2024-06-01T10:00:00Z',
  '2024-06-01T10:00:00.000-14:00',
  '9999-12-31T23:59:59.999+1400',
  '0000-01-01T11:39:00.000+1400',
);

function stringFor(schema: Schema, name: string, level: Level, description?: string): fc.Arbitrary<unknown> {
  const limit = (text: string) => (schema.maxLength ? text.slice(0, schema.maxLength) : text);
  const odd = level !== 'valid';
  if (name === 'opn') return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known.opns) }, nzbnText);
  if (/nzbn|gln/i.test(name)) return nzbnText;
  if (name === 'watchlistId') {
    return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known.watchlists) }, fc.uuid());
  }
  if (name === 'authorityId') return fc.uuid();
  if (/date/i.test(name)) return odd ? fc.oneof(validDate, dateText) : validDate;
  if (/email/i.test(name)) {
    const valid = ['owner@example.test', 'fuzz@example.test', 'a@b.c'];
    return fc.constantFrom(...valid, ...(odd ? ['Ā@b.nz', 'no-at-sign', 'a@b.c'.padStart(254, 'x')] : []));
  }
  if (/endpoint|url/i.test(name)) {
    const valid = ['https://kowhai.example', 'http://localhost:9/hook', 'https://x.example/a?b=c#d'];
    const strange = ['https://x.example/%zz', 'https://user:pw@x.example', 'ftp://x.example', 'https://[::1'];
    return fc.constantFrom(...valid, ...(odd ? strange : []));
  }
  const plausible: fc.WeightedArbitrary<string>[] = [];
  const [valid, strange] = HINTS[name] ?? [listed(schema.description ?? description), []];
  const hints = odd ? [...valid, ...strange] : valid;
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
function valueFor(schema: Schema, name: string, level: Level, description?: string): fc.Arbitrary<unknown> {
  const plausible = plausibleFor(schema, name, level, description);
  return level === 'hostile' ? fc.oneof({ weight: 6, arbitrary: plausible }, hostile) : plausible;
}

function plausibleFor(
  schema: Schema,
  name: string,
  level: Level,
  description?: string,
): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) {
    return fc.oneof(...schema.anyOf.map((branch) => plausibleFor(branch, name, level, description)));
  }
  switch (schema.type) {
    case 'object': {
      const required = schema.required ?? [];
      const properties = Object.entries(schema.properties ?? {}).filter(
        ([key]) => level !== 'valid' || required.includes(key) || !LEFT_OUT_WHEN_VALID.has(key),
      );
      const model = Object.fromEntries(
        properties.map(([key, property]) => [key, valueFor(property, key, level)]),
      );
      const extra =
        typeof schema.additionalProperties === 'object'
          ? fc.dictionary(fc.string({ maxLength: 10 }), valueFor(schema.additionalProperties, name, level), {
              maxKeys: 3,
            })
          : fc.constant({});
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
      return fc.array(valueFor(schema.items ?? {}, name, level), {
        minLength: level === 'hostile' ? 0 : Math.min(1, schema.maxItems ?? 1),
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'string':
      return stringFor(schema, name, level, description);
    case 'integer': {
      const min = schema.minimum ?? -1_000_000;
      const max = schema.maximum ?? 1_000_000;
      return level === 'valid' ? fc.integer({ min, max: Math.min(max, min + 5) }) : fc.integer({ min, max });
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return hostile;
  }
}

/** Text for a URL: encoded, or raw when it already looks %-encoded (junk included). */
function urlText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
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

function requestFor(operation: Operation): fc.Arbitrary<Request> {
  const inPath = operation.parameters.filter((p) => p.in === 'path');
  const inQuery = operation.parameters.filter((p) => p.in === 'query');
  const inHeaders = operation.parameters.filter((p) => p.in === 'header');
  const path = fc.record(
    Object.fromEntries(
      inPath.map((p) => [
        p.name,
        fc.oneof({ weight: 9, arbitrary: stringFor(p.schema, p.name, 'valid') }, hostile).map(urlText),
      ]),
    ),
  );
  const queryValues = (level: Level) =>
    fc.record(
      Object.fromEntries(inQuery.map((p) => [p.name, valueFor(p.schema, p.name, level, p.description)])),
      { requiredKeys: level === 'hostile' ? [] : inQuery.filter((p) => p.required).map((p) => p.name) },
    );
  const query = fc
    .oneof(...LEVELS.map(queryValues))
    .map((values) =>
      Object.entries(values).flatMap(([name, value]) =>
        (Array.isArray(value) && value.length ? value : [value]).map((one): [string, string] => [
          name,
          urlText(typeof one === 'string' ? one : String(one)),
        ]),
      ),
    );
  // Preconditions now and then: most of them fail (412), which would hide the rest of the request.
  const headers = fc
    .oneof(
      { weight: 4, arbitrary: fc.constant({}) },
      fc.record(Object.fromEntries(inHeaders.map((p) => [p.name, HEADER_VALUES[p.name] ?? hostileString])), {
        requiredKeys: [],
      }),
    )
    .map((values) =>
      Object.fromEntries(
        Object.entries(values).flatMap(([name, value]) => {
          const text = headerText(value);
          return text === undefined ? [] : [[name, text]];
        }),
      ),
    );
  const body = operation.body
    ? fc.oneof(
        {
          weight: 15,
          arbitrary: fc.oneof(...LEVELS.map((level) => valueFor(operation.body!, 'body', level))),
        },
        { weight: 1, arbitrary: deepJson },
      )
    : fc.constant(undefined);
  return fc
    .record({ path, query, headers, body }, { requiredKeys: ['path', 'query', 'headers'] })
    .map(({ body: value, ...rest }) => ({
      ...rest,
      ...(value === undefined
        ? {}
        : { body: value instanceof Deep ? value.text : (JSON.stringify(value) ?? 'null') }),
    }));
}

function urlOf(operation: Operation, request: Request): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => request.path[name] ?? '');
  const query = request.query.map(([name, value]) => `${encodeURIComponent(name)}=${value}`).join('&');
  return `${BASE}${path}${query ? `?${query}` : ''}`;
}

// ---------------------------------------------------------------------------------------------------
// Checks

const sandboxRows = (text: string) =>
  t.gateway.runtime.environments.sandbox.pool.query(text).then((r) => JSON.stringify(r.rows));

/** What a refused write must leave as it was: every table the service writes (counts or contents). */
async function fingerprint(): Promise<string> {
  const sandbox = await sandboxRows(
    `SELECT (SELECT count(*) FROM nzbn_entities) AS entities,
            (SELECT sum(version) FROM nzbn_entities) AS versions,
            (SELECT md5(string_agg(nzbn || coalesce(etag, ''), ',' ORDER BY nzbn)) FROM nzbn_entities
              WHERE origin <> 'generated' OR document IS NOT NULL) AS etags,
            (SELECT count(*) FROM nzbn_entity_versions) AS replaced,
            (SELECT count(*) FROM nzbn_entity_history) AS history,
            (SELECT count(*) FROM nzbn_change_events) AS events,
            (SELECT md5(string_agg(p::text, ',' ORDER BY opn)) FROM nzbn_organisation_parts p) AS parts,
            (SELECT count(*) FROM fee_records) AS fees,
            (SELECT md5(string_agg(w::text, ',' ORDER BY id)) FROM nzbn_watchlists w) AS watchlists,
            (SELECT count(*) FROM nzbn_watchlist_nzbns) AS watched`,
  );
  const gateway = await t.gateway.runtime.gateway.pool.query(
    'SELECT count(*) AS held FROM authorities WHERE revoked_at IS NULL',
  );
  return sandbox + JSON.stringify(gateway.rows);
}

function checkAnswer(label: string, response: LightMyRequestResponse): void {
  expect(
    response.statusCode,
    `${label} → ${response.statusCode} ${response.body.slice(0, 300)}`,
  ).toBeLessThan(500);
  if (response.statusCode < 400) return;
  // An empty path parameter can make a path no operation has: API Management's own 404 (mount.ts).
  if (response.body === '{"statusCode":404,"message":"Resource not found"}') return;
  let body: unknown;
  try {
    body = response.json();
  } catch {
    body = response.body;
  }
  expect(body, `${label}: error shape`).toEqual({
    status: String(response.statusCode),
    errorCode: expect.any(String),
    errorDescription: expect.any(String),
    list: expect.any(Array),
  });
  // The exact code: one of this API's catalogue, with the catalogue's status.
  expectCatalogued((body as { errorCode: string }).errorCode, response.statusCode, NZBN_CODES, label);
  for (const item of (body as { list: unknown[] }).list) {
    expect(item, `${label}: error list item`).toEqual({
      field: expect.any(String),
      message: expect.any(String),
    });
  }
}

async function send(operation: Operation, request: Request): Promise<LightMyRequestResponse> {
  const url = urlOf(operation, request);
  const label = `${operation.method} ${url.slice(0, 200)} ${request.body?.slice(0, 200) ?? ''}`;
  const before = operation.method === 'GET' ? undefined : await fingerprint();
  // Straight to the app rather than t.call: its OpenAPI check fails answers the document does not
  // list (a 414 for an over-long path parameter), which are not faults here. It runs below, strictly
  // for successful answers only.
  const response = await t.gateway.app.inject({
    method: operation.method as 'GET',
    url,
    headers: {
      'Ocp-Apim-Subscription-Key': t.key,
      authorization: `Bearer ${t.owner.token}`,
      ...request.headers,
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(request.body === undefined ? {} : { payload: request.body }),
  });
  checkAnswer(label, response);
  // An empty path parameter makes another path (`/watchlists/` is the listing): nothing to conform to.
  if (Object.values(request.path).includes('')) return response;
  try {
    api.conformsUrl(operation.method, url, response);
  } catch (error) {
    // A refusal the document does not list for the operation (a 414 for an over-long path parameter)
    // is a gap in the document, not a fault in the answer: only successful answers must conform.
    if (response.statusCode < 400) throw error;
  }
  if (before !== undefined && response.statusCode >= 400) {
    expect(await fingerprint(), `${label}: a refused write wrote nothing`).toBe(before);
  }
  return response;
}

// ---------------------------------------------------------------------------------------------------

describe('every operation, random and hostile input', () => {
  it('answers below 500; a 4xx has the error shape and writes nothing', async () => {
    expect(operations.length).toBeGreaterThan(50);
    const failures: string[] = [];
    for (const [index, operation] of operations.entries()) {
      try {
        await fc.assert(
          fc.asyncProperty(requestFor(operation), async (request) => {
            await send(operation, request);
          }),
          { seed: SEED + index, numRuns: RUNS_PER_OPERATION },
        );
      } catch (error) {
        const { message, cause } = error as Error & { cause?: Error };
        const example = /Counterexample: (.*)/.exec(message)?.[1]?.slice(0, 600) ?? '';
        const why = (cause?.message ?? message).slice(0, 1000);
        failures.push(`${operation.method} ${operation.path}: ${why}\n  counterexample: ${example}`);
      }
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  });
});

describe('regressions found by this fuzzing', () => {
  const E = FIXTURE.authority;
  const post = (path: string, payload: string) =>
    t.call('POST', `/entities/${E}/${path}`, {
      token: t.owner.token,
      headers: { 'content-type': 'application/json' },
      payload,
    });

  it('an address dated in the year 0000 goes to the history when replaced (was a 500)', async () => {
    // The history row's dates were sent to PostgreSQL as text, which refuses the year 0000.
    const body = (address1: string) =>
      JSON.stringify({ addressType: 'SERVICE', address1, startDate: '0000-01-01' });
    const first = await post('addresses', body('1 Year Zero Road'));
    expect(first.statusCode, first.body).toBe(201);
    const second = await post('addresses', body('2 Year Zero Road'));
    expect(second.statusCode, second.body).toBe(201);
    const history = (
      await t.call('GET', `/entities/${E}/history/addresses`, { token: t.owner.token })
    ).json();
    expect(history).toContainEqual({ ...first.json(), endDate: second.json().startDate });
  });

  it('a date an offset moves out of the years 0000–9999 of New Zealand time is a 400 naming it', async () => {
    // It was accepted and answered with a date the published schema refuses (a year before 0000).
    const before = await fingerprint();
    for (const startDate of ['0000-01-01T00:00:00.000+1400', '9999-12-31T23:59:59.999-1400']) {
      const response = await post('trading-names', JSON.stringify({ name: 'Edge of Time', startDate }));
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().list).toEqual([{ field: 'startDate', message: expect.any(String) }]);
    }
    expect(await fingerprint()).toBe(before);
  });

  it('a body nested 100,000 levels deep is a 400, not a stack overflow (was a 500)', async () => {
    const depth = 100_000;
    for (const payload of [
      `{"url":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
    ]) {
      const response = await post('websites', payload);
      expect(response.statusCode, response.body.slice(0, 300)).toBe(400);
      checkAnswer('deep body', response);
    }
  });
});
