/**
 * The rules the business number register's generated sandbox keeps (`rsg sandbox check`; listed in the
 * README): entity types, statuses, roles and industry codes that agree with one another, dates in
 * order, plausible GST and Australian business numbers, and addresses on the real geography. They are
 * judged on each generated and fixed entity's document (entity-rules.ts), read a page at a time from the
 * store (store/invariants.ts), the unchanged generated ones made again by the generator: one pass over
 * the register serves every rule of a check. Making 700,000 entities again is most of a check's work,
 * so the pages are judged in worker threads (invariants-worker.ts), one a core, while this thread reads
 * the next ones.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startTsWorker } from '../../../platform/ts-worker.ts';
import type { InvariantBreak, InvariantContext, SandboxInvariant } from '../../contract.ts';
import { entitiesToCheck, entityCount } from '../store/invariants.ts';
import { judgePage, RULES, ruleWorld } from './invariants-judge.ts';

const PAGE = 2_000;
/** Registers of at least this many entities are judged in worker threads. */
const PARALLEL_FROM = 100_000;

type Findings = Map<string, InvariantBreak[]>;
/** One pass a check: every rule's findings, by the context the check runs with. */
const passes = new WeakMap<InvariantContext, Promise<Findings>>();

function findings(context: InvariantContext): Promise<Findings> {
  let pass = passes.get(context);
  if (!pass) {
    pass = judgeRegister(context);
    passes.set(context, pass);
  }
  return pass;
}

async function judgeRegister({ database, clock }: InvariantContext): Promise<Findings> {
  const todayMs = clock.now().getTime();
  const pages: InvariantBreak[][][] = [];
  let world: ReturnType<typeof ruleWorld> | undefined;
  let judges: PageJudges | undefined;
  try {
    let after = '';
    for (let index = 0; ; index++) {
      const page = await entitiesToCheck(database.pool, after, PAGE);
      // A large register: judged in worker threads, one a core (a worker's start, its modules loaded
      // and the geography read, costs seconds: more than a small register's whole check).
      const threads = Math.min(availableParallelism(), 8);
      if (
        index === 0 &&
        page.length === PAGE &&
        threads > 1 &&
        (await entityCount(database.pool)) >= PARALLEL_FROM
      )
        judges = new PageJudges(threads, todayMs);
      if (judges) await judges.judge(index, page, pages);
      else {
        world ??= ruleWorld(todayMs);
        pages[index] = judgePage(page, world);
      }
      if (page.length < PAGE) break;
      after = page.at(-1)!.nzbn;
    }
    await judges?.finished();
  } finally {
    await judges?.stop();
  }
  return new Map(RULES.map((rule, i) => [rule.id, pages.flatMap((page) => page[i] ?? [])]));
}

interface Verdict {
  page: number;
  found?: InvariantBreak[][];
  error?: string;
}

/** Worker threads judging pages (invariants-worker.ts): each page goes to the next free one. */
class PageJudges {
  private readonly workers: Worker[];
  private readonly free: Worker[] = [];
  private readonly waiting: { resolve: (worker: Worker) => void; reject: (error: Error) => void }[] = [];
  private readonly pending = new Set<Promise<void>>();
  private failure: Error | undefined;

  constructor(threads: number, todayMs: number) {
    this.workers = Array.from({ length: threads }, () =>
      startTsWorker(new URL('./invariants-worker.ts', import.meta.url), { workerData: { todayMs } }),
    );
    for (const worker of this.workers) {
      worker.on('error', (error) => {
        this.failure ??= error;
        // A page handed out is lost: who waits for a free worker hears why.
        for (const waiter of this.waiting.splice(0)) waiter.reject(error);
      });
      this.release(worker);
    }
  }

  private release(worker: Worker): void {
    const next = this.waiting.shift();
    if (next) next.resolve(worker);
    else this.free.push(worker);
  }

  private take(): Promise<Worker> {
    const worker = this.free.shift();
    return worker
      ? Promise.resolve(worker)
      : new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Hands `rows` to a free worker (waiting for one); its verdict goes to `into[page]`. */
  async judge(page: number, rows: unknown[], into: InvariantBreak[][][]): Promise<void> {
    if (this.failure) throw this.failure;
    const worker = await this.take();
    const done = new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      worker.once('error', onError);
      worker.once('message', (verdict: Verdict) => {
        worker.off('error', onError);
        if (verdict.error !== undefined) reject(new Error(`page ${verdict.page}: ${verdict.error}`));
        else into[verdict.page] = verdict.found!;
        this.release(worker);
        resolve();
      });
      worker.postMessage({ page, rows });
    });
    const tracked = done.catch((error: Error) => {
      this.failure ??= error;
    });
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }

  /** Waits for every page handed out; throws the first failure. */
  async finished(): Promise<void> {
    await Promise.all(this.pending);
    if (this.failure) throw this.failure;
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}

export const NZBN_INVARIANTS: readonly SandboxInvariant[] = RULES.map((rule) => ({
  id: rule.id,
  description: rule.description,
  ...(rule.exceptions ? { exceptions: rule.exceptions } : {}),
  check: async (context) => (await findings(context)).get(rule.id)!,
}));
