import { isUtf8 } from 'node:buffer';
import { JSONParser } from '@streamparser/json';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { badRequest, bodyTooLarge, HttpError } from '../../../platform/http/errors.ts';
import { findLoneSurrogate, findNulCharacter } from '../../../platform/http/input-text.ts';
import { HoldingsChecker } from '../domain/holdings.ts';

/** A holdings filing as the stream parser leaves it: the period, and the holdings as checked columns. */
export interface StreamedHoldings {
  periodEndDate: unknown;
  checker: HoldingsChecker;
  present: boolean;
}

/** Beside the request, not in its body: the platform's text checks walk the body (here only the period). */
const streamedHoldings = new WeakMap<FastifyRequest, StreamedHoldings>();

/** The holdings the stream parser read for a request, if it read them. */
export const holdingsOf = (request: FastifyRequest): StreamedHoldings | undefined =>
  streamedHoldings.get(request);

const NUL_RULE = 'must not contain the NUL character (U+0000)';
const SURROGATE_RULE = 'must not contain a lone surrogate (an unpaired \\uD800–\\uDFFF escape)';

/** A holdings filing nests three levels (body, holdings, a holding); deeper bodies are refused early. */
const MAX_DEPTH = 32;

/**
 * The nesting depth of JSON bytes read in chunks (strings and their escapes skipped), so a hostile body
 * is refused before the stream parser, whose work grows with the square of the depth, sees it. Every
 * byte it looks for is ASCII, never part of a multi-byte UTF-8 character, so it reads bytes as they come.
 */
class DepthGuard {
  private level = 0;
  private inString = false;
  private escaped = false;
  constructor(private readonly max: number) {}

  accepts(bytes: Uint8Array): boolean {
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x5b || c === 0x7b) {
        if (++this.level > this.max) return false;
      } else if (c === 0x5d || c === 0x7d) this.level--;
    }
    return true;
  }
}

/** The length of the UTF-8 character a lead byte starts (0: not a lead byte). */
const sequenceLength = (byte: number): number =>
  byte < 0x80
    ? 1
    : byte >= 0xc2 && byte <= 0xdf
      ? 2
      : byte >= 0xe0 && byte <= 0xef
        ? 3
        : byte >= 0xf0 && byte <= 0xf4
          ? 4
          : 0;

/**
 * Strict UTF-8 over chunks, on the bytes (no text is made of them): each chunk's complete characters are
 * checked by `isUtf8`, a character cut at the chunk's end is carried into the next.
 */
class Utf8Check {
  private carry = Buffer.alloc(0);

  accepts(chunk: Buffer): boolean {
    let start = 0;
    if (this.carry.length > 0) {
      const need = sequenceLength(this.carry[0]!) - this.carry.length;
      const joined = Buffer.concat([this.carry, chunk.subarray(0, need)]);
      if (chunk.length < need) {
        this.carry = joined;
        return true;
      }
      if (!isUtf8(joined)) return false;
      start = need;
    }
    let end = chunk.length;
    // Back over at most three continuation bytes to the lead byte of the last character.
    for (let i = chunk.length - 1; i >= Math.max(start, chunk.length - 4); i--) {
      const byte = chunk[i]!;
      if (byte >= 0x80 && byte < 0xc0) continue;
      if (sequenceLength(byte) > chunk.length - i) end = i;
      break;
    }
    if (!isUtf8(chunk.subarray(start, end))) return false;
    this.carry = Buffer.from(chunk.subarray(end));
    return true;
  }

  /** At the end of the body: no character left unfinished. */
  ends(): boolean {
    return this.carry.length === 0;
  }
}

/**
 * The holdings filing's JSON, read as it arrives (@streamparser/json): the bytes checked as strict
 * UTF-8 on the way, each holding checked (its rules, NUL characters and lone surrogates) and kept as
 * columns as soon as it is complete; nothing else of the body is kept. At most `limit` bytes are read:
 * a larger declared length is refused before any, a body that passes it as it streams is refused there
 * (413), and a refused body is not read on (body-limit.ts reads the rest away, within bounds).
 */
export function installStreamedHoldingsParser(scope: FastifyInstance, limit: number): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', (request, payload, done) => {
    if (Number(request.headers['content-length']) > limit) return done(bodyTooLarge(limit), undefined);
    const parser = new JSONParser({
      paths: ['$.periodEndDate', '$.holdings.*'],
      keepStack: false,
      stringBufferSize: 65_536,
      numberBufferSize: 64,
    });
    const utf8 = new Utf8Check();
    const streamed: StreamedHoldings = {
      periodEndDate: undefined,
      checker: new HoldingsChecker(),
      present: false,
    };
    let failed = false;
    let index = 0;
    let received = 0;
    const stopReading = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', fail);
    };
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      stopReading();
      payload.pause();
      done(error, undefined);
    };
    const notJson = (message: string) =>
      fail(
        new HttpError(PLATFORM_ERRORS.invalidParameter, `The body is not valid JSON: ${message}`, [
          { field: 'body', message: 'must be JSON' },
        ]),
      );
    parser.onError = (error) => notJson(error.message);
    parser.onValue = ({ value, key, stack }) => {
      if (failed) return;
      if (stack.length === 1 && key === 'periodEndDate') {
        streamed.periodEndDate = value;
      } else if (stack.length === 2 && typeof key === 'number') {
        const at = index++;
        streamed.present = true;
        const nul = findNulCharacter(value, ['holdings', String(at)]);
        const surrogate = nul === undefined ? findLoneSurrogate(value, ['holdings', String(at)]) : undefined;
        if (nul !== undefined) return fail(badRequest(nul, NUL_RULE));
        if (surrogate !== undefined) return fail(badRequest(surrogate, SURROGATE_RULE));
        streamed.checker.add(value);
      }
    };
    const depth = new DepthGuard(MAX_DEPTH);
    // The bytes go to the parser as they are: no text is made of a chunk (a string per 64 KiB piece, then
    // bytes again inside the parser, was most of what a filing allocated).
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return fail(bodyTooLarge(limit));
      if (!utf8.accepts(chunk)) return fail(badRequest('body', 'is not valid UTF-8'));
      if (!depth.accepts(chunk)) {
        return fail(badRequest('body', `must not nest arrays and objects deeper than ${MAX_DEPTH} levels`));
      }
      try {
        parser.write(chunk);
      } catch (error) {
        notJson((error as Error).message);
      }
    };
    const onEnd = () => {
      if (failed) return;
      stopReading();
      if (!utf8.ends()) return fail(badRequest('body', 'is not valid UTF-8'));
      try {
        if (!parser.isEnded) parser.end();
      } catch (error) {
        return notJson((error as Error).message);
      }
      if (failed) return;
      streamedHoldings.set(request, streamed);
      done(null, { periodEndDate: streamed.periodEndDate });
    };
    payload.on('data', onData);
    payload.on('error', fail);
    payload.on('end', onEnd);
  });
}
