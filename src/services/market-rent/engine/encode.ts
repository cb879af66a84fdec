import { ALL, BEDROOM_VALUES, DWELLING_TYPES } from '../domain/factors.ts';
import { FIGURE_DECIMALS, FIGURE_NAMES } from '../domain/statistics.ts';

/**
 * The serializers of /statistics for its one fixed row shape: bytes written straight into one growing
 * buffer, with no object per row and no intermediate string. The text is exactly what
 * `render.ts` (JSON.stringify of the items, `statisticsCsv`) gives for the same rows; the old-versus-new
 * test and `render.test.ts` compare them.
 *
 * Numbers are written as JavaScript prints them (JSON.stringify and String agree on finite numbers):
 * whole numbers digit by digit, and a figure rounded to d decimals as the decimal k / 10^d with its
 * trailing zeros dropped, which is the shortest text that reads back as that double while it has at
 * most 15 significant digits. Anything else (never met in practice) is printed by String itself.
 */

/** Receives the rows of an answer area by area (see report.ts). */
export interface RowSink {
  /** The rows that follow belong to the area with this label (ALL for the aggregate area). */
  area(label: string): void;
  /**
   * One row: dwelling index d and bedroom index b (the length of the list means ALL), the rounded
   * counts, and the figures in FIGURE_NAMES' order (NaN for null), or null when suppressed.
   */
  row(
    d: number,
    b: number,
    nLodged: number,
    nClosed: number,
    nCurr: number,
    figures: Float64Array | null,
  ): void;
}

export type AnswerFormat = 'json' | 'csv';

export interface AnswerEncoder extends RowSink {
  /** The whole answer, in memory of its own. */
  finish(): Buffer;
  /**
   * The whole answer without a copy: a view of the encoder's kept buffer, lent until `release()` (once
   * the socket is done with it); encoders at work meanwhile get buffers of their own.
   */
  finishLent(): LentAnswer;
}

export interface LentAnswer {
  bytes: Buffer;
  /** The bytes are no longer read: the buffer serves the next answer (idempotent). */
  release(): void;
}

const D = DWELLING_TYPES.length;
const B = BEDROOM_VALUES.length;
const FIGURES = FIGURE_NAMES.length;
const POWERS = [1, 10, 100, 1000, 10_000];

/**
 * 0 … 9999 as ASCII digits packed into 32-bit words (little-endian: the first digit in the low byte):
 * zero-padded to four digits (PADDED), and without padding, left-aligned (DIGITS, its length in
 * DIGIT_LENGTH). A number's digits are then one or two stores of four bytes; what a store writes past
 * the digits is overwritten by what follows (every row reserves room beyond its longest).
 */
const PADDED = new Uint32Array(10_000);
const DIGITS = new Uint32Array(10_000);
const DIGIT_LENGTH = new Uint8Array(10_000);
const packed = (text: string) => {
  let word = 0;
  for (let i = 0; i < text.length && i < 4; i++) word |= text.charCodeAt(i) << (8 * i);
  return word >>> 0;
};
for (let v = 0; v < 10_000; v++) {
  PADDED[v] = packed(String(v).padStart(4, '0'));
  DIGITS[v] = packed(String(v));
  DIGIT_LENGTH[v] = String(v).length;
}

const viewOf = (buffer: Uint8Array) => new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);

/** The most a row adds besides its area's label: keys, factors and 13 numbers of at most 25 bytes. */
const ROW_BYTES = 768;

/**
 * A buffer kept between answers: an encoder borrows it and gives it back when it finishes (another
 * encoder at work meanwhile gets a buffer of its own), so a national answer does not allocate and
 * grow tens of megabytes each time.
 */
interface Pool {
  kept: Uint8Array | null;
  /** The capacity of the last buffer lent out: a new encoder while it is out starts at that size. */
  lentCapacity: number;
  allocate(size: number): Uint8Array;
}

const plainBytes = (size: number): Uint8Array => Buffer.allocUnsafeSlow(size);
/** Shared memory, which the report thread can write. */
const sharedBytes = (size: number): Uint8Array => new Uint8Array(new SharedArrayBuffer(size));

/**
 * Whole answers. Not shared memory: the HTTP layer sends a buffer as bytes only when it is backed by an
 * ArrayBuffer (Fastify serialised one on shared memory as JSON, `{"type":"Buffer","data":[…]}`).
 */
const answers: Pool = { kept: plainBytes(1 << 20), lentCapacity: 1 << 16, allocate: plainBytes };
/** The first part of an answer made on two threads, written by the report thread. */
const firstParts: Pool = { kept: null, lentCapacity: 1 << 16, allocate: sharedBytes };
/** The later part of an answer made on two threads. */
const laterParts: Pool = { kept: null, lentCapacity: 1 << 16, allocate: plainBytes };

const borrow = (pool: Pool): Uint8Array => {
  const buffer = pool.kept ?? pool.allocate(pool.lentCapacity);
  pool.kept = null;
  return buffer;
};

const giveBack = (pool: Pool, buffer: Uint8Array) => {
  if (pool.kept === null || pool.kept.length < buffer.length) pool.kept = buffer;
};

/** A pool's kept buffer grown to `bytes`, its pages touched (not while it is lent out: then the next one is made that size). */
function reserve(pool: Pool, bytes: number): void {
  if (pool.kept === null) pool.lentCapacity = Math.max(pool.lentCapacity, bytes);
  else if (pool.kept.length < bytes) pool.kept = pool.allocate(bytes).fill(0);
}

/**
 * The kept buffers grown for an answer of `bytes`: the whole answer's, and for one made on two threads
 * its two parts' (a first part of up to 80% of it, a later one of up to 40%; larger ones grow).
 */
export function reserveAnswerBuffer(bytes: number): void {
  reserve(answers, bytes);
  reserve(firstParts, Math.ceil(bytes * 0.8));
  reserve(laterParts, Math.ceil(bytes * 0.4));
}

/**
 * The output of one answer. The writers below take the buffer and a position and return the next
 * position (room is reserved once per row), so a row is written with its position in a local.
 */
class Bytes {
  at = 0;
  /** The buffer as a DataView, for writing four bytes at a time (any alignment). */
  view: DataView;

  /** Not zeroed: every byte is written before it is read. */
  constructor(
    public buffer: Uint8Array,
    private readonly pool: Pool | null,
  ) {
    this.view = viewOf(buffer);
  }

  /** Room for `count` more bytes; returns the buffer (a new one when it grew). */
  reserve(count: number): Uint8Array {
    if (this.at + count <= this.buffer.length) return this.buffer;
    const size = Math.max(this.buffer.length * 2, this.at + count);
    // A buffer lent by another thread grows in shared memory too (the lender reads it).
    const grown = this.pool === null ? sharedBytes(size) : this.pool.allocate(size);
    grown.set(this.buffer.subarray(0, this.at));
    this.buffer = grown;
    this.view = viewOf(grown);
    return grown;
  }

  write(bytes: Uint8Array): void {
    this.at = copy(this.reserve(bytes.length), this.at, bytes);
  }

  /** A copy of what was written, in memory of its own; the buffer goes back for the next answer. */
  take(): Buffer {
    const out = Buffer.allocUnsafeSlow(this.at);
    out.set(this.buffer.subarray(0, this.at));
    if (this.pool) giveBack(this.pool, this.buffer);
    this.at = 0;
    return out;
  }

  /**
   * What was written, as a view of the buffer itself: no copy, and no new memory for V8 to count (a
   * national answer's 12.5 MB copy each time set off a full collection, 60–70 ms, every three to five
   * national answers). The response gives it back once its socket is done with it.
   */
  lend(): LentAnswer {
    return lendBuffer(this.buffer, this.at);
  }
}

/** Bytes 0 … length − 1 of an answers' buffer, lent until release() gives it back. */
function lendBuffer(buffer: Uint8Array, length: number): LentAnswer {
  const bytes = Buffer.from(buffer.buffer as ArrayBuffer, buffer.byteOffset, length);
  answers.lentCapacity = buffer.length;
  let released = false;
  return {
    bytes,
    release() {
      if (released) return;
      released = true;
      giveBack(answers, buffer);
    },
  };
}

/**
 * Copies a byte string: a loop for short ones (a figure's key), TypedArray.set from SET_BYTES on (an
 * area's label, the factors of a row, a suppressed row's nulls), where the native copy is cheaper
 * than the loop even with its call (about 16 ns against 40 to 80 ns for 40 to 75 bytes).
 */
function copy(buffer: Uint8Array, at: number, bytes: Uint8Array): number {
  const length = bytes.length;
  if (length >= SET_BYTES) {
    buffer.set(bytes, at);
    return at + length;
  }
  for (let i = 0; i < length; i++) buffer[at++] = bytes[i] as number;
  return at;
}

const SET_BYTES = 24;

function ascii(buffer: Uint8Array, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) buffer[at++] = text.charCodeAt(i);
  return at;
}

/** A whole number 0 ≤ v < 2^53: below 10^8 from the tables of 4 digits. */
function digits(buffer: Uint8Array, view: DataView, at: number, v: number): number {
  if (v < 10_000) {
    view.setUint32(at, DIGITS[v] as number, true);
    return at + (DIGIT_LENGTH[v] as number);
  }
  if (v < 100_000_000) {
    const high = Math.floor(v / 10_000);
    view.setUint32(at, DIGITS[high] as number, true);
    at += DIGIT_LENGTH[high] as number;
    view.setUint32(at, PADDED[v - high * 10_000] as number, true);
    return at + 4;
  }
  return ascii(buffer, at, String(v));
}

/** A finite number as String(v) prints it, for a figure published with `decimals` decimals. */
function number(buffer: Uint8Array, view: DataView, at: number, v: number, decimals: number): number {
  const negative = v < 0;
  const magnitude = negative ? -v : v;
  if (decimals === 0) {
    if (!Number.isSafeInteger(magnitude)) return ascii(buffer, at, String(v));
    if (negative) buffer[at++] = 45; // '-'
    return digits(buffer, view, at, magnitude);
  }
  const scale = POWERS[decimals] as number;
  const k = Math.round(magnitude * scale);
  if (!(k < 1e15) || k / scale !== magnitude) return ascii(buffer, at, String(v));
  if (negative) buffer[at++] = 45;
  const whole = Math.floor(k / scale);
  let fraction = k - whole * scale;
  at = digits(buffer, view, at, whole);
  if (fraction === 0) return at;
  let places = decimals;
  while (fraction % 10 === 0) {
    fraction /= 10;
    places--;
  }
  buffer[at++] = 46; // '.'
  // Leading zeros of the fraction, then its digits.
  for (let p = places - 1; p > 0 && fraction < (POWERS[p] as number); p--) buffer[at++] = 48;
  return digits(buffer, view, at, fraction);
}

/**
 * A short key (up to 12 bytes) as three 32-bit words and its length: written by `key` in three stores,
 * whatever its length (the bytes past it are overwritten by what follows).
 */
interface ShortKey {
  w0: number;
  w1: number;
  w2: number;
  length: number;
}

function shortKey(text: string): ShortKey {
  if (text.length > 12 || /[^\x20-\x7e]/.test(text)) throw new Error(`not a short ASCII key: ${text}`);
  return {
    w0: packed(text.slice(0, 4)),
    w1: packed(text.slice(4, 8)),
    w2: packed(text.slice(8, 12)),
    length: text.length,
  };
}

function key(view: DataView, at: number, k: ShortKey): number {
  view.setUint32(at, k.w0, true);
  view.setUint32(at + 4, k.w1, true);
  view.setUint32(at + 8, k.w2, true);
  return at + k.length;
}

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

/**
 * Each area's label as the rows write it, kept between answers (a national answer has 2,240 areas:
 * encoding their labels afresh each time was about 3% of its work); forgotten whole past
 * REMEMBERED_LABELS (user-defined areas can bring any labels).
 */
const jsonLabels = new Map<string, Uint8Array>();
const csvLabels = new Map<string, Uint8Array>();
const REMEMBERED_LABELS = 20_000;

function remembered(kept: Map<string, Uint8Array>, label: string, make: () => Uint8Array): Uint8Array {
  let bytes = kept.get(label);
  if (bytes === undefined) {
    if (kept.size >= REMEMBERED_LABELS) kept.clear();
    bytes = make();
    kept.set(label, bytes);
  }
  return bytes;
}
const dwellLabel = (d: number) => (d < D ? (DWELLING_TYPES[d] as string) : ALL);
const bedroomsLabel = (b: number) => (b < B ? (BEDROOM_VALUES[b] as string) : ALL);

/** `"dwell":"…","nBedrms":"…","nLodged":` for each (d, b), after `{"area":"…",`. */
const JSON_FACTORS = Array.from({ length: D + 1 }, (_, d) =>
  Array.from({ length: B + 1 }, (_, b) =>
    utf8(`"dwell":${JSON.stringify(dwellLabel(d))},"nBedrms":${JSON.stringify(bedroomsLabel(b))},"nLodged":`),
  ),
);
const JSON_FIGURE_KEYS = FIGURE_NAMES.map((name) => shortKey(`,"${name}":`));
const JSON_CLOSED = shortKey(',"nClosed":');
const JSON_CURRENT = shortKey(',"nCurr":');
const JSON_NULL = shortKey('null');
const JSON_END = utf8(']}');
const JSON_SUPPRESSED = utf8(`${FIGURE_NAMES.map((name) => `,"${name}":null`).join('')}}`);

/**
 * Which part of an answer an encoder writes: all of it; the first part (the opening and the first
 * areas' rows, no closing); or the later part (the remaining rows, as if rows came before, and the
 * closing). An answer made on two threads is a first part and a later part joined (`joinParts`).
 */
export type AnswerPartKind = 'whole' | 'first' | 'later';

/** The JSON answer `{areaDefinition, periodCovered, items}`, the same text as statisticsJson. */
export function jsonEncoder(
  areaDefinition: string,
  periodCovered: string,
  part: AnswerPartKind = 'whole',
  into?: Uint8Array,
): AnswerEncoder & PartEncoder {
  const out = bytesFor(part, into);
  if (part !== 'later')
    out.write(utf8(`${JSON.stringify({ areaDefinition, periodCovered }).slice(0, -1)},"items":[`));
  let areaPrefix: Uint8Array = utf8('');
  let first = part !== 'later';
  let rows = 0;
  return {
    area(label) {
      areaPrefix = remembered(jsonLabels, label, () => utf8(`{"area":${JSON.stringify(label)},`));
    },
    row(d, b, nLodged, nClosed, nCurr, figures) {
      rows++;
      const buffer = out.reserve(areaPrefix.length + ROW_BYTES);
      const view = out.view;
      let at = out.at;
      if (!first) buffer[at++] = 44; // ','
      first = false;
      at = copy(buffer, at, areaPrefix);
      at = copy(buffer, at, (JSON_FACTORS[d] as Uint8Array[])[b] as Uint8Array);
      at = number(buffer, view, at, nLodged, 0);
      at = key(view, at, JSON_CLOSED);
      at = number(buffer, view, at, nClosed, 0);
      at = key(view, at, JSON_CURRENT);
      at = number(buffer, view, at, nCurr, 0);
      if (figures === null) at = copy(buffer, at, JSON_SUPPRESSED);
      else {
        for (let f = 0; f < FIGURES; f++) {
          at = key(view, at, JSON_FIGURE_KEYS[f] as ShortKey);
          const x = figures[f] as number;
          // JSON has no NaN or infinities: JSON.stringify writes null for them.
          at = Number.isFinite(x)
            ? number(buffer, view, at, x, FIGURE_DECIMALS[f] as number)
            : key(view, at, JSON_NULL);
        }
        buffer[at++] = 125; // '}'
      }
      out.at = at;
    },
    finish() {
      out.write(JSON_END);
      return out.take();
    },
    finishLent() {
      out.write(JSON_END);
      return out.lend();
    },
    finishPart() {
      if (part === 'later') out.write(JSON_END);
      return { buffer: out.buffer, length: out.at, rows };
    },
  };
}

/** One part of an answer as written: bytes 0 … length − 1 of `buffer`, with `rows` rows. */
export interface AnswerPart {
  buffer: Uint8Array;
  length: number;
  rows: number;
}

export interface PartEncoder extends RowSink {
  /** The part as written (its buffer is the caller's to give to `joinParts`). */
  finishPart(): AnswerPart;
}

/**
 * The output of an encoder: its pool's kept buffer, or `into` (the report thread writes a first part
 * into the buffer the request's thread lends it).
 */
function bytesFor(part: AnswerPartKind, into: Uint8Array | undefined): Bytes {
  if (into !== undefined) return new Bytes(into, null);
  const pool = part === 'whole' ? answers : part === 'first' ? firstParts : laterParts;
  return new Bytes(borrow(pool), pool);
}

/**
 * The answer made of a first part (written by the report thread) and a later part: both copied into
 * an answers' buffer (the later part without its leading comma in JSON when the first part has no
 * rows), lent as `finishLent` lends it; the parts' buffers are kept for the next answer.
 */
export function joinParts(format: AnswerFormat, first: AnswerPart, later: AnswerPart): LentAnswer {
  const skip = format === 'json' && first.rows === 0 && later.rows > 0 ? 1 : 0;
  const length = first.length + later.length - skip;
  let buffer = borrow(answers);
  if (buffer.length < length) {
    giveBack(answers, buffer);
    buffer = plainBytes(Math.max(length, buffer.length * 2));
  }
  buffer.set(first.buffer.subarray(0, first.length), 0);
  buffer.set(later.buffer.subarray(skip, later.length), first.length);
  giveBack(firstParts, first.buffer);
  giveBack(laterParts, later.buffer);
  return lendBuffer(buffer, length);
}

/** A buffer of shared memory to lend the report thread for a first part (back through `joinParts` or `giveBackFirstPartBuffer`). */
export function borrowFirstPartBuffer(): Uint8Array {
  return borrow(firstParts);
}

export function giveBackFirstPartBuffer(buffer: Uint8Array): void {
  giveBack(firstParts, buffer);
}

const CSV_HEADER = utf8(
  `${['area', 'dwell', 'nBedrms', 'nLodged', 'nClosed', 'nCurr', ...FIGURE_NAMES].join(',')}\r\n`,
);
/** `,dwell,nBedrms,` for each (d, b), after the area's field. */
const CSV_FACTORS = Array.from({ length: D + 1 }, (_, d) =>
  Array.from({ length: B + 1 }, (_, b) => utf8(`,${dwellLabel(d)},${bedroomsLabel(b)},`)),
);
const CSV_SUPPRESSED = utf8(`${','.repeat(FIGURES)}\r\n`);

/** RFC 4180 field, as render.ts's csvField writes a label. */
const csvText = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/** The CSV answer, the same text as statisticsCsv (a header even when there are no rows). */
export function csvEncoder(part: AnswerPartKind = 'whole', into?: Uint8Array): AnswerEncoder & PartEncoder {
  const out = bytesFor(part, into);
  if (part !== 'later') out.write(CSV_HEADER);
  let areaField: Uint8Array = utf8('');
  let rows = 0;
  return {
    area(label) {
      areaField = remembered(csvLabels, label, () => utf8(csvText(label)));
    },
    row(d, b, nLodged, nClosed, nCurr, figures) {
      rows++;
      const buffer = out.reserve(areaField.length + ROW_BYTES);
      const view = out.view;
      let at = copy(buffer, out.at, areaField);
      at = copy(buffer, at, (CSV_FACTORS[d] as Uint8Array[])[b] as Uint8Array);
      at = number(buffer, view, at, nLodged, 0);
      buffer[at++] = 44;
      at = number(buffer, view, at, nClosed, 0);
      buffer[at++] = 44;
      at = number(buffer, view, at, nCurr, 0);
      if (figures === null) at = copy(buffer, at, CSV_SUPPRESSED);
      else {
        for (let f = 0; f < FIGURES; f++) {
          buffer[at++] = 44;
          const x = figures[f] as number;
          // render.ts writes null as an empty field and any other number as String does.
          if (!Number.isNaN(x)) at = number(buffer, view, at, x, FIGURE_DECIMALS[f] as number);
        }
        buffer[at++] = 13;
        buffer[at++] = 10;
      }
      out.at = at;
    },
    finish() {
      return out.take();
    },
    finishLent() {
      return out.lend();
    },
    finishPart() {
      return { buffer: out.buffer, length: out.at, rows };
    },
  };
}

export function answerEncoder(
  format: AnswerFormat,
  areaDefinition: string,
  periodCovered: string,
  part: AnswerPartKind = 'whole',
  into?: Uint8Array,
): AnswerEncoder & PartEncoder {
  return format === 'csv' ? csvEncoder(part, into) : jsonEncoder(areaDefinition, periodCovered, part, into);
}
