/**
 * The client's types of the IP office's SOAP operations, generated from the register's WSDLs and XSDs
 * (src/services/iponz/wsdl/): one TypeScript type per element and named type of each XSD (an interface
 * per complex type, a union of its values per enumeration), each operation's request and answer, and
 * the schema's shape at run time (each element's children in sequence order, which repeat, which are
 * numbers or booleans), from which the client builds requests in the order the XSD requires and reads
 * answers with the right types. The XSDs use sequences, named and inline types and one element
 * reference; anything else in them stops the generator rather than being skipped.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';

const WSDL = path.join(import.meta.dirname, '..', 'src', 'services', 'iponz', 'wsdl');
const ARRAYS = new Set(['xs:element', 'xs:complexType', 'xs:simpleType', 'xs:enumeration', 'xs:import']);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  isArray: (name) => ARRAYS.has(name) || name.startsWith('wsdl:'),
});

type Node = Record<string, unknown>;
/** A child of a sequence at run time: its name, its type's key (complex) or leaf kind, whether it repeats. */
type Child = [name: string, type: string, many: boolean];

interface Schema {
  file: string;
  namespace: string;
  /** `prefix:` → namespace, from the schema element's attributes. */
  prefixes: Record<string, string>;
  root: Node;
}

const pascal = (file: string) =>
  file
    .replace(/\.xsd$/, '')
    .split(/[^A-Za-z0-9]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

function readSchema(file: string): Schema {
  const root = parser.parse(readFileSync(path.join(WSDL, file), 'utf8'))['xs:schema'] as Node;
  const prefixes: Record<string, string> = {};
  for (const [key, value] of Object.entries(root)) {
    if (key.startsWith('@xmlns:')) prefixes[key.slice(7)] = String(value);
  }
  return { file, namespace: String(root['@targetNamespace']), prefixes, root };
}

const LEAVES: Record<string, string> = {
  'xs:string': 'string',
  'xs:date': 'string',
  'xs:dateTime': 'string',
  'xs:base64Binary': 'string',
  'xs:token': 'string',
  'xs:normalizedString': 'string',
  'xs:boolean': 'boolean',
  'xs:int': 'number',
  'xs:integer': 'number',
  'xs:decimal': 'number',
  'xs:long': 'number',
  'xs:positiveInteger': 'number',
  'xs:nonNegativeInteger': 'number',
};

export interface SoapTypes {
  text: string;
}

/** The generated module's text. */
export function soapTypesText(): string {
  const schemas = readdirSync(WSDL)
    .filter((f) => f.endsWith('.xsd'))
    .sort()
    .map(readSchema);
  const byNamespace = new Map<string, Schema[]>();
  for (const schema of schemas)
    byNamespace.set(schema.namespace, [...(byNamespace.get(schema.namespace) ?? []), schema]);
  const shapes: Record<string, Child[]> = {};
  const lines: string[] = [];

  /** The schema (of those with the namespace) that defines `kind` `name`. */
  function definer(from: Schema, qualified: string, kind: string): Schema {
    const [prefix, name] = qualified.includes(':') ? qualified.split(':') : ['', qualified];
    const namespace = prefix ? from.prefixes[prefix!] : from.namespace;
    const candidates = [from, ...(byNamespace.get(namespace ?? '') ?? [])].filter(
      (s) => s.namespace === namespace,
    );
    const found = candidates.find((s) =>
      ((s.root[kind] as Node[] | undefined) ?? []).some((n) => n['@name'] === name),
    );
    if (!found) throw new Error(`${from.file}: ${kind} ${qualified} not found`);
    return found;
  }

  function typeRef(from: Schema, type: string): { ts: string; key: string } {
    if (LEAVES[type]) return { ts: LEAVES[type], key: LEAVES[type] };
    const [, name] = type.includes(':') ? type.split(':') : ['', type];
    const isSimple = (() => {
      try {
        definer(from, type, 'xs:simpleType');
        return true;
      } catch {
        return false;
      }
    })();
    const schema = definer(from, type, isSimple ? 'xs:simpleType' : 'xs:complexType');
    if (isSimple) {
      const simple = (schema.root['xs:simpleType'] as Node[]).find((n) => n['@name'] === name)!;
      const base = String((simple['xs:restriction'] as Node)['@base']);
      const leaf = LEAVES[base] ?? 'string';
      return { ts: `${pascal(schema.file)}.${name}`, key: leaf };
    }
    return { ts: `${pascal(schema.file)}.${name}`, key: `${schema.file}#${name}` };
  }

  /** The TypeScript object type of a complex type's sequence; records its run-time shape under `key`. */
  function complex(from: Schema, node: Node, key: string, indent: string): string {
    const unknown = Object.keys(node).filter((k) => !k.startsWith('@') && k !== 'xs:sequence');
    if (unknown.length) throw new Error(`${from.file}: ${key}: ${unknown.join(', ')} is not supported`);
    const sequence = (node['xs:sequence'] ?? {}) as Node;
    const children: Child[] = [];
    const members: string[] = [];
    for (const element of (sequence['xs:element'] as Node[] | undefined) ?? []) {
      const many = element['@maxOccurs'] !== undefined && element['@maxOccurs'] !== '1';
      const optional = element['@minOccurs'] === '0';
      let name: string;
      let ts: string;
      let childKey: string;
      if (element['@ref']) {
        const ref = String(element['@ref']);
        name = ref.split(':').pop()!;
        const schema = definer(from, ref, 'xs:element');
        ts = `${pascal(schema.file)}.${name}`;
        childKey = `${schema.file}#element:${name}`;
      } else if (element['@type']) {
        name = String(element['@name']);
        ({ ts, key: childKey } = typeRef(from, String(element['@type'])));
      } else {
        name = String(element['@name']);
        childKey = `${key}/${name}`;
        const inline = (element['xs:complexType'] as Node[] | undefined)?.[0];
        if (!inline) throw new Error(`${from.file}: ${childKey} has no type`);
        ts = complex(from, inline, childKey, `${indent}  `);
      }
      children.push([name, childKey, many]);
      members.push(`${indent}  ${name}${optional ? '?' : ''}: ${many ? `(${ts})[]` : ts};`);
    }
    shapes[key] = children;
    return members.length ? `{\n${members.join('\n')}\n${indent}}` : 'Record<string, never>';
  }

  for (const schema of schemas) {
    lines.push(
      `/** ${schema.file} (${schema.namespace}). */`,
      `export declare namespace ${pascal(schema.file)} {`,
    );
    for (const simple of (schema.root['xs:simpleType'] as Node[] | undefined) ?? []) {
      const restriction = simple['xs:restriction'] as Node;
      const values = ((restriction['xs:enumeration'] as Node[] | undefined) ?? []).map((e) =>
        JSON.stringify(String(e['@value'])),
      );
      const base = LEAVES[String(restriction['@base'])] ?? 'string';
      lines.push(`  type ${simple['@name']} = ${values.length ? values.join(' | ') : base};`);
    }
    for (const type of (schema.root['xs:complexType'] as Node[] | undefined) ?? []) {
      const key = `${schema.file}#${type['@name']}`;
      lines.push(`  interface ${type['@name']} ${complex(schema, type, key, '  ')}`);
    }
    for (const element of (schema.root['xs:element'] as Node[] | undefined) ?? []) {
      const key = `${schema.file}#element:${element['@name']}`;
      const inline = (element['xs:complexType'] as Node[] | undefined)?.[0];
      if (inline) lines.push(`  interface ${element['@name']} ${complex(schema, inline, key, '  ')}`);
      else {
        const { ts, key: typeKey } = typeRef(schema, String(element['@type']));
        lines.push(`  type ${element['@name']} = ${ts};`);
        shapes[key] = shapes[typeKey] ?? [];
      }
    }
    lines.push('}', '');
  }
  const operations = soapOperations(schemas);
  const table = operations
    .map(
      (o) =>
        `  ${o.name}: {\n    path: ${JSON.stringify(o.path)},\n    soapAction: ${JSON.stringify(o.soapAction)},\n` +
        `    namespace: ${JSON.stringify(o.namespace)},\n    request: ${JSON.stringify(o.request)},\n` +
        `    answer: ${JSON.stringify(o.answer)},\n  },\n`,
    )
    .join('');
  const types = operations
    .map((o) => `  ${o.name}: { request: ${o.requestTs}; answer: ${o.answerTs} };\n`)
    .join('');
  const shapeText = Object.entries(shapes)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, children]) => `  ${JSON.stringify(key)}: ${JSON.stringify(children)},\n`)
    .join('');
  return (
    '// Generated by `npm run openapi:export` from src/services/iponz/wsdl/: do not edit.\n' +
    lines.join('\n') +
    '\n/** Each SOAP operation: its address, SOAPAction, namespace, request and answer elements. */\n' +
    `export const soapOperations = {\n${table}} as const;\n\n` +
    "/** Each operation's request and answer types. */\n" +
    `export interface SoapOperationTypes {\n${types}}\n\n` +
    '/** Each element and type: its children in sequence order, their type or leaf kind, whether they repeat. */\n' +
    `export const soapShapes: Record<string, [string, string, boolean][]> = {\n${shapeText}};\n`
  );
}

interface SoapOperation {
  name: string;
  path: string;
  soapAction: string;
  namespace: string;
  request: string;
  answer: string;
  requestTs: string;
  answerTs: string;
}

function soapOperations(schemas: Schema[]): SoapOperation[] {
  const operations: SoapOperation[] = [];
  for (const file of readdirSync(WSDL)
    .filter((f) => f.endsWith('.wsdl'))
    .sort()) {
    const definitions = parser.parse(readFileSync(path.join(WSDL, file), 'utf8'))[
      'wsdl:definitions'
    ][0] as Node;
    const messages = new Map(
      ((definitions['wsdl:message'] as Node[]) ?? []).map((m) => [
        String(m['@name']),
        String(((m['wsdl:part'] as Node[])[0] as Node)['@element'])
          .split(':')
          .pop()!,
      ]),
    );
    const binding = (definitions['wsdl:binding'] as Node[])[0]!;
    const service = (definitions['wsdl:service'] as Node[])[0]!;
    const port = (service['wsdl:port'] as Node[])[0]!;
    const location = String((port['soap:address'] as Node)['@location']).replace('{{base}}', '');
    const portType = (definitions['wsdl:portType'] as Node[])[0]!;
    for (const operation of portType['wsdl:operation'] as Node[]) {
      const name = String(operation['@name']);
      const bound = (binding['wsdl:operation'] as Node[]).find((o) => o['@name'] === name)!;
      const input = messages.get(
        String(((operation['wsdl:input'] as Node[])[0] as Node)['@message'])
          .split(':')
          .pop()!,
      )!;
      const output = messages.get(
        String(((operation['wsdl:output'] as Node[])[0] as Node)['@message'])
          .split(':')
          .pop()!,
      )!;
      const schemaOf = (element: string) =>
        schemas.find((s) =>
          ((s.root['xs:element'] as Node[] | undefined) ?? []).some((e) => e['@name'] === element),
        )!;
      const requestSchema = schemaOf(input);
      const answerSchema = schemaOf(output);
      operations.push({
        name,
        path: location,
        soapAction: String((bound['soap:operation'] as Node)['@soapAction']),
        namespace: requestSchema.namespace,
        request: `${requestSchema.file}#element:${input}`,
        answer: `${answerSchema.file}#element:${output}`,
        requestTs: `${pascal(requestSchema.file)}.${input}`,
        answerTs: `${pascal(answerSchema.file)}.${output}`,
      });
    }
  }
  return operations;
}
