/**
 * The XML Schema subset our SOAP XSDs use, loaded at start into a model the streaming validator
 * (`validator.ts`) walks. Supported, and nothing more (ours): `xs:schema` with `targetNamespace` and
 * `elementFormDefault="qualified"`; `xs:import`; global and local `xs:element` (`name` + `type`, an
 * inline `xs:complexType`/`xs:simpleType`, or `ref`) with `minOccurs`/`maxOccurs`; `xs:complexType`
 * holding one `xs:sequence` or `xs:all` of elements (no attributes, no mixed content); `xs:simpleType`
 * as an `xs:restriction` with `maxLength`, `minLength`, `pattern`, `enumeration`; the built-in types
 * `xs:string`, `xs:date` (YYYY-MM-DD, no time zone), `xs:dateTime`, `xs:boolean`, `xs:int`, `xs:integer`,
 * `xs:base64Binary`. Anything else in a file is refused at load, so an XSD can never promise a rule the
 * validator does not check.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';

export const XS = 'http://www.w3.org/2001/XMLSchema';

export type Builtin = 'string' | 'date' | 'dateTime' | 'boolean' | 'int' | 'integer' | 'base64Binary';
const BUILTINS: readonly Builtin[] = [
  'string',
  'date',
  'dateTime',
  'boolean',
  'int',
  'integer',
  'base64Binary',
];

/** `{namespace}local`, the key of every global declaration. */
export const qname = (namespace: string, local: string): string => `{${namespace}}${local}`;

export interface SimpleType {
  kind: 'simple';
  base: Builtin;
  maxLength?: number;
  minLength?: number;
  patterns: RegExp[];
  /** The pattern texts, for messages. */
  patternTexts: string[];
  enumeration?: string[];
}

export interface ElementDecl {
  name: string;
  namespace: string;
  minOccurs: number;
  maxOccurs: number;
  /** A type's qualified name, resolved on use (`XsdModel.typeOf`), or an inline type. */
  type: string | SimpleType | ComplexType;
  /** A `ref` particle: the global element whose type it takes. */
  ref?: string;
}

export interface ComplexType {
  kind: 'complex';
  group: 'sequence' | 'all';
  children: ElementDecl[];
}

interface Node {
  local: string;
  attributes: Record<string, string>;
  /** The prefixes in scope, to resolve `type`, `base` and `ref`. */
  resolve: (prefix: string) => string | undefined;
  children: Node[];
}

function parseTree(text: string, file: string): Node {
  const parser = new SaxesParser({ xmlns: true, fileName: file });
  const stack: Node[] = [];
  let root: Node | undefined;
  parser.on('opentag', (tag: SaxesTagNS) => {
    if (tag.uri !== XS) throw new Error(`${file}: only XML Schema elements are read, not ${tag.name}`);
    const attributes: Record<string, string> = {};
    for (const [name, attribute] of Object.entries(tag.attributes))
      if (!name.startsWith('xmlns')) attributes[attribute.local] = attribute.value;
    const scope = { ...tag.ns };
    const parent = stack[stack.length - 1];
    const resolve = (prefix: string): string | undefined => scope[prefix] ?? parent?.resolve(prefix);
    const node: Node = { local: tag.local, attributes, resolve, children: [] };
    if (parent) parent.children.push(node);
    else root = node;
    stack.push(node);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.write(text).close();
  if (root?.local !== 'schema') throw new Error(`${file}: not an xs:schema`);
  return root as Node;
}

function resolveQName(node: Node, value: string, file: string): string {
  const [prefix, local] = value.includes(':') ? value.split(':', 2) : ['', value];
  const namespace = node.resolve(prefix ?? '');
  if (namespace === undefined) throw new Error(`${file}: unknown prefix in ${value}`);
  return qname(namespace, local!);
}

const occurs = (text: string | undefined, fallback: number): number =>
  text === undefined ? fallback : text === 'unbounded' ? Number.POSITIVE_INFINITY : Number(text);

/** The schemas of one endpoint: global elements and types by qualified name. */
export class XsdModel {
  readonly elements = new Map<string, ElementDecl>();
  readonly types = new Map<string, SimpleType | ComplexType>();

  /** Adds one schema document's declarations (its imports are added by the caller, file by file). */
  add(text: string, file: string): this {
    const root = parseTree(text, file);
    const target = root.attributes.targetNamespace ?? '';
    if (root.attributes.elementFormDefault !== 'qualified')
      throw new Error(`${file}: elementFormDefault must be qualified`);
    for (const node of root.children) {
      if (node.local === 'import' || node.local === 'annotation') continue;
      const name = node.attributes.name;
      if (!name) throw new Error(`${file}: a global ${node.local} without a name`);
      if (node.local === 'element') this.elements.set(qname(target, name), this.element(node, target, file));
      else if (node.local === 'complexType')
        this.types.set(qname(target, name), this.complex(node, target, file));
      else if (node.local === 'simpleType') this.types.set(qname(target, name), this.simple(node, file));
      else throw new Error(`${file}: xs:${node.local} is not in the subset we read`);
    }
    return this;
  }

  /** The type of an element, resolved (built-in types as a plain simple type). */
  typeOf(decl: ElementDecl): SimpleType | ComplexType {
    if (decl.ref !== undefined) {
      const global = this.elements.get(decl.ref);
      if (!global) throw new Error(`no global element ${decl.ref}`);
      return this.typeOf(global);
    }
    if (typeof decl.type !== 'string') return decl.type;
    const found = this.types.get(decl.type);
    if (found) return found;
    const builtin = decl.type.startsWith(`{${XS}}`) ? (decl.type.slice(XS.length + 2) as Builtin) : undefined;
    if (builtin && BUILTINS.includes(builtin))
      return { kind: 'simple', base: builtin, patterns: [], patternTexts: [] };
    throw new Error(`unknown type ${decl.type}`);
  }

  /** Every name resolves: checked once after all files are added. */
  check(): this {
    const visit = (decl: ElementDecl, seen: Set<ComplexType>) => {
      const type = this.typeOf(decl);
      if (type.kind === 'complex' && !seen.has(type)) {
        seen.add(type);
        for (const child of type.children) visit(child, seen);
      }
    };
    for (const decl of this.elements.values()) visit(decl, new Set());
    return this;
  }

  private element(node: Node, target: string, file: string): ElementDecl {
    const minOccurs = occurs(node.attributes.minOccurs, 1);
    const maxOccurs = occurs(node.attributes.maxOccurs, 1);
    if (node.attributes.ref) {
      const ref = resolveQName(node, node.attributes.ref, file);
      const name = ref.slice(ref.indexOf('}') + 1);
      const namespace = ref.slice(1, ref.indexOf('}'));
      return { name, namespace, minOccurs, maxOccurs, type: '', ref };
    }
    const name = node.attributes.name;
    if (!name) throw new Error(`${file}: an element without a name`);
    let type: ElementDecl['type'];
    if (node.attributes.type) type = resolveQName(node, node.attributes.type, file);
    else {
      const inline = node.children.find((child) => child.local !== 'annotation');
      if (inline?.local === 'complexType') type = this.complex(inline, target, file);
      else if (inline?.local === 'simpleType') type = this.simple(inline, file);
      else throw new Error(`${file}: element ${name} has no type`);
    }
    return { name, namespace: target, minOccurs, maxOccurs, type };
  }

  private complex(node: Node, target: string, file: string): ComplexType {
    const groups = node.children.filter((child) => child.local !== 'annotation');
    const group = groups[0];
    if (groups.length !== 1 || !group || (group.local !== 'sequence' && group.local !== 'all'))
      throw new Error(`${file}: a complex type holds one xs:sequence or xs:all`);
    const children = group.children
      .filter((child) => child.local !== 'annotation')
      .map((child) => {
        if (child.local !== 'element') throw new Error(`${file}: xs:${child.local} inside a group`);
        return this.element(child, target, file);
      });
    return { kind: 'complex', group: group.local, children };
  }

  private simple(node: Node, file: string): SimpleType {
    const restriction = node.children.find((child) => child.local === 'restriction');
    if (!restriction?.attributes.base) throw new Error(`${file}: a simple type is an xs:restriction`);
    const base = resolveQName(restriction, restriction.attributes.base, file);
    const builtin = base.slice(XS.length + 2) as Builtin;
    if (!base.startsWith(`{${XS}}`) || !BUILTINS.includes(builtin))
      throw new Error(`${file}: a restriction of ${base} is not in the subset`);
    const type: SimpleType = { kind: 'simple', base: builtin, patterns: [], patternTexts: [] };
    for (const facet of restriction.children) {
      const value = facet.attributes.value ?? '';
      if (facet.local === 'maxLength') type.maxLength = Number(value);
      else if (facet.local === 'minLength') type.minLength = Number(value);
      else if (facet.local === 'pattern') {
        type.patterns.push(new RegExp(`^(?:${value})$`, 'u'));
        type.patternTexts.push(value);
      } else if (facet.local === 'enumeration') type.enumeration = [...(type.enumeration ?? []), value];
      else if (facet.local !== 'annotation')
        throw new Error(`${file}: facet xs:${facet.local} is not in the subset`);
    }
    return type;
  }
}
