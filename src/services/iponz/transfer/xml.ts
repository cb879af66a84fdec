/**
 * The IP office's bibliographic XML as an import: a file holding one case (`Patent`, `TradeMark`,
 * `Design`, as `GET /patents/{n}` answers) or a list (`PatentList` …, as the date-range lists answer),
 * gzip or not. The file is validated against the kind's XSD (xsd/) with libxml2's validator
 * (xmllint-wasm, the validator the tests check every answer with); an invalid file is refused, each
 * error naming its line, element and rule, and none of its records is read. A valid file's records are
 * then read with saxes, each as the JSON form of the answer (the README's mapping: an element a key, a
 * repeatable element an array, PublicationDefermentIndicator a boolean), with the line it begins on.
 *
 * Ours: libxml2 validates a document whole, so the file's text is held in memory while it is read:
 * at most `MAX_XML_CHARACTERS` characters (larger sets of cases go in NDJSON, which streams).
 */
import { closeSync, createReadStream, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { createGunzip, gunzipSync } from 'node:zlib';
import { SaxesParser } from 'saxes';
import { validateXML } from 'xmllint-wasm';
import { isGzip } from '../../../platform/transfer/ndjson.ts';
import type { FileRecord } from '../../../platform/transfer/register.ts';
import { LIST_ELEMENT, RECORD_ELEMENT, SCHEMA_FILE } from '../domain/bibliographic.ts';
import type { CaseKind } from '../domain/renewals.ts';

export const MAX_XML_CHARACTERS = 256 * 1024 * 1024;

const XSD_FOLDER = path.join(import.meta.dirname, '..', 'xsd');

/** A record read from a bibliographic XML file: a case's published document only. */
export class XmlDocument {
  constructor(
    readonly kind: CaseKind,
    // biome-ignore lint/suspicious/noExplicitAny: the document's JSON form, checked by its schema
    readonly tree: Record<string, any>,
  ) {}
}

/** Repeatable elements, always arrays in the JSON form, by the element that holds them. */
const REPEATED: Readonly<Record<string, readonly string[]>> = {
  StatusHistory: ['Status', 'Renewal'],
  Parties: ['Party'],
  Documents: ['Document'],
  GoodsAndServices: ['ClassDescription'],
  Inventors: ['Inventor'],
  Claims: ['IndependentClaim'],
  IpcClassifications: ['IpcClassification'],
  PriorityClaims: ['PriorityClaim'],
};

const KIND_OF_ROOT = new Map<string, { kind: CaseKind; list: boolean }>(
  (Object.keys(RECORD_ELEMENT) as CaseKind[]).flatMap((kind) => [
    [RECORD_ELEMENT[kind], { kind, list: false }],
    [LIST_ELEMENT[kind], { kind, list: true }],
  ]),
);

/** Does the file (gunzipped) begin with `<` after an optional byte order mark and white space? */
export function isXmlFile(file: string): boolean {
  let head: Buffer;
  if (isGzip(file)) {
    head = Buffer.alloc(0);
    try {
      // The first kilobytes are enough; a gzip member is read from its start.
      const fd = openSync(file, 'r');
      const raw = Buffer.alloc(64 * 1024);
      const read = readSync(fd, raw, 0, raw.length, 0);
      closeSync(fd);
      head = gunzipSync(raw.subarray(0, read), { finishFlush: 2 });
    } catch {
      return false;
    }
  } else {
    const fd = openSync(file, 'r');
    head = Buffer.alloc(1024);
    head = head.subarray(0, readSync(fd, head, 0, head.length, 0));
    closeSync(fd);
  }
  return /^(\uFEFF)?\s*</.test(head.toString('utf8', 0, Math.min(head.length, 1024)));
}

async function fileText(file: string): Promise<string | undefined> {
  const stream = isGzip(file) ? createReadStream(file).pipe(createGunzip()) : createReadStream(file);
  const pieces: Buffer[] = [];
  let size = 0;
  for await (const piece of stream as AsyncIterable<Buffer>) {
    size += piece.length;
    if (size > MAX_XML_CHARACTERS * 4) {
      stream.destroy();
      return undefined;
    }
    pieces.push(piece);
  }
  const text = Buffer.concat(pieces).toString('utf8');
  return text.length > MAX_XML_CHARACTERS ? undefined : text;
}

/** The root element's name (the first start tag). */
function rootOf(text: string): string | undefined {
  const match = /<([A-Za-z_][\w.-]*)[\s/>]/.exec(
    text.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/g, ''),
  );
  return match?.[1];
}

const xsdText = new Map<CaseKind, string>();
const xsdOf = (kind: CaseKind) => {
  let text = xsdText.get(kind);
  if (!text) {
    text = readFileSync(path.join(XSD_FOLDER, SCHEMA_FILE[kind]), 'utf8');
    xsdText.set(kind, text);
  }
  return text;
};

/** libxml2's message as field and rule: `Element 'X': rule` names the element. */
function problemOf(message: string): { field: string; rule: string } {
  // libxml2 begins with its own heading ("Schemas validity error : "): the file and line say where.
  const text = message
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/^[A-Za-z ]*(error|warning) : /, '');
  const element = /^Element '([^']+)'(?:, attribute '[^']+')?: (.*)$/.exec(text);
  if (element) return { field: element[1]!, rule: element[2]! };
  return { field: '(document)', rule: text };
}

/** The records of a bibliographic XML file, or the XSD's refusals with their lines. */
export async function* xmlRecords(
  file: string,
  onBytes: (bytes: number) => void,
): AsyncGenerator<FileRecord> {
  const text = await fileText(file);
  if (text === undefined) {
    yield {
      line: 1,
      field: '(document)',
      rule: `must be at most ${MAX_XML_CHARACTERS} characters: import larger sets of cases as NDJSON`,
    };
    return;
  }
  const root = rootOf(text);
  const shape = root ? KIND_OF_ROOT.get(root) : undefined;
  if (!shape) {
    yield {
      line: 1,
      field: root ?? '(document)',
      rule: `must be one of ${[...KIND_OF_ROOT.keys()].join(', ')} (the bibliographic documents)`,
    };
    return;
  }
  const result = await validateXML({
    xml: [{ fileName: 'document.xml', contents: text }],
    schema: [{ fileName: SCHEMA_FILE[shape.kind], contents: xsdOf(shape.kind) }],
    maxMemoryPages: 65_536,
  });
  if (!result.valid) {
    for (const error of result.errors)
      yield { line: error.loc?.lineNumber ?? 1, ...problemOf(error.message) };
    return;
  }
  yield* documents(text, shape.kind, shape.list);
  onBytes(statSync(file).size);
}

interface Frame {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: a tree being built
  value: Record<string, any> | undefined;
  text: string;
}

/** The record elements of a valid document, each as its JSON form with the line it begins on. */
function* documents(text: string, kind: CaseKind, list: boolean): Generator<FileRecord> {
  const element = RECORD_ELEMENT[kind];
  const recordDepth = list ? 2 : 1;
  const parser = new SaxesParser({ position: true });
  const done: FileRecord[] = [];
  const stack: Frame[] = [];
  let start = { line: 0, position: 0 };
  parser.on('opentag', (tag) => {
    const depth = stack.length + 1;
    if (depth === recordDepth && tag.name === element)
      start = { line: parser.line, position: parser.position };
    const inRecord = depth >= recordDepth && (depth > recordDepth || tag.name === element);
    if (!inRecord) {
      stack.push({ name: tag.name, value: undefined, text: '' });
      return;
    }
    const value: Record<string, unknown> = {};
    for (const child of REPEATED[tag.name] ?? []) value[child] = [];
    stack.push({ name: tag.name, value, text: '' });
  });
  parser.on('text', (t) => {
    const top = stack.at(-1);
    if (top) top.text += t;
  });
  parser.on('closetag', () => {
    const frame = stack.pop()!;
    const parent = stack.at(-1);
    if (!frame.value) return;
    const hasChildren = Object.keys(frame.value).length > 0 || REPEATED[frame.name] !== undefined;
    const value =
      frame.name === 'PublicationDefermentIndicator'
        ? frame.text.trim() === 'true' || frame.text.trim() === '1'
        : hasChildren
          ? frame.value
          : frame.text;
    if (stack.length + 1 === recordDepth) {
      done.push({
        line: start.line,
        value: new XmlDocument(kind, value as Record<string, unknown>),
        size: parser.position - start.position,
      });
      return;
    }
    if (!parent?.value) return;
    if (Array.isArray(parent.value[frame.name])) parent.value[frame.name].push(value);
    else parent.value[frame.name] = value;
  });
  const PIECE = 1024 * 1024;
  for (let at = 0; at < text.length; at += PIECE) {
    parser.write(text.slice(at, at + PIECE));
    yield* done.splice(0);
  }
  parser.close();
  yield* done.splice(0);
}
