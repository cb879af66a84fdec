/**
 * Reads a SOAP 1.1 request envelope as it arrives (saxes, namespace-aware), never holding the body
 * whole: `Envelope`, an optional `Header` (its content skipped), a `Body` holding exactly one element,
 * the operation's request, which is validated while it streams (`validator.ts`), base64 elements
 * decoded and written to their sink as their text arrives, with backpressure: the next piece of the
 * body is read only once the sink has drained.
 *
 * saxes keeps an element's text until the next tag, and a CDATA section's until its end; so that a
 * 50 MB base64 element does not sit in memory, the reader takes the text saxes has gathered after each
 * piece it feeds it (its `text` buffer, in the text state or inside a CDATA section) and hands it on at
 * once. A DOCTYPE is refused (no entities).
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { type BinarySink, StreamingValidator, type Tree } from './validator.ts';
import type { ElementDecl, XsdModel } from './xsd-model.ts';

export const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';

/** The body cannot be read as a SOAP 1.1 envelope (not XML, wrong structure). */
export class MalformedEnvelope extends Error {
  override name = 'MalformedEnvelope';
}

/** The body is larger than the operation accepts. */
export class EnvelopeTooLarge extends Error {
  override name = 'EnvelopeTooLarge';
  constructor(readonly limit: number) {
    super(`The body is larger than ${limit} bytes`);
  }
}

export interface EnvelopeRequest {
  /** The request element's namespace and name. */
  namespace: string;
  local: string;
  body: Tree;
}

export interface ReadOptions {
  /** The request element's declaration, given its name (throws a fault when the endpoint has none such). */
  requestElement(namespace: string, local: string): { decl: ElementDecl; model: XsdModel; maxBytes: number };
  openBinary(path: string): BinarySink;
}

// saxes's text and CDATA states (internal): while in one, `text` holds the element text (or the CDATA
// section's text) gathered so far, already decoded, so it may be handed on in pieces.
const SAXES_TEXT_STATE = 13;
const SAXES_CDATA_STATE = 20;
interface SaxesInternals {
  state: number;
  text: string;
}

export async function readEnvelope(
  source: AsyncIterable<Buffer | string>,
  options: ReadOptions,
  initialLimit: number,
): Promise<EnvelopeRequest> {
  const parser = new SaxesParser({ xmlns: true, position: false });
  const internals = parser as unknown as SaxesInternals;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let depth = 0;
  let inHeader = false;
  let bodyDone = false;
  let sawBody = false;
  let request: { namespace: string; local: string } | undefined;
  let validator: StreamingValidator | undefined;
  let limit = initialLimit;
  let wait: Promise<void> | undefined;
  const pending: Promise<void>[] = [];

  const onText = (text: string) => {
    if (!text) return;
    if (validator && validator.depth > 0) {
      if (!validator.text(text)) wait = validator.sinks[validator.sinks.length - 1]?.drain();
    } else if (!inHeader && text.trim()) throw new MalformedEnvelope('text outside the request element');
  };

  parser.on('doctype', () => {
    throw new MalformedEnvelope('a DOCTYPE is not allowed');
  });
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('opentag', (tag: SaxesTagNS) => {
    depth++;
    if (depth === 1) {
      if (tag.uri === SOAP12)
        throw new MalformedEnvelope('a SOAP 1.2 envelope; this endpoint speaks SOAP 1.1');
      if (tag.uri !== SOAP11 || tag.local !== 'Envelope')
        throw new MalformedEnvelope(`the root element is ${tag.name}, not a SOAP 1.1 Envelope (${SOAP11})`);
      return;
    }
    if (inHeader) return;
    if (depth === 2) {
      if (tag.uri === SOAP11 && tag.local === 'Header' && !sawBody && !request) inHeader = true;
      else if (tag.uri === SOAP11 && tag.local === 'Body' && !sawBody) sawBody = true;
      else throw new MalformedEnvelope(`unexpected ${tag.name} in the Envelope (a Header, then one Body)`);
      return;
    }
    if (depth === 3) {
      if (request) throw new MalformedEnvelope('the Body holds more than one element');
      request = { namespace: tag.uri, local: tag.local };
      const found = options.requestElement(tag.uri, tag.local);
      limit = found.maxBytes;
      validator = new StreamingValidator(found.model, found.decl, options.openBinary);
    }
    validator!.open(tag.uri, tag.local);
  });
  parser.on('closetag', () => {
    depth--;
    if (inHeader) {
      if (depth === 1) inHeader = false;
      return;
    }
    if (depth >= 2 && validator) {
      const done = validator.close();
      if (done) pending.push(done);
    } else if (depth === 1) bodyDone = true;
  });

  // saxes's own errors (not well-formed XML) and the decoder's (not UTF-8) are a malformed envelope;
  // errors our handlers throw pass as they are.
  const feed = (text: () => string, end = false) => {
    try {
      parser.write(text());
      if (end) parser.close();
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'Error' || (error as { code?: unknown }).code)
        throw error;
      throw new MalformedEnvelope(`not well-formed XML: ${error.message.replace(/^undefined:/, '').trim()}`);
    }
  };
  const decode = (piece?: Buffer) => () => {
    try {
      return piece ? decoder.decode(piece, { stream: true }) : decoder.decode();
    } catch {
      throw new MalformedEnvelope('the body is not UTF-8');
    }
  };
  let bytes = 0;
  try {
    for await (const piece of source) {
      const buffer = typeof piece === 'string' ? Buffer.from(piece) : piece;
      bytes += buffer.length;
      if (bytes > limit) throw new EnvelopeTooLarge(limit);
      feed(decode(buffer));
      // Hand on the text saxes is gathering for an element still open (see the header).
      if (
        (internals.state === SAXES_TEXT_STATE || internals.state === SAXES_CDATA_STATE) &&
        internals.text.length
      ) {
        const text = internals.text;
        internals.text = '';
        onText(text);
      }
      if (wait) {
        const waiting = wait;
        wait = undefined;
        await waiting;
      }
    }
    feed(decode(), true);
    await Promise.all(pending);
  } catch (error) {
    validator?.abort();
    await Promise.allSettled(pending);
    throw error;
  }
  if (!sawBody || !bodyDone) throw new MalformedEnvelope('the Envelope has no Body');
  if (!request || !validator) throw new MalformedEnvelope('the Body is empty: it holds the request element');
  return { ...request, body: validator.value };
}
