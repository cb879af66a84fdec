/**
 * Cases read recently, kept in memory per database with what their reads send (the XML and JSON
 * documents, made once), so reading a case that has not changed costs no query.
 *
 * An entry is trusted only while this process listens for changes on that database:
 *
 * - Every change to a case sends a notice on `CASE_CHANNEL` inside its transaction (`noticeCaseChange`):
 *   PostgreSQL delivers it at commit to every process listening on the database, and never for a change
 *   that rolled back. The writer then drops the case from its own process's cache at once (`drop`) and
 *   waits, briefly and bounded, for its own notice to come back (`echo`), so by the time a write is
 *   answered the notice has been sent to every listener.
 * - A notice drops that case; `*` drops everything.
 * - While the listening connection is down (not yet connected, lost, reconnecting) nothing is served
 *   from memory or kept, and the cache starts empty once listening again.
 * - A read under way when any notice arrives (or when listening began) is answered but not kept: its row
 *   may predate the change (`mark()` / `keep()`).
 * - At most `size` cases are kept; the least recently read is dropped first.
 *
 * The SOAP operations that change cases send the same notice.
 */
import type pg from 'pg';
import { ListenedEntries, NoticeListener } from '../../../platform/db/notice-listener.ts';
import type { CaseRecord } from '../domain/model.ts';
import type { CaseKind } from '../domain/renewals.ts';

export const CASE_CHANNEL = 'rsg_iponz_cases';
export const CASE_CACHE_SIZE = 5_000;
const ECHO_WAIT_MS = 200;

export const caseKey = (kind: CaseKind, caseNumber: number): string => `${kind}:${caseNumber}`;

/** A kept case, with the documents made from it (each made on first use). */
export interface CachedCase {
  record: CaseRecord;
  documents: Map<string, string>;
}

/** Sends the change notice of a case in the writer's transaction (delivered at its commit). */
export async function noticeCaseChange(tx: pg.PoolClient, kind: CaseKind, caseNumber: number): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [CASE_CHANNEL, caseKey(kind, caseNumber)]);
}

export class CaseCache {
  private readonly entries: ListenedEntries<CachedCase>;
  private readonly listener: NoticeListener;
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(url: string, size = CASE_CACHE_SIZE) {
    this.listener = new NoticeListener({
      url,
      channel: CASE_CHANNEL,
      applicationName: 'rsg-iponz-case-cache',
      onNotice: (payload) => {
        if (!payload) return;
        if (payload === '*') this.entries.clear();
        else this.entries.delete(payload);
        const waiting = this.waiters.get(payload);
        if (waiting) for (const done of [...waiting]) done();
      },
      onReset: () => this.entries.clear(),
    });
    this.entries = new ListenedEntries(this.listener, size);
  }

  /** Whether entries are being served (the listening connection is up). */
  get serving(): boolean {
    return this.listener.listening;
  }

  /** The kept case, if it may be trusted. Opens the listening connection on first use. */
  get(key: string): CachedCase | undefined {
    return this.entries.get(key);
  }

  /** The mark to give `keep` for a read starting now. */
  mark(): number {
    return this.listener.mark();
  }

  /** Keeps a case read since `mark`, unless a notice came meanwhile or nothing is being served. */
  keep(key: string, record: CaseRecord, mark: number): CachedCase {
    const entry: CachedCase = { record, documents: new Map() };
    this.entries.keep(key, entry, mark);
    return entry;
  }

  /** Drops a case in this process at once (after the writer's commit). */
  drop(key: string): void {
    this.listener.bump();
    this.entries.delete(key);
  }

  /** Waits, at most a moment, for the notice of `key` to come back to this process. */
  echo(key: string): Promise<void> {
    if (!this.listener.listening) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        const set = this.waiters.get(key);
        set?.delete(done);
        if (set?.size === 0) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, ECHO_WAIT_MS);
      const set = this.waiters.get(key) ?? new Set<() => void>();
      this.waiters.set(key, set);
      set.add(done);
    });
  }

  close(): Promise<void> {
    return this.listener.close();
  }
}
