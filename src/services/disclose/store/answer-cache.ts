/**
 * Rendered answers of offer and scheme detail, kept in memory per database, so reading a record that
 * has not changed costs no query, no JSON building and no hashing: the text, its ETag and its
 * Last-Modified are sent as they were made. The same pattern as the IP office's case cache
 * (`services/iponz/store/case-cache.ts`), with one difference: the notices come from triggers
 * (migration 002), so every writer — the filings, the seed, an operator's SQL — invalidates.
 *
 * An entry is trusted only while this process listens for changes on that database:
 *
 * - Every statement writing a table a detail answer is made from sends `*` on `RECORD_CHANNEL`, which
 *   PostgreSQL delivers at commit to every listening process (never for a rolled-back change). A
 *   notice drops every kept answer (writes are rare beside reads; one notice keeps it simple and exact:
 *   a filing changes the record's Last-Modified, its versions, counts and links).
 * - A writer of this process drops everything at once after its commit (`drop`) and waits, briefly and
 *   bounded, for its notice to come back (`echo`), so by the time its write is answered the notice has
 *   been sent to every listener.
 * - While the listening connection is down (not yet connected, lost, reconnecting) nothing is served
 *   from memory or kept, and the cache starts empty once listening again.
 * - An answer made while any notice arrived (or while listening began) is sent but not kept: its rows
 *   may predate the change (`mark()` / `keep()`).
 * - At most `size` answers are kept (`RSG_DISCLOSE_ANSWER_CACHE`; 0 keeps none and opens no connection);
 *   the least recently read is dropped first. The key holds the
 *   origin the answer's `registerUrl` was made for (scheme and Host), so no answer is sent to another.
 */
import { ListenedEntries, NoticeListener } from '../../../platform/db/notice-listener.ts';

export const RECORD_CHANNEL = 'rsg_disclose_records';
export const ANSWER_CACHE_SIZE = 2_000;
const ECHO_WAIT_MS = 200;

/** A detail answer as sent: its JSON text, strong ETag (over the text) and Last-Modified. */
export interface RenderedAnswer {
  text: string;
  etag: string;
  lastModified: Date;
}

export class AnswerCache {
  private readonly entries: ListenedEntries<RenderedAnswer>;
  private readonly listener: NoticeListener;
  private readonly waiters = new Set<() => void>();
  private noticeCount = 0;

  constructor(
    url: string,
    private readonly size = ANSWER_CACHE_SIZE,
  ) {
    this.listener = new NoticeListener({
      url,
      channel: RECORD_CHANNEL,
      applicationName: 'rsg-disclose-answers',
      onNotice: () => {
        this.noticeCount++;
        this.entries.clear();
        for (const done of [...this.waiters]) done();
      },
      onReset: () => this.entries.clear(),
    });
    this.entries = new ListenedEntries(this.listener, size);
  }

  /** Whether answers are being served (the listening connection is up). */
  get serving(): boolean {
    return this.listener.listening;
  }

  /** How many answers are kept (for tests). */
  get kept(): number {
    return this.entries.size;
  }

  /** The kept answer, if it may be trusted. Opens the listening connection on first use. */
  get(key: string): RenderedAnswer | undefined {
    return this.size === 0 ? undefined : this.entries.get(key);
  }

  /** The mark to give `keep` for an answer whose reads start now. */
  mark(): number {
    return this.listener.mark();
  }

  /** Keeps an answer made since `mark`, unless a notice came meanwhile or nothing is being served. */
  keep(key: string, answer: RenderedAnswer, mark: number): RenderedAnswer {
    this.entries.keep(key, answer, mark);
    return answer;
  }

  /** Drops every answer in this process at once (after a writer's commit). */
  drop(): void {
    this.listener.bump();
    this.entries.clear();
  }

  /** How many notices have come so far: give it to `echo` before a write. */
  notices(): number {
    return this.noticeCount;
  }

  /**
   * Waits, at most a moment, for a notice after the `since`-th to come back to this process (at once
   * when one has come already: the notice can beat the writer's own commit answer).
   */
  echo(since: number): Promise<void> {
    if (!this.listener.listening || this.noticeCount > since) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ECHO_WAIT_MS);
      this.waiters.add(done);
    });
  }

  close(): Promise<void> {
    return this.listener.close();
  }
}
