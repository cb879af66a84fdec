/**
 * Streaming validation of a request element against the XSD model, fed by the envelope reader's SAX
 * events: each element opened is matched against its parent's content model (sequence order, `xs:all`,
 * minOccurs/maxOccurs), each simple value checked on close (facets, built-in types), and the element's
 * value kept in a plain tree for the operation: a simple element's text, a complex one an object by
 * child name (an array where maxOccurs > 1). The text of an `xs:base64Binary` element is never kept: it
 * is decoded as it arrives (`Base64Decoder`) and handed to a sink (the document store), its place in the
 * tree taken by what the sink returns. Ours: text other than base64 is at most 65,536 characters.
 */
import { Base64Decoder } from './base64.ts';
import type { ComplexType, ElementDecl, SimpleType, XsdModel } from './xsd-model.ts';

export const MAX_TEXT = 65_536;

/** The request breaks the XSD: `element` is its path, `rule` what it breaks. */
export class XsdViolation extends Error {
  constructor(
    readonly element: string,
    readonly rule: string,
  ) {
    super(`Element ${element}: ${rule}`);
    this.name = 'XsdViolation';
  }
}

export type TreeValue = string | BinaryValue | Tree | TreeValue[];
export interface Tree {
  [name: string]: TreeValue;
}

/** What a sink gives back for one base64 element, filled in once its bytes are all written. */
export interface BinaryValue {
  readonly kind: 'binary';
  /** Set by the sink when the element's bytes are stored. */
  documentId: string;
  size: number;
}

/** Where the bytes of one base64 element go. `write` false: wait for `drain` before more. */
export interface BinarySink {
  value: BinaryValue;
  write(bytes: Buffer): boolean;
  /** Resolves once `drain` is due (when write answered false). */
  drain(): Promise<void>;
  /** No more bytes: resolves when they are stored. */
  end(): Promise<void>;
  /** The request failed: drop what was written. */
  abort(): void;
}

interface Frame {
  decl: ElementDecl;
  path: string;
  type: SimpleType | ComplexType;
  /** complex: the particle reached and how many times; all: counts per child. */
  position: number;
  count: number;
  counts: Map<string, number>;
  tree: Tree;
  text: string;
  sink?: BinarySink;
  decoder?: Base64Decoder;
}

export class StreamingValidator {
  private readonly stack: Frame[] = [];
  private rootValue: Tree | undefined;
  readonly sinks: BinarySink[] = [];

  constructor(
    private readonly model: XsdModel,
    private readonly root: ElementDecl,
    private readonly openBinary: (path: string) => BinarySink,
  ) {}

  get depth(): number {
    return this.stack.length;
  }

  /** The validated tree of the root element, once it is closed. */
  get value(): Tree {
    if (!this.rootValue) throw new Error('the request element is not complete');
    return this.rootValue;
  }

  open(namespace: string, local: string): void {
    const parent = this.stack[this.stack.length - 1];
    let decl: ElementDecl;
    let path: string;
    if (!parent) {
      if (namespace !== this.root.namespace || local !== this.root.name)
        throw new XsdViolation(local, `expected ${this.root.name} in namespace ${this.root.namespace}`);
      decl = this.root;
      path = local;
    } else {
      path = `${parent.path}/${local}`;
      if (parent.type.kind === 'simple')
        throw new XsdViolation(parent.path, `holds text only, not the element ${local}`);
      decl = this.matchChild(parent as Frame & { type: ComplexType }, namespace, local, path);
    }
    const type = this.model.typeOf(decl);
    const frame: Frame = { decl, path, type, position: 0, count: 0, counts: new Map(), tree: {}, text: '' };
    if (type.kind === 'simple' && type.base === 'base64Binary') {
      frame.sink = this.openBinary(path);
      frame.decoder = new Base64Decoder();
      this.sinks.push(frame.sink);
    }
    this.stack.push(frame);
  }

  /** Text inside the current element; answers false when a sink asks to wait for `drain`. */
  text(text: string): boolean {
    const frame = this.stack[this.stack.length - 1];
    if (!frame) {
      if (text.trim()) throw new XsdViolation('Body', 'holds text outside the request element');
      return true;
    }
    if (frame.type.kind === 'complex') {
      if (text.trim()) throw new XsdViolation(frame.path, 'holds elements only, not text');
      return true;
    }
    if (frame.decoder && frame.sink) {
      const bytes = frame.decoder.push(text);
      if (bytes === undefined) throw new XsdViolation(frame.path, 'is not base64 (xs:base64Binary)');
      return bytes.length === 0 ? true : frame.sink.write(bytes);
    }
    if (frame.text.length + text.length > MAX_TEXT)
      throw new XsdViolation(frame.path, `is longer than ${MAX_TEXT} characters`);
    frame.text += text;
    return true;
  }

  /** The current element ends: its value checked and kept; a base64 sink's end to await. */
  close(): Promise<void> | undefined {
    const frame = this.stack.pop();
    if (!frame) throw new Error('close without open');
    let value: TreeValue;
    let pending: Promise<void> | undefined;
    if (frame.type.kind === 'complex') {
      this.checkComplete(frame as Frame & { type: ComplexType });
      value = frame.tree;
    } else if (frame.sink && frame.decoder) {
      const last = frame.decoder.end();
      if (last === undefined) throw new XsdViolation(frame.path, 'is not base64 (xs:base64Binary)');
      if (last.length) frame.sink.write(last);
      pending = frame.sink.end();
      value = frame.sink.value;
    } else {
      value = checkSimple(frame.type, frame.text, frame.path);
    }
    const parent = this.stack[this.stack.length - 1];
    if (!parent) this.rootValue = value as Tree;
    else if (frame.decl.maxOccurs > 1) {
      const list = (parent.tree[frame.decl.name] as TreeValue[] | undefined) ?? [];
      list.push(value);
      parent.tree[frame.decl.name] = list;
    } else parent.tree[frame.decl.name] = value;
    return pending;
  }

  /** Every sink dropped (the request failed). */
  abort(): void {
    for (const sink of this.sinks) sink.abort();
  }

  private matchChild(parent: Frame & { type: ComplexType }, namespace: string, local: string, path: string) {
    const children = parent.type.children;
    const matches = (decl: ElementDecl) => decl.name === local && decl.namespace === namespace;
    if (parent.type.group === 'all') {
      const decl = children.find(matches);
      if (!decl)
        throw new XsdViolation(path, `is not an element of ${parent.path}; expected ${names(children)}`);
      const count = (parent.counts.get(local) ?? 0) + 1;
      if (count > decl.maxOccurs) throw new XsdViolation(path, `appears more than ${decl.maxOccurs} time(s)`);
      parent.counts.set(local, count);
      return decl;
    }
    for (let index = parent.position; index < children.length; index++) {
      const decl = children[index]!;
      if (!matches(decl)) continue;
      if (index === parent.position && parent.count > 0) {
        if (parent.count + 1 > decl.maxOccurs)
          throw new XsdViolation(path, `appears more than ${decl.maxOccurs} time(s)`);
        parent.count++;
        return decl;
      }
      // Skipping particles: each skipped one must be satisfied.
      for (let skipped = parent.position; skipped < index; skipped++) {
        const had = skipped === parent.position ? parent.count : 0;
        const missing = children[skipped]!;
        if (had < missing.minOccurs)
          throw new XsdViolation(
            `${parent.path}/${missing.name}`,
            `is required (minOccurs ${missing.minOccurs}) before ${local}`,
          );
      }
      parent.position = index;
      parent.count = 1;
      return decl;
    }
    const expected = children
      .slice(parent.position)
      .filter((decl, i) => i > 0 || parent.count < decl.maxOccurs);
    throw new XsdViolation(
      path,
      `is not expected here in ${parent.path}${expected.length ? `; expected ${names(expected)}` : '; nothing more is expected'}`,
    );
  }

  private checkComplete(frame: Frame & { type: ComplexType }): void {
    const children = frame.type.children;
    if (frame.type.group === 'all') {
      for (const decl of children)
        if ((frame.counts.get(decl.name) ?? 0) < decl.minOccurs)
          throw new XsdViolation(`${frame.path}/${decl.name}`, `is required (minOccurs ${decl.minOccurs})`);
      return;
    }
    for (let index = frame.position; index < children.length; index++) {
      const decl = children[index]!;
      const had = index === frame.position ? frame.count : 0;
      if (had < decl.minOccurs)
        throw new XsdViolation(`${frame.path}/${decl.name}`, `is required (minOccurs ${decl.minOccurs})`);
    }
  }
}

const names = (decls: readonly ElementDecl[]): string => decls.map((decl) => decl.name).join(' or ');

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;

export function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A simple value checked against its type; strings keep their text, other types are trimmed. */
export function checkSimple(type: SimpleType, raw: string, path: string): string {
  const text = type.base === 'string' ? raw : raw.trim();
  switch (type.base) {
    case 'date':
      if (!isCalendarDate(text))
        throw new XsdViolation(path, `"${clip(text)}" is not a date (xs:date, YYYY-MM-DD)`);
      break;
    case 'dateTime':
      if (!DATE_TIME.test(text) || !isCalendarDate(text.slice(0, 10)))
        throw new XsdViolation(path, `"${clip(text)}" is not a date and time (xs:dateTime)`);
      break;
    case 'boolean':
      if (!['true', 'false', '1', '0'].includes(text))
        throw new XsdViolation(path, `"${clip(text)}" is not true or false (xs:boolean)`);
      break;
    case 'int':
    case 'integer': {
      if (!/^[+-]?\d{1,30}$/.test(text))
        throw new XsdViolation(path, `"${clip(text)}" is not an integer (xs:${type.base})`);
      const value = Number(text);
      if (type.base === 'int' && (value < -2147483648 || value > 2147483647))
        throw new XsdViolation(path, `${clip(text)} is out of the range of xs:int`);
      break;
    }
    default:
      break;
  }
  const length = [...text].length;
  if (type.maxLength !== undefined && length > type.maxLength)
    throw new XsdViolation(path, `is ${length} characters long, more than maxLength ${type.maxLength}`);
  if (type.minLength !== undefined && length < type.minLength)
    throw new XsdViolation(path, `is ${length} characters long, less than minLength ${type.minLength}`);
  type.patterns.forEach((pattern, index) => {
    if (!pattern.test(text))
      throw new XsdViolation(path, `"${clip(text)}" does not match the pattern ${type.patternTexts[index]}`);
  });
  if (type.enumeration && !type.enumeration.includes(text))
    throw new XsdViolation(path, `"${clip(text)}" is not one of ${type.enumeration.join(', ')}`);
  return text;
}

const clip = (text: string): string => (text.length > 40 ? `${text.slice(0, 40)}…` : text);
