import { describe, expect, it } from 'vitest';
import { BILLING_ERRORS } from '../../src/billing/errors.ts';
import { RuleError } from '../../src/platform/errors.ts';
import { HttpError } from '../../src/platform/http/errors.ts';
import {
  type Arrival,
  awaitOutcome,
  callerIdempotencyKey,
  canonicalJson,
  type IdempotencyStore,
  type KeptRequest,
  refusedBeforeStart,
  requestHash,
  runOnce,
} from '../../src/platform/http/idempotency.ts';
import { PPSR_ERRORS } from '../../src/services/ppsr/errors.ts';

/**
 * Idempotency by a caller's request id on a store held in memory, whose units of work commit or roll back
 * and whose claim of a key waits for the unit holding it, as a unique index does: repeats answer the
 * first outcome, a reuse is 409, a burst runs once, refusals before start are not kept, rule failures are.
 */
interface Outcome {
  status: number;
  body: string;
}

interface Tx {
  staged: Map<string, KeptRequest<Outcome>>;
  effects: string[];
  releases: (() => void)[];
}

class MemoryStore implements IdempotencyStore<Tx, string, Outcome> {
  readonly kept = new Map<string, KeptRequest<Outcome>>();
  readonly effects: string[] = [];
  private readonly held = new Map<string, Promise<void>>();
  private unkeyed = 0;

  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const tx: Tx = { staged: new Map(), effects: [], releases: [] };
    try {
      const result = await fn(tx);
      for (const [key, kept] of tx.staged) this.kept.set(key, kept);
      this.effects.push(...tx.effects);
      return result;
    } finally {
      for (const release of tx.releases) release();
    }
  }

  async claim(tx: Tx, arrival: Arrival) {
    const key = arrival.key ?? `unkeyed-${++this.unkeyed}`;
    for (;;) {
      const kept = this.kept.get(key);
      if (kept) return { created: false as const, kept };
      const holder = this.held.get(key);
      if (!holder) break;
      await holder;
    }
    let release = () => {};
    this.held.set(key, new Promise<void>((resolve) => (release = resolve)));
    tx.releases.push(() => {
      this.held.delete(key);
      release();
    });
    tx.staged.set(key, { operation: arrival.operation, requestHash: arrival.requestHash, outcome: null });
    return { created: true as const, claim: key };
  }

  async complete(tx: Tx, claim: string, outcome: Outcome) {
    tx.staged.get(claim)!.outcome = outcome;
    return true;
  }

  async recordFailure(arrival: Arrival, outcome: Outcome) {
    const key = arrival.key ?? `unkeyed-${++this.unkeyed}`;
    if (!this.kept.has(key)) {
      this.kept.set(key, { operation: arrival.operation, requestHash: arrival.requestHash, outcome });
    }
  }

  async find(arrival: Arrival) {
    return arrival.key === undefined ? undefined : this.kept.get(arrival.key);
  }
}

const arrival = (key: string | undefined, body: unknown = { plate: 'ABC123' }): Arrival => ({
  key,
  requestId: key ?? 'made-by-the-gateway',
  operation: 'SEARCH',
  requestHash: requestHash({ operation: 'SEARCH', method: 'POST', path: '/search', body }),
});

const REUSE = { code: PPSR_ERRORS.requestIdReused, field: 'Request-Id' };

/** A search that takes the next certificate number, or fails as `fail` says. */
function search(store: MemoryStore, fail?: () => Error) {
  let runs = 0;
  return {
    runs: () => runs,
    options: {
      reuse: REUSE,
      async work(tx: Tx): Promise<Outcome> {
        runs += 1;
        await Promise.resolve();
        if (fail) throw fail();
        const certificate = `SC${store.effects.length + tx.effects.length + 1}`;
        tx.effects.push(certificate);
        return { status: 200, body: certificate };
      },
      failure: (error: unknown): Outcome => ({ status: 400, body: (error as Error).message }),
    },
  };
}

describe('the request and its key', () => {
  it('writes a body the same whatever its key order, without undefined members', () => {
    expect(canonicalJson({ b: [1, { d: 2, c: undefined }], a: 'x' })).toBe('{"a":"x","b":[1,{"d":2}]}');
    expect(arrival('k', { a: 1, b: 2 }).requestHash).toEqual(arrival('k', { b: 2, a: 1 }).requestHash);
    expect(arrival('k', { a: 1 }).requestHash).not.toEqual(arrival('k', { a: 2 }).requestHash);
  });

  it('refuses a body nested too deep, naming the body', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow(RuleError);
  });

  it('keys only an id the caller sent: the header, else the alias', () => {
    const alias = { header: 'x-old-request-id', name: 'X-Old-Request-Id', maxLength: 10 };
    const header = 'api-business-govt-nz-request-id';
    expect(callerIdempotencyKey({ id: 'abc', headers: { [header]: 'abc' } }, alias)).toBe('abc');
    expect(callerIdempotencyKey({ id: 'made', headers: {} }, alias)).toBeUndefined();
    expect(callerIdempotencyKey({ id: 'made', headers: { 'x-old-request-id': 'old-1' } }, alias)).toBe(
      'old-1',
    );
    expect(() =>
      callerIdempotencyKey({ id: 'made', headers: { 'x-old-request-id': 'much-too-long-an-id' } }, alias),
    ).toThrow(/1 to 10 letters/);
    expect(() => callerIdempotencyKey({ id: 'made', headers: { 'x-old-request-id': 'a b' } }, alias)).toThrow(
      expect.objectContaining({ field: 'X-Old-Request-Id' }),
    );
  });

  it('tells refusals before start from the register’s own failures', () => {
    const noAuthority = new RuleError('organisation', 'holds no approved direct debit authority', {
      code: BILLING_ERRORS.directDebitAuthorityRequired,
    });
    expect(refusedBeforeStart(noAuthority)).toBe(true);
    expect(refusedBeforeStart(new HttpError(BILLING_ERRORS.billingOrganisationRequired, 'none'))).toBe(true);
    expect(refusedBeforeStart({ validation: [], message: 'body/x must be integer' })).toBe(true);
    expect(refusedBeforeStart(new RuleError('collaterals.0', 'must name a type'))).toBe(false);
    expect(refusedBeforeStart(new Error('a fault'))).toBe(false);
  });
});

describe('runOnce', () => {
  it('answers a repeat with the first outcome without running again, and refuses a reuse (409)', async () => {
    const store = new MemoryStore();
    const run = search(store);
    const first = await runOnce(store, arrival('id-1'), run.options);
    expect(first).toEqual({ outcome: { status: 200, body: 'SC1' } });
    const repeat = await runOnce(store, arrival('id-1'), run.options);
    expect(repeat).toEqual({ repeat: expect.objectContaining({ outcome: { status: 200, body: 'SC1' } }) });
    await expect(runOnce(store, arrival('id-1', { plate: 'XYZ9' }), run.options)).rejects.toMatchObject({
      status: 409,
      code: 'request-id-reused',
    });
    expect(run.runs()).toBe(1);
    expect(store.effects).toEqual(['SC1']);
  });

  it('runs a concurrent burst of 50 with one key once', async () => {
    const store = new MemoryStore();
    const run = search(store);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => runOnce(store, arrival('burst'), run.options)),
    );
    expect(run.runs()).toBe(1);
    expect(store.effects).toEqual(['SC1']);
    const bodies = answers.map((a) => ('outcome' in a ? a.outcome : a.repeat.outcome)?.body);
    expect(new Set(bodies)).toEqual(new Set(['SC1']));
  });

  it('keeps nothing of a refusal before start: the same key runs once the cause is fixed', async () => {
    const store = new MemoryStore();
    const refusal = search(
      store,
      () => new HttpError(BILLING_ERRORS.directDebitAuthorityRequired, 'none yet'),
    );
    await expect(runOnce(store, arrival('id-2'), refusal.options)).rejects.toMatchObject({ status: 403 });
    expect(store.kept.size).toBe(0);
    const fixed = search(store);
    expect(await runOnce(store, arrival('id-2'), fixed.options)).toEqual({
      outcome: { status: 200, body: 'SC1' },
    });
  });

  it('keeps a failure of the register’s rules as the outcome, answered again to a repeat', async () => {
    const store = new MemoryStore();
    const broken = search(store, () => new RuleError('plate', 'must be a plate'));
    expect(await runOnce(store, arrival('id-3'), broken.options)).toEqual({
      outcome: { status: 400, body: 'plate: must be a plate' },
    });
    const repeat = await runOnce(store, arrival('id-3'), search(store).options);
    expect(repeat).toEqual({
      repeat: expect.objectContaining({ outcome: { status: 400, body: 'plate: must be a plate' } }),
    });
    expect(store.effects).toEqual([]);
  });

  it('runs every request without a key', async () => {
    const store = new MemoryStore();
    const run = search(store);
    await runOnce(store, arrival(undefined), run.options);
    await runOnce(store, arrival(undefined), run.options);
    expect(store.effects).toEqual(['SC1', 'SC2']);
  });
});

describe('awaitOutcome', () => {
  it('answers the outcome once the store has one, and nothing past the deadline', async () => {
    let polls = 0;
    const kept = (): KeptRequest<Outcome> => ({
      operation: 'SEARCH',
      requestHash: Buffer.alloc(0),
      outcome: ++polls >= 3 ? { status: 200, body: 'late' } : null,
    });
    expect(await awaitOutcome(async () => kept(), Date.now() + 60_000, 1)).toEqual({
      status: 200,
      body: 'late',
    });
    expect(await awaitOutcome(async () => kept(), Date.now() - 1, 1)).toBeUndefined();
  });
});
