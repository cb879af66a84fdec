import { endianness } from 'node:os';
import type pg from 'pg';
import type { Geography } from '../domain/areas.ts';
import { CELLS_PER_SA2, type CountBlock, type RentBlock } from '../domain/blocks.ts';
import { BEDROOM_VALUES } from '../domain/factors.ts';
import type { BlockKind } from './aggregates.ts';
import { copyTo } from './copy.ts';

/**
 * Month blocks: one month of one cell table, read in one row and kept in memory in flat typed arrays.
 *
 * A cell is SA2 × dwelling type × bedrooms, numbered `sa2Index · 30 + dwelling · 6 + bedrooms` with the
 * SA2s in the geography's order. Each month is stored packed in market_rent_blocks (see the migration
 * and store/aggregates.ts), so a month of the national register (tens of thousands of histogram
 * entries) crosses the wire as one value instead of tens of thousands of rows; the entries arrive
 * sorted by cell, then rent.
 */
/** Maps SA2 codes to their index in the geography, through a flat array indexed by code. */
export class Sa2Lookup {
  private readonly indexByCode: Int32Array;

  constructor(geography: Geography) {
    const max = geography.sa2Codes.reduce((m, c) => Math.max(m, Number(c)), 0);
    this.indexByCode = new Int32Array(max + 1).fill(-1);
    geography.sa2Codes.forEach((code, i) => {
      this.indexByCode[Number(code)] = i;
    });
  }

  /** Cell number of a packed key `sa2 · 64 + dwelling · 8 + bedrooms`; −1 for an SA2 not in the geography. */
  cellOfKey(key: number): number {
    const sa2 = this.indexByCode[key >>> 6];
    if (sa2 === undefined || sa2 < 0) return -1;
    return sa2 * CELLS_PER_SA2 + ((key >>> 3) & 7) * BEDROOM_VALUES.length + (key & 7);
  }

  cellOf(sa2Code: number, dwelling: number, bedrooms: number): number {
    return this.cellOfKey(sa2Code * 64 + dwelling * 8 + bedrooms);
  }
}

/**
 * Reads the given months of one kind; months without rows are absent from the map. The blocks come
 * through `COPY … TO STDOUT (FORMAT binary)`: node-postgres would bring a bytea as hex text, twice its
 * size, and decode it; binary COPY hands over the bytes themselves.
 */
export async function readBlocks(
  pool: pg.Pool,
  kind: BlockKind,
  months: readonly string[],
  lookup: Sa2Lookup,
): Promise<Map<string, RentBlock | CountBlock>> {
  const dates = months.map((m) => {
    if (!/^\d{4}-\d{2}$/.test(m)) throw new RangeError(`readBlocks: month "${m}" is not yyyy-mm`);
    return `'${m}-01'`;
  });
  const reader = new BlockCopyReader(kind, lookup);
  const client = await pool.connect();
  try {
    await copyTo(
      client,
      `COPY (SELECT to_char(month, 'YYYY-MM'), data FROM market_rent_blocks
         WHERE kind = '${kind}' AND month IN (${dates.join(', ')})) TO STDOUT (FORMAT binary)`,
      (chunk) => reader.push(chunk),
    );
  } finally {
    client.release();
  }
  return reader.finish();
}

/**
 * The month blocks of one binary COPY of (month, data) rows, decoded row by row as the chunks arrive:
 * a month's block is decoded while the next ones are still on their way (the database sends on its own
 * core), instead of all of them after the last byte. A row's bytes are joined once, when it is whole.
 */
export class BlockCopyReader {
  private readonly blocks = new Map<string, RentBlock | CountBlock>();
  private parts: Buffer[] = [];
  private length = 0;
  private headerRead = false;
  private ended = false;

  constructor(
    private readonly kind: BlockKind,
    private readonly lookup: Sa2Lookup,
  ) {}

  push(chunk: Buffer): void {
    this.parts.push(chunk);
    this.length += chunk.length;
    this.drain();
  }

  /** The blocks read; throws if the COPY ended before its trailer. */
  finish(): Map<string, RentBlock | CountBlock> {
    if (!this.ended) throw new Error('binary COPY ended early');
    return this.blocks;
  }

  /** Whether the first `count` bytes are there; if so, joined into the first part. */
  private have(count: number): boolean {
    if (this.length < count) return false;
    let first = this.parts[0]!;
    while (first.length < count) {
      // Join parts until the first holds `count` bytes: at most what a row or a header needs.
      let joined = 1;
      let size = first.length;
      while (size < count) size += this.parts[joined++]!.length;
      first = Buffer.concat(this.parts.slice(0, joined), size);
      this.parts.splice(0, joined, first);
    }
    return true;
  }

  private consume(count: number): void {
    const first = this.parts[0]!;
    if (first.length === count) this.parts.shift();
    else this.parts[0] = first.subarray(count);
    this.length -= count;
  }

  private drain(): void {
    if (!this.headerRead) {
      // "PGCOPY\n\xff\r\n\0", the flags, then the header extension's length and bytes.
      if (!this.have(19)) return;
      const header = 19 + this.parts[0]!.readInt32BE(15);
      if (!this.have(header)) return;
      this.consume(header);
      this.headerRead = true;
    }
    while (!this.ended && this.have(2)) {
      if (this.parts[0]!.readInt16BE(0) === -1) {
        this.consume(2);
        this.ended = true;
        return;
      }
      if (!this.have(6)) return;
      const textLength = this.parts[0]!.readInt32BE(2);
      if (!this.have(10 + textLength)) return;
      const dataLength = this.parts[0]!.readInt32BE(6 + textLength);
      const rowLength = 10 + textLength + dataLength;
      if (!this.have(rowLength)) return;
      const row = this.parts[0]!;
      const month = row.toString('utf8', 6, 6 + textLength);
      const data = row.subarray(10 + textLength, rowLength);
      this.blocks.set(
        month,
        this.kind === 'rent' ? decodeRent(data, this.lookup) : decodeCounts(data, this.lookup),
      );
      this.consume(rowLength);
    }
  }
}

/**
 * A binary COPY of (month, data) rows as PostgreSQL sends it: the signature, flags, a header extension
 * of `extension` bytes, the tuples, the trailer. For the warm-up's made-up blocks and for tests.
 */
export function binaryCopy(rows: readonly [string, Buffer][], extension = 0): Buffer {
  const header = Buffer.alloc(19 + extension);
  header.write('PGCOPY\n\xff\r\n\0', 0, 'latin1');
  header.writeInt32BE(extension, 15);
  const tuples = rows.map(([month, data]) => {
    const text = Buffer.from(month);
    const head = Buffer.alloc(10 + text.length);
    head.writeInt16BE(2, 0);
    head.writeInt32BE(text.length, 2);
    text.copy(head, 6);
    head.writeInt32BE(data.length, 6 + text.length);
    return Buffer.concat([head, data]);
  });
  const trailer = Buffer.alloc(2);
  trailer.writeInt16BE(-1, 0);
  return Buffer.concat([header, ...tuples, trailer]);
}

/**
 * Decodes made-up blocks of both shapes (a binary COPY built here: 24 months of 5,000 entries), so
 * V8 has compiled the decoding before the first query reads real ones (engine/warm-up.ts does the
 * same for the statistics). Returns the entries decoded.
 */
export function warmUpDecoding(lookup: Sa2Lookup, sa2Codes: readonly string[]): number {
  const entries = 5_000;
  const rent = Buffer.alloc(4 + entries * 20);
  const counts = Buffer.alloc(4 + entries * 8);
  rent.writeInt32BE(entries, 0);
  counts.writeInt32BE(entries, 0);
  for (let i = 0; i < entries; i++) {
    // Packed keys `sa2 · 64 + dwelling · 8 + bedrooms`; one in ten of an SA2 not in the geography.
    const code = i % 10 === 0 ? 1 : Number(sa2Codes[(i * 37) % Math.max(1, sa2Codes.length)] ?? 1);
    const key = code * 64 + (i % 5) * 8 + (i % 6);
    rent.writeInt32BE(key, 4 + 4 * i);
    rent.writeInt32BE(300 + (i % 40) * 10, 4 + 4 * entries + 4 * i);
    rent.writeInt32BE(1 + (i % 3), 4 + 8 * entries + 4 * i);
    rent.writeDoubleBE(1200 * (1 + (i % 3)), 4 + 12 * entries + 8 * i);
    counts.writeInt32BE(key, 4 + 4 * i);
    counts.writeInt32BE(1 + (i % 4), 4 + 4 * entries + 4 * i);
  }
  // 24 months of the same block, as PostgreSQL would send them.
  const copyOf = (data: Buffer) =>
    binaryCopy(
      Array.from({ length: 24 }, (_, m): [string, Buffer] => [
        `${2020 + Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`,
        data,
      ]),
    );
  let decoded = 0;
  for (const [kind, data] of [
    ['rent', rent],
    ['closed', counts],
  ] as const) {
    // Fed in 64 KiB chunks, as the database sends them, so the row joining is warmed up too.
    const reader = new BlockCopyReader(kind, lookup);
    const copy = copyOf(data);
    for (let at = 0; at < copy.length; at += 65_536) reader.push(copy.subarray(at, at + 65_536));
    for (const block of reader.finish().values()) decoded += block.cells.length;
  }
  return decoded;
}

/**
 * A big-endian column of `count` values of `width` bytes starting at `offset`, copied once into memory
 * of its own (aligned, for the typed array over it) and byte-swapped there in native code. Shared
 * memory: the report thread reads the same blocks (engine/report-thread.ts), without a copy.
 */
function column(data: Buffer, offset: number, count: number, width: 4 | 8): SharedArrayBuffer {
  const bytes = new Uint8Array(new SharedArrayBuffer(count * width));
  bytes.set(data.subarray(offset, offset + count * width));
  if (LITTLE_ENDIAN) {
    const view = Buffer.from(bytes.buffer, 0, bytes.length);
    if (width === 4) view.swap32();
    else view.swap64();
  }
  return bytes.buffer;
}

const LITTLE_ENDIAN = endianness() === 'LE';

/** The packed keys of a block turned, in place, into the cell numbers of the geography. */
function cellsOf(keys: Int32Array, lookup: Sa2Lookup): Int32Array {
  for (let i = 0; i < keys.length; i++) keys[i] = lookup.cellOfKey(keys[i] as number);
  return keys;
}

function decodeRent(data: Buffer, lookup: Sa2Lookup): RentBlock {
  const n = data.readInt32BE(0);
  return {
    cells: cellsOf(new Int32Array(column(data, 4, n, 4)), lookup),
    rents: new Int32Array(column(data, 4 + 4 * n, n, 4)),
    counts: new Int32Array(column(data, 4 + 8 * n, n, 4)),
    bondSums: new Float64Array(column(data, 4 + 12 * n, n, 8)),
  };
}

function decodeCounts(data: Buffer, lookup: Sa2Lookup): CountBlock {
  const n = data.readInt32BE(0);
  return {
    cells: cellsOf(new Int32Array(column(data, 4, n, 4)), lookup),
    counts: new Int32Array(column(data, 4 + 4 * n, n, 4)),
  };
}

export const EMPTY_RENT_BLOCK: RentBlock = {
  cells: new Int32Array(0),
  rents: new Int32Array(0),
  counts: new Int32Array(0),
  bondSums: new Float64Array(0),
};
export const EMPTY_COUNT_BLOCK: CountBlock = { cells: new Int32Array(0), counts: new Int32Array(0) };

/**
 * Months of one kind read in one COPY (the kinds are read in parallel): a national query's 24 in one.
 * Groups of 8 in parallel were slower for the first query after a start (85 against 71 ms for its 49
 * blocks, medians of 5): each group needs a connection of its own, and new connections cost more than
 * the overlap of sending and decoding gains.
 */
const MONTHS_PER_READ = 24;

const empty = (kind: BlockKind): RentBlock | CountBlock =>
  kind === 'rent' ? EMPTY_RENT_BLOCK : EMPTY_COUNT_BLOCK;

function sizeOf(block: RentBlock | CountBlock): number {
  return 'rents' in block ? block.cells.length * 20 : block.cells.length * 8;
}

/**
 * Month blocks kept in memory, least recently used first out, up to `maxBytes`. The whole cache belongs
 * to one revision of the data: when the database's revision moves (an import, a new seed), every block
 * is dropped. Concurrent requests for the same missing blocks share one read.
 */
export class BlockCache {
  private revision: number | undefined;
  /** Moves on at every `forget`: a read begun before it keeps nothing. */
  private epoch = 0;
  private readonly blocks = new Map<string, RentBlock | CountBlock>();
  private readonly pending = new Map<string, Promise<Map<string, RentBlock | CountBlock>>>();
  private bytes = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly lookup: Sa2Lookup,
    private readonly maxBytes = 256 * 1024 * 1024,
  ) {}

  get size(): { blocks: number; bytes: number } {
    return { blocks: this.blocks.size, bytes: this.bytes };
  }

  /**
   * Drops every block, whatever its revision: the database's content was replaced (a sandbox reset or
   * restore), so a revision number may come back with other data behind it.
   */
  forget(): void {
    this.epoch++;
    this.revision = undefined;
    this.blocks.clear();
    this.pending.clear();
    this.bytes = 0;
  }

  async rent(revision: number, months: readonly string[]): Promise<RentBlock[]> {
    const found = await this.get('rent', revision, months);
    return found.map((b) => (b ?? EMPTY_RENT_BLOCK) as RentBlock);
  }

  async counts(
    kind: 'closed' | 'active',
    revision: number,
    months: readonly string[],
  ): Promise<CountBlock[]> {
    const found = await this.get(kind, revision, months);
    return found.map((b) => (b ?? EMPTY_COUNT_BLOCK) as CountBlock);
  }

  private async get(
    kind: BlockKind,
    revision: number,
    months: readonly string[],
  ): Promise<(RentBlock | CountBlock | null)[]> {
    if (revision !== this.revision) {
      this.blocks.clear();
      this.pending.clear();
      this.bytes = 0;
      this.revision = revision;
    }
    const key = (month: string) => `${kind}:${month}`;
    // Take what is cached now, before any await can evict it; read the rest (or join a read under way).
    const sources = months.map((month) => {
      const block = this.blocks.get(key(month));
      if (block) {
        // Re-insert: a Map iterates in insertion order, so the first entries are the least recently used.
        this.blocks.delete(key(month));
        this.blocks.set(key(month), block);
      }
      return block;
    });
    const missing = months.filter((m, i) => sources[i] === undefined && !this.pending.has(key(m)));
    // A few months per read, the reads in parallel: the database sends and this process decodes
    // several at once, on as many connections (the first query after a start reads some 49 blocks).
    const epoch = this.epoch;
    for (let at = 0; at < missing.length; at += MONTHS_PER_READ) {
      const group = missing.slice(at, at + MONTHS_PER_READ);
      const read = readBlocks(this.pool, kind, group, this.lookup).then((found) => {
        if (this.revision === revision && this.epoch === epoch) {
          for (const month of group) this.put(key(month), found.get(month) ?? empty(kind));
        }
        return found;
      });
      for (const month of group) this.pending.set(key(month), read);
      const forget = () => {
        for (const month of group) if (this.pending.get(key(month)) === read) this.pending.delete(key(month));
      };
      read.then(forget, forget);
    }
    return Promise.all(
      months.map(async (month, i) => {
        const cached = sources[i];
        if (cached) return cached;
        const found = await this.pending.get(key(month));
        return (
          found?.get(month) ?? (this.blocks.get(key(month)) as RentBlock | CountBlock | undefined) ?? null
        );
      }),
    );
  }

  private put(key: string, block: RentBlock | CountBlock): void {
    const previous = this.blocks.get(key);
    if (previous) this.bytes -= sizeOf(previous);
    this.blocks.set(key, block);
    this.bytes += sizeOf(block);
    for (const [oldest, old] of this.blocks) {
      if (this.bytes <= this.maxBytes || oldest === key) break;
      this.blocks.delete(oldest);
      this.bytes -= sizeOf(old);
    }
  }
}
