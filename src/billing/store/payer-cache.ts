/**
 * The payer rule's reading of the gateway database, kept in memory per process: for a user and an
 * environment, the user's organisations in the payer rule's order (role, then the oldest membership). A
 * fee-bearing call whose payer is in memory asks the gateway database nothing.
 *
 * An entry is trusted only while this process listens for membership changes (`platform/db/notice-listener.ts`,
 * as the IP office's case cache and the offers register's answer cache):
 *
 * - Every change to `memberships` sends the user's id on `MEMBERSHIP_CHANNEL`, and every change to
 *   `organisations` (and a TRUNCATE of either) sends `*`, from triggers (identity migration 005), so
 *   whoever makes the change, in whatever process. PostgreSQL delivers the notice at commit to every
 *   listener, and never for a change that rolled back.
 * - A notice drops that user's entries; `*` drops everything.
 * - While the listening connection is down (not yet connected, lost, reconnecting) nothing is served from
 *   memory or kept, and the cache starts empty once listening again.
 * - A lookup under way when any notice arrives (or when listening began) is answered but not kept: its
 *   rows may predate the change (`mark()` / `keep()`).
 * - At most `size` users are kept; the least recently used is dropped first.
 *
 * What the rule also reads in an environment database (production: which candidates hold an approved
 * direct debit authority, when a user has several organisations) is not kept: it is read each time.
 * A membership change takes effect here when its notice arrives, a moment after its commit.
 */
import { ListenedEntries, NoticeListener } from '../../platform/db/notice-listener.ts';
import type { Environment } from '../../services/contract.ts';

export const MEMBERSHIP_CHANNEL = 'rsg_memberships';
export const PAYER_CACHE_SIZE = 10_000;

export class PayerCache {
  /** User id → environment → the user's organisations there, in the payer rule's order. */
  private readonly entries: ListenedEntries<Partial<Record<Environment, readonly string[]>>>;
  private readonly listener: NoticeListener;

  constructor(url: string, size = PAYER_CACHE_SIZE) {
    this.listener = new NoticeListener({
      url,
      channel: MEMBERSHIP_CHANNEL,
      applicationName: 'rsg-billing-payers',
      onNotice: (payload) => {
        if (payload === '*') this.entries.clear();
        else this.entries.delete(payload);
      },
      onReset: () => this.entries.clear(),
    });
    this.entries = new ListenedEntries(this.listener, size);
  }

  /** Whether entries are being served (the listening connection is up). */
  get serving(): boolean {
    return this.listener.listening;
  }

  /** Starts listening now (otherwise the first `get` does); resolves once listening or failed. */
  start(): Promise<void> {
    return this.listener.start();
  }

  /** The user's organisations in the environment, if they may be trusted. */
  get(userId: string, environment: Environment): readonly string[] | undefined {
    return this.entries.get(userId)?.[environment];
  }

  /** The mark to give `keep` for a lookup starting now. */
  mark(): number {
    return this.listener.mark();
  }

  /** Keeps a lookup made since `mark`, unless a notice came meanwhile or nothing is being served. */
  keep(userId: string, environment: Environment, organisations: readonly string[], mark: number): void {
    this.entries.keep(userId, { ...this.entries.peek(userId), [environment]: organisations }, mark);
  }

  close(): Promise<void> {
    return this.listener.close();
  }
}
