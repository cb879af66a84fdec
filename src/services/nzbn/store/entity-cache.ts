/**
 * Recently read entities, kept in memory per database, so reading an entity that has not changed costs
 * no query: the stored version, the ETags of its two views and the bytes of each view as sent.
 *
 * An entry is trusted only while this process listens for changes on that database, on the platform's
 * `NoticeListener` (platform/db/notice-listener.ts, as the IP office's case cache, the offers register's
 * answer cache and the billing payer cache):
 *
 * - Every change goes through `updateEntity` (store/update.ts), which sends a notice on
 *   `ENTITY_CHANNEL` inside its transaction — PostgreSQL delivers it at commit, to every process
 *   listening on that database, and never for a change that rolled back — and after its commit drops the
 *   entity from every cache of its own process at once (`entityChange`), so a process reads its own
 *   writes. It then waits (briefly, bounded) for its own notice to come back, so by the time a write is
 *   answered the database has already sent the notice to every listener.
 * - A notice drops that entity; `*` drops everything.
 * - While the listening connection is down (not yet connected, lost, reconnecting) nothing is served from
 *   memory or kept: every read goes to the database, and the cache starts empty once listening again
 *   (it is cleared when the connection is lost and again when listening begins). A lost connection is
 *   tried again every second; it never ends the process.
 * - A read that was under way when a notice arrived (or when listening began or ended) is answered but
 *   not kept: its row may predate the change (`mark()` / `keep()`).
 * - An entity is kept from its second read on (recently-seen.ts); the oldest is dropped first unless it
 *   was read again meanwhile (then it goes round once more).
 * - It also knows which generated entities are seeded and unchanged since (one bit each, loaded once
 *   listening, cleared by the same notices): their stored version is made by the service's
 *   `DocumentSource` alone (entities.ts `unchangedGeneratedEntity`), so reading one costs no query either.
 *
 * The listening connection is opened on first use and closed with the last route plugin that opened the
 * cache (`openEntityCache`). Inserts need no notice: a business number not found is never kept.
 */
import { Buffer } from 'node:buffer';
import type pg from 'pg';
import { NoticeListener } from '../../../platform/db/notice-listener.ts';
import { publicView } from '../domain/privacy.ts';
import type { Entity } from '../domain/schema.ts';
import type { DocumentSource } from './document-source.ts';
import type { StoredEntity } from './entities.ts';
import { RecentlySeen } from './recently-seen.ts';

export const ENTITY_CHANNEL = 'rsg_nzbn_entities';
/** Entries per database: the bytes of one or two views each, about 5–8 kB a view. */
export const ENTITY_CACHE_SIZE = 2_000;
/** How long a writer waits for its own notice before answering anyway. */
const ECHO_WAIT_MS = 200;
/** The listening connection's `application_name` (pg_stat_activity). */
export const LISTENER_NAME = 'rsg-nzbn-entity-cache';

/**
 * One stored version, frozen, with what a read sends for it made once: the ETag of each view and, from
 * the second time a view is sent, its bytes (a version read once, as most are in a large register, is
 * sent as the text it came as).
 */
export class CachedEntity {
  readonly stored: Readonly<StoredEntity>;
  /** The authorised view's ETag header (the whole record). */
  readonly etag: string;
  /** The public view's ETag header: `"<hash>-p"` when the public view hides something. */
  readonly publicEtag: string;
  /** Read from the cache since it was kept (the cache's eviction order). */
  readAgain = false;
  /** The stored document's bytes once it has been sent twice (`true`: sent once). */
  private whole: Buffer | boolean = false;
  /** The public view's text once made, its bytes once sent twice. */
  private visible: string | Buffer | undefined;

  constructor(stored: StoredEntity) {
    this.stored = Object.freeze(stored);
    this.etag = `"${stored.etag}"`;
    this.publicEtag = stored.hidesItems ? `"${stored.etag}-p"` : this.etag;
  }

  /** The ETag header of the view this caller gets (support.ts `viewEtag`). */
  viewEtag(authorised: boolean): string {
    return authorised ? this.etag : this.publicEtag;
  }

  /**
   * The view this caller gets, as sent: the stored document itself, or the public view made from it
   * (support.ts `entityView`), written as JSON.
   */
  body(authorised: boolean): string | Buffer {
    if (authorised || !this.stored.hidesItems) {
      if (typeof this.whole === 'object') return this.whole;
      if (!this.whole) {
        this.whole = true;
        return this.stored.document;
      }
      this.whole = Buffer.from(this.stored.document, 'utf8');
      return this.whole;
    }
    if (this.visible === undefined) {
      const text = JSON.stringify(publicView(JSON.parse(this.stored.document) as Entity));
      this.visible = text;
      return text;
    }
    if (typeof this.visible === 'string') this.visible = Buffer.from(this.visible, 'utf8');
    return this.visible;
  }
}

export class EntityCache {
  private readonly entries = new Map<string, CachedEntity>();
  /** Entities are kept from their second read on (recently-seen.ts says why). */
  private readonly seen: RecentlySeen<string>;
  /** The listening connection; its generation moves on every notice, local change and (re)start. */
  private readonly listener: NoticeListener;
  /** Moves each time listening begins or ends: a load of `unchanged` begun before is not kept. */
  private session = 0;
  /** Writers of this process waiting for their own notice, by its payload. */
  private readonly echoes = new Map<string, () => void>();
  /**
   * Generated entities seeded and not changed since, one bit per generator index (loaded once listening;
   * undefined until then): their rows hold nothing the generator does not make again.
   */
  private unchanged: Uint8Array | undefined;
  /** While `unchanged` loads, the business numbers noticed meanwhile (applied once it has). */
  private noticed: string[] | undefined;

  constructor(
    readonly url: string,
    /** What the generated entities' documents and numbers are (the service's, wired at start). */
    readonly documents: DocumentSource,
    private readonly capacity = ENTITY_CACHE_SIZE,
  ) {
    this.seen = new RecentlySeen(capacity * 4);
    this.listener = new NoticeListener({
      url,
      channel: ENTITY_CHANNEL,
      applicationName: LISTENER_NAME,
      onNotice: (payload) => this.notice(payload),
      // Listening began or ended: rows read before may predate a change whose notice never reached us.
      onReset: () => {
        this.session++;
        this.drop('*');
        this.releaseWriters();
      },
      onListening: () => void this.loadUnchanged(),
    });
  }

  /** Whether entries are being served (the listening connection is up). */
  get listening(): boolean {
    return this.listener.listening;
  }

  /** The entry for `nzbn`, if it is kept and may be trusted. Opens the listening connection if needed. */
  get(nzbn: string): CachedEntity | undefined {
    if (!this.listener.listening) {
      this.listener.open();
      return undefined;
    }
    const hit = this.entries.get(nzbn);
    if (hit !== undefined) hit.readAgain = true;
    return hit;
  }

  /**
   * The generator index of `nzbn` when it is a generated entity that is seeded and has not changed since
   * (entities.ts `unchangedGeneratedEntity` makes its stored version without reading the row).
   */
  unchangedIndex(nzbn: string): number | undefined {
    const bits = this.unchanged;
    if (!this.listener.listening || bits === undefined) return undefined;
    const index = this.documents.indexOf(nzbn);
    if (index === undefined || index >> 3 >= bits.length) return undefined;
    return (bits[index >> 3]! & (1 << (index & 7))) !== 0 ? index : undefined;
  }

  /** Taken before reading a row from the database; `keep` keeps the row only if nothing moved since. */
  mark(): number {
    return this.listener.mark();
  }

  keep(mark: number, entry: CachedEntity): void {
    if (!this.listener.current(mark) || !this.seen.again(entry.stored.nzbn)) return;
    this.entries.delete(entry.stored.nzbn);
    this.entries.set(entry.stored.nzbn, entry);
    // Oldest first, but one read again since it was kept (or last spared) gets another round.
    while (this.entries.size > this.capacity) {
      const [nzbn, oldest] = this.entries.entries().next().value as [string, CachedEntity];
      this.entries.delete(nzbn);
      if (oldest.readAgain) {
        oldest.readAgain = false;
        this.entries.set(nzbn, oldest);
      }
    }
  }

  /** `nzbn` changed in this process (or `*`: anything may have): forget it; reads under way keep nothing. */
  forget(nzbn: string): void {
    this.listener.bump();
    this.drop(nzbn);
  }

  private drop(nzbn: string): void {
    this.noticed?.push(nzbn);
    if (nzbn === '*') {
      this.entries.clear();
      this.unchanged = undefined;
    } else {
      this.entries.delete(nzbn);
      this.changed(nzbn);
    }
  }

  private changed(nzbn: string): void {
    const index = this.unchanged && this.documents.indexOf(nzbn);
    if (index !== undefined && index >> 3 < this.unchanged!.length) {
      this.unchanged![index >> 3]! &= ~(1 << (index & 7));
    }
  }

  /**
   * Which generated entities are unchanged: every index of every seeded chunk (a chunk's rows commit with
   * its row in `nzbn_seed_chunks`, `entities` of them from `chunk × entities`), less those with a
   * replaced version in `nzbn_entity_versions` (updateEntity keeps one on every change) and those
   * noticed since LISTEN. Run on the listening connection, after LISTEN, so no change is missed; a load
   * overtaken by a loss of the connection (or by `*`) is not kept.
   */
  private async loadUnchanged(): Promise<void> {
    const noticed: string[] = [];
    const session = this.session;
    this.noticed = noticed;
    try {
      const chunks = await this.listener.query<{ chunk: number; entities: number }>(
        'SELECT chunk, entities FROM nzbn_seed_chunks WHERE seed = $1',
        [this.documents.seed],
      );
      const versions = await this.listener.query<{ nzbn: string }>(
        'SELECT DISTINCT nzbn FROM nzbn_entity_versions',
      );
      if (session !== this.session || noticed.includes('*')) return;
      let end = 0;
      for (const { chunk, entities } of chunks.rows) end = Math.max(end, (chunk + 1) * entities);
      const bits = new Uint8Array(Math.ceil(end / 8));
      for (const { chunk, entities } of chunks.rows) {
        for (let i = chunk * entities; i < (chunk + 1) * entities; i++) bits[i >> 3]! |= 1 << (i & 7);
      }
      this.unchanged = bits;
      for (const { nzbn } of versions.rows) this.changed(nzbn);
      for (const nzbn of noticed) this.changed(nzbn);
    } catch {
      // Not known: every read asks the database.
    } finally {
      if (this.noticed === noticed) this.noticed = undefined;
    }
  }

  /**
   * Called before a change commits, with the payload of its notice: after the commit, `wait()` resolves
   * when that notice has come back to this process (at once when not listening, at the latest after a
   * short while).
   */
  expectEcho(payload: string): { wait(): Promise<void>; cancel(): void } {
    if (!this.listener.listening) return { wait: async () => {}, cancel: () => {} };
    let done: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.echoes.set(payload, done);
    const cancel = () => {
      this.echoes.delete(payload);
      done();
    };
    return {
      wait: async () => {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          arrived,
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, ECHO_WAIT_MS);
          }),
        ]);
        clearTimeout(timer);
        cancel();
      },
      cancel,
    };
  }

  private notice(payload: string): void {
    // `<nzbn> <token>` from updateEntity; anything else drops everything (and the set of unchanged
    // entities is read again).
    const space = payload.indexOf(' ');
    const nzbn = space > 0 ? payload.slice(0, space) : '*';
    this.drop(nzbn);
    if (nzbn === '*' && this.listener.listening) void this.loadUnchanged();
    const writer = this.echoes.get(payload);
    if (writer) {
      this.echoes.delete(payload);
      writer();
    }
  }

  private releaseWriters(): void {
    for (const writer of this.echoes.values()) writer();
    this.echoes.clear();
  }

  close(): Promise<void> {
    return this.listener.close();
  }
}

/** The caches of this process by database address, with how many route plugins hold each. */
const caches = new Map<string, { cache: EntityCache; holders: number }>();

const urlOf = (pool: pg.Pool): string | undefined => pool.options.connectionString;

/**
 * Opens (or shares) the cache of a database, whose generated entities `documents` makes; close it with
 * the returned function.
 */
export function openEntityCache(
  url: string,
  documents: DocumentSource,
): { cache: EntityCache; close(): Promise<void> } {
  let held = caches.get(url);
  if (!held) {
    held = { cache: new EntityCache(url, documents), holders: 0 };
    caches.set(url, held);
  }
  held.holders++;
  const { cache } = held;
  let closed = false;
  return {
    cache,
    async close() {
      if (closed) return;
      closed = true;
      const current = caches.get(url);
      if (current?.cache !== cache || --current.holders > 0) return;
      caches.delete(url);
      await cache.close();
    },
  };
}

/** The open cache of the database `pool` reads, if any. */
export function entityCacheOf(pool: pg.Pool): EntityCache | undefined {
  const url = urlOf(pool);
  return url === undefined ? undefined : caches.get(url)?.cache;
}

let changes = 0;
const TOKEN_PREFIX = `${process.pid.toString(36)}.${Math.floor(Math.random() * 2 ** 31).toString(36)}.`;

/**
 * A change to `nzbn` in `client`'s transaction: `notify()` sends its notice (delivered at commit, to
 * every process listening on the database); after the commit, `committed()` drops the entity from every
 * cache of this process and waits for the notice to come back; on a rollback, `abandoned()`.
 */
export function entityChange(
  pool: pg.Pool,
  nzbn: string,
): { notify(client: pg.PoolClient): Promise<void>; committed(): Promise<void>; abandoned(): void } {
  const payload = `${nzbn} ${TOKEN_PREFIX}${(++changes).toString(36)}`;
  let echo: { wait(): Promise<void>; cancel(): void } | undefined;
  return {
    async notify(client) {
      echo = entityCacheOf(pool)?.expectEcho(payload);
      await client.query('SELECT pg_notify($1, $2)', [ENTITY_CHANNEL, payload]);
    },
    async committed() {
      // Another pool with another address may reach the same database: forgetting is cheap.
      for (const { cache } of caches.values()) cache.forget(nzbn);
      await echo?.wait();
    },
    abandoned() {
      echo?.cancel();
    },
  };
}
