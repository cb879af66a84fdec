import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The published v5 definition of the business number register (reference-data/nzbn/v5-operations.md),
 * parsed: its operations table and its schemas, and a check of an answer against a published schema.
 * The definition is facts of the public gateway's OpenAPI export; where our API differs from it, it
 * wins, so the tests hold our document and our answers to what is parsed here.
 */
export const DEFINITION = path.resolve(
  import.meta.dirname,
  '../../../../reference-data/nzbn/v5-operations.md',
);

export type TypeRef =
  | { kind: 'string' | 'integer' | 'number' | 'boolean' | 'object' }
  | { kind: 'array'; items: TypeRef }
  | { kind: 'enum'; values: string[] }
  | { kind: 'ref'; name: string };

export type SchemaDefinition =
  | { kind: 'fields'; fields: Map<string, TypeRef>; required: string[] }
  | { kind: 'array'; items: TypeRef }
  | { kind: 'enum'; values: string[] };

export interface PublishedParameter {
  name: string;
  required: boolean;
  type: string;
}

export interface PublishedOperation {
  code: string;
  method: string;
  path: string;
  operationId: string;
  query: PublishedParameter[];
  headers: string[];
  body: string;
  responses: { status: number; schema?: string }[];
}

export interface Definition {
  operations: PublishedOperation[];
  schemas: Map<string, SchemaDefinition>;
}

const cells = (row: string) =>
  row
    .replace(/^\|/, '')
    .replace(/\|\s*$/, '')
    .split('|')
    .map((cell) => cell.trim());

const list = (text: string, separator: string) =>
  text === '' ? [] : text.split(separator).map((part) => part.trim());

/** `string`, `integer (int32)`, `array of Address`, `string enum: A/B`, `Address`. */
export function parseType(text: string): TypeRef {
  const type = text.trim();
  if (type.startsWith('array of '))
    return { kind: 'array', items: parseType(type.slice('array of '.length)) };
  const inline = /^string enum: (.*)$/.exec(type);
  if (inline) return { kind: 'enum', values: inline[1]!.split('/').map((value) => value.trim()) };
  // A query parameter's enumeration whose values the table does not give: a string.
  if (type === 'string enum') return { kind: 'string' };
  const primitive = /^(string|integer|number|boolean|object)( \(.*\))?$/.exec(type);
  if (primitive) return { kind: primitive[1] as 'string' };
  return { kind: 'ref', name: type };
}

function parseSchema(text: string): SchemaDefinition {
  if (text.startsWith('array of '))
    return { kind: 'array', items: parseType(text.slice('array of '.length)) };
  if (text.startsWith('string enum: ')) {
    return { kind: 'enum', values: [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!) };
  }
  const fields = new Map<string, TypeRef>();
  let required: string[] = [];
  for (const part of list(text, '; ')) {
    if (part.startsWith('required: ')) {
      required = list(part.slice('required: '.length), ', ');
      continue;
    }
    const field = /^`([^`]+)` (.+)$/.exec(part);
    if (!field) throw new Error(`cannot read the field "${part}"`);
    fields.set(field[1]!, parseType(field[2]!));
  }
  return { kind: 'fields', fields, required };
}

/** The definition, read from `file`. */
export function loadDefinition(file = DEFINITION): Definition {
  const text = readFileSync(file, 'utf8');
  const operations: PublishedOperation[] = [];
  const schemas = new Map<string, SchemaDefinition>();
  let section = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('## ')) section = line.slice(3).trim();
    const schema = section === 'Schemas' ? /^- \*\*(.+?)\*\*: (.*)$/.exec(line) : null;
    if (schema) {
      schemas.set(schema[1]!, parseSchema(schema[2]!));
      continue;
    }
    if (!/^\| (NZBN_|OP)\w+ \|/.test(line)) continue;
    const [code, method, pathCell, operationId, query, headers, body, responses] = cells(line);
    operations.push({
      code: code!,
      method: method!,
      path: pathCell!.replaceAll('`', ''),
      operationId: operationId!,
      query: list(query!, ', ').map((parameter) => {
        const [name, type] = parameter.split(':') as [string, string];
        return { name: name.replace(/\*$/, ''), required: name.endsWith('*'), type };
      }),
      headers: list(headers!, ', '),
      body: body!,
      responses: list(responses!, '; ').map((response) => {
        const [status, ...schema] = response.split(' ');
        return { status: Number(status), ...(schema.length ? { schema: schema.join(' ') } : {}) };
      }),
    });
  }
  return { operations, schemas };
}

/**
 * What is checked of an answer beyond the definition: `additions` are fields of ours the published
 * schema does not name (kept for the clients that read them: `Schema.field`), `deviations` fields whose
 * published type or values we do not answer yet (`Schema.field`, each with why). Both are explicit.
 */
export interface CheckOptions {
  additions?: ReadonlySet<string>;
  deviations?: ReadonlyMap<string, string>;
}

/**
 * The problems of `value` against the published type: a published field missing (every key is always
 * present; the service answers `null` for an absent value, so null passes, except where the schema
 * requires the field), a value of another type or outside an enumeration, a field the schema does not
 * name.
 */
export function publishedProblems(
  definition: Definition,
  type: TypeRef,
  value: unknown,
  at = '',
  options: CheckOptions = {},
): string[] {
  if (value === null) return [];
  const where = at || '(answer)';
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? [] : [`${where}: not a string`];
    case 'integer':
      return Number.isInteger(value) ? [] : [`${where}: not an integer`];
    case 'number':
      return typeof value === 'number' ? [] : [`${where}: not a number`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${where}: not a boolean`];
    case 'object':
      return typeof value === 'object' && !Array.isArray(value) ? [] : [`${where}: not an object`];
    case 'enum':
      return type.values.includes(value as string)
        ? []
        : [`${where}: ${JSON.stringify(value)} not one of ${type.values}`];
    case 'array':
      if (!Array.isArray(value)) return [`${where}: not an array`];
      return value.flatMap((item, i) =>
        publishedProblems(definition, type.items, item, `${at}[${i}]`, options),
      );
    case 'ref': {
      const schema = definition.schemas.get(type.name);
      if (!schema) return [`${where}: the definition has no schema ${type.name}`];
      if (schema.kind === 'enum') return publishedProblems(definition, schema, value, at, options);
      if (schema.kind === 'array') return publishedProblems(definition, schema, value, at, options);
      if (typeof value !== 'object' || Array.isArray(value)) return [`${where}: not a ${type.name}`];
      const record = value as Record<string, unknown>;
      const problems: string[] = [];
      for (const [name, field] of schema.fields) {
        const key = `${type.name}.${name}`;
        if (options.deviations?.has(key)) continue;
        if (!(name in record)) problems.push(`${at}.${name}: missing (${key})`);
        else if (record[name] === null && schema.required.includes(name)) {
          problems.push(`${at}.${name}: required (${key})`);
        } else problems.push(...publishedProblems(definition, field, record[name], `${at}.${name}`, options));
      }
      for (const name of Object.keys(record)) {
        if (!schema.fields.has(name) && !options.additions?.has(`${type.name}.${name}`)) {
          problems.push(`${at}.${name}: not a field of ${type.name}`);
        }
      }
      return problems;
    }
  }
}
