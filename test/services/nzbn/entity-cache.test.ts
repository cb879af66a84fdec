import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sandboxDocuments } from '../../../src/services/nzbn/sandbox/documents.ts';
import { nzbnForIndex } from '../../../src/services/nzbn/sandbox/numbers.ts';
import { findEntity, unchangedGeneratedEntity } from '../../../src/services/nzbn/store/entities.ts';
import {
  CachedEntity,
  EntityCache,
  entityCacheOf,
  LISTENER_NAME,
} from '../../../src/services/nzbn/store/entity-cache.ts';
import { updateEntity } from '../../../src/services/nzbn/store/update.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';

/**
 * Entities kept in memory (store/entity-cache.ts): what a read answers must never depend on whether the
 * entity was kept — views, ETags, conditional answers — and a change must reach every cache: this
 * process's at once, another process's through the notice sent at commit.
 */
let t: NzbnTest;
beforeAll(async () => {
  t = await nzbnTest();
  await t.grant(t.owner.userId, FIXTURE.company);
});
afterAll(() => t?.close());

const pool = () => t.gateway.runtime.environments.sandbox.pool;
const url = () => t.gateway.runtime.environments.sandbox.url;
const get = (nzbn: string, options: { token?: string; headers?: Record<string, string> } = {}) =>
  t.call('GET', `/entities/${nzbn}`, options);

/** Waits (vi.waitFor) until `test` holds; a timeout names what was awaited. */
async function until(what: string, test: () => boolean | Promise<boolean>, timeout = 5_000): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await test())) throw new Error(`still waiting for ${what}`);
    },
    { timeout, interval: 20 },
  );
}

/** A change through updateEntity, as every write route makes one: a new trading name. */
async function change(nzbn: string, name: string) {
  return updateEntity(
    pool(),
    sandboxDocuments,
    nzbn,
    new Date(),
    () => {},
    async (entity, tools) => {
      entity.tradingNames.push({
        uniqueIdentifier: await tools.nextItemId(),
        name,
        startDate: tools.stamp,
        endDate: null,
      });
      return { result: undefined, events: [] };
    },
  );
}

describe('entities kept in memory', () => {
  it('the app opens one cache per database, which listens once an entity is read', async () => {
    const cache = entityCacheOf(pool());
    expect(cache).toBeInstanceOf(EntityCache);
    await get(FIXTURE.company);
    await until('the cache to listen', () => cache!.listening);
  });

  it('answers the same bytes, ETags and conditional answers whether or not the entity is kept', async () => {
    const cache = entityCacheOf(pool())!;
    await until('the cache to listen', () => cache.listening);
    for (const nzbn of [FIXTURE.privateData, FIXTURE.company, FIXTURE.soleTrader]) {
      const fresh = await findEntity(pool(), sandboxDocuments, nzbn);
      const answers = [];
      // The first read is not kept, the second is; the rest are answered from memory.
      for (let i = 0; i < 4; i++) answers.push(await get(nzbn));
      expect(cache.get(nzbn)?.stored.etag).toBe(fresh!.etag);
      for (const answer of answers) {
        expect(answer.statusCode).toBe(200);
        expect(answer.body).toBe(answers[0]!.body);
        expect(answer.headers.etag).toBe(answers[0]!.headers.etag);
        expect(answer.headers['last-modified']).toBe(answers[0]!.headers['last-modified']);
        expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)));
      }
      const etag = String(answers[0]!.headers.etag);
      expect((await get(nzbn, { headers: { 'if-none-match': etag } })).statusCode).toBe(304);
      expect((await get(nzbn, { headers: { 'if-match': '"stale"' } })).statusCode).toBe(412);
    }
  });

  it('never gives a kept view to the wrong caller', async () => {
    const nzbn = FIXTURE.privateData;
    const order = [undefined, undefined, t.owner.token, t.owner.token, undefined, t.stranger.token];
    const answers = [];
    for (const token of order) answers.push(await get(nzbn, token ? { token } : {}));
    const [publicView, , whole, , publicAgain, stranger] = answers.map((a) => ({
      etag: String(a.headers.etag),
      body: a.body,
    }));
    expect(publicView!.etag).toMatch(/-p"$/);
    expect(whole!.etag).toBe(publicView!.etag.replace('-p"', '"'));
    expect(whole!.body).not.toBe(publicView!.body);
    expect(publicAgain).toEqual(publicView);
    expect(stranger).toEqual(publicView);
    expect(answers[3]!.body).toBe(whole!.body);
    // The public view is the stored document less its private items.
    const stored = await findEntity(pool(), sandboxDocuments, nzbn);
    expect(JSON.parse(whole!.body)).toEqual(JSON.parse(stored!.document));
  });

  it('a change through the API is read back at once, in either view', async () => {
    const nzbn = FIXTURE.company;
    for (let i = 0; i < 3; i++) await get(nzbn, { token: t.owner.token });
    const before = await get(nzbn);
    const response = await t.call('POST', `/entities/${nzbn}/trading-names`, {
      token: t.owner.token,
      payload: [{ name: 'Kept In Memory Bakery' }],
    });
    expect(response.statusCode, response.body).toBe(200);
    const after = await get(nzbn, { token: t.owner.token });
    expect(after.headers.etag).toBe(response.headers.etag);
    expect(after.json().tradingNames.map((n: { name: string }) => n.name)).toContain('Kept In Memory Bakery');
    expect((await get(nzbn)).headers.etag).not.toBe(before.headers.etag);
    expect((await get(nzbn, { headers: { 'if-none-match': String(before.headers.etag) } })).statusCode).toBe(
      200,
    );
  });

  it("another process's cache drops the entity when the change's notice arrives", async () => {
    // A cache of its own, outside this process's registry: only the notice can reach it.
    const other = new EntityCache(url(), sandboxDocuments);
    try {
      other.get(FIXTURE.soleTrader);
      await until('the other cache to listen', () => other.listening);
      const stored = (await findEntity(pool(), sandboxDocuments, FIXTURE.soleTrader))!;
      for (let i = 0; i < 2; i++) other.keep(other.mark(), new CachedEntity({ ...stored }));
      expect(other.get(FIXTURE.soleTrader)?.stored.version).toBe(stored.version);
      const updated = await change(FIXTURE.soleTrader, 'Heard About It Limited');
      expect(updated?.stored.version).toBe(stored.version + 1);
      await until('the notice', () => other.get(FIXTURE.soleTrader) === undefined);
    } finally {
      await other.close();
    }
  });

  it('a row read while a change committed is answered but not kept', async () => {
    const other = new EntityCache(url(), sandboxDocuments);
    try {
      other.get(FIXTURE.removed);
      await until('the other cache to listen', () => other.listening);
      const stored = (await findEntity(pool(), sandboxDocuments, FIXTURE.removed))!;
      other.keep(other.mark(), new CachedEntity({ ...stored }));
      const mark = other.mark();
      await change(FIXTURE.orgParts, 'Meanwhile Limited');
      await until('the notice', () => other.mark() !== mark);
      other.keep(mark, new CachedEntity({ ...stored }));
      expect(other.get(FIXTURE.removed)).toBeUndefined();
      other.keep(other.mark(), new CachedEntity({ ...stored }));
      expect(other.get(FIXTURE.removed)?.stored.etag).toBe(stored.etag);
    } finally {
      await other.close();
    }
  });

  it('keeps nothing while it cannot listen, and listens again', async () => {
    const other = new EntityCache(url(), sandboxDocuments);
    try {
      other.get(FIXTURE.authority);
      await until('the other cache to listen', () => other.listening);
      const stored = (await findEntity(pool(), sandboxDocuments, FIXTURE.authority))!;
      for (let i = 0; i < 2; i++) other.keep(other.mark(), new CachedEntity({ ...stored }));
      expect(other.get(FIXTURE.authority)).toBeDefined();
      // The listening connection dies: notices may be missed from now on.
      await pool().query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = $1`,
        [LISTENER_NAME],
      );
      await until('the lost connection', () => !other.listening);
      other.keep(other.mark(), new CachedEntity({ ...stored }));
      expect(other.get(FIXTURE.authority)).toBeUndefined();
      // It listens again (after a pause), starting empty.
      await until('listening again', () => other.get(FIXTURE.authority) === undefined && other.listening);
      expect(other.get(FIXTURE.authority)).toBeUndefined();
    } finally {
      await other.close();
    }
    // The app's own cache lost its connection too (the query matched it) and recovers the same way.
    const cache = entityCacheOf(pool())!;
    await until('the app cache to listen again', async () => {
      await get(FIXTURE.company);
      return cache.listening;
    });
  });

  it('makes the stored version of every unchanged generated entity exactly as its row says', async () => {
    const other = new EntityCache(url(), sandboxDocuments);
    try {
      other.get(FIXTURE.company);
      await until('the set of unchanged entities', () => other.unchangedIndex(nzbnForIndex(0)) === 0);
      // The test register has 1,000 generated entities.
      for (let index = 0; index < 1_000; index++) {
        const nzbn = nzbnForIndex(index);
        expect(other.unchangedIndex(nzbn)).toBe(index);
        expect(unchangedGeneratedEntity(sandboxDocuments, nzbn, index)).toEqual(
          await findEntity(pool(), sandboxDocuments, nzbn),
        );
      }
      expect(other.unchangedIndex(nzbnForIndex(1_000))).toBeUndefined();
      expect(other.unchangedIndex(FIXTURE.company)).toBeUndefined();
      expect(other.unchangedIndex('9429000000000')).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('a generated entity stops being made from the generator once it changes, here and elsewhere', async () => {
    const nzbn = nzbnForIndex(42);
    const other = new EntityCache(url(), sandboxDocuments);
    try {
      other.get(nzbn);
      await until('the set of unchanged entities', () => other.unchangedIndex(nzbn) === 42);
      const cache = entityCacheOf(pool())!;
      await until('the app cache', async () => {
        await get(nzbn);
        return cache.unchangedIndex(nzbn) === 42;
      });
      const before = await get(nzbn);
      const updated = await change(nzbn, 'Once Generated Limited');
      // This process at once; the other through the notice.
      expect(cache.unchangedIndex(nzbn)).toBeUndefined();
      const after = await get(nzbn);
      expect(after.headers.etag).toBe(`"${updated!.stored.etag}"`);
      expect(after.headers.etag).not.toBe(before.headers.etag);
      expect(after.json().tradingNames.map((n: { name: string }) => n.name)).toContain(
        'Once Generated Limited',
      );
      await until('the notice', () => other.unchangedIndex(nzbn) === undefined);
    } finally {
      await other.close();
    }
    // A cache that starts now finds the change among the replaced versions.
    const later = new EntityCache(url(), sandboxDocuments);
    try {
      later.get(nzbn);
      await until('the set of unchanged entities', () => later.unchangedIndex(nzbnForIndex(43)) === 43);
      expect(later.unchangedIndex(nzbn)).toBeUndefined();
    } finally {
      await later.close();
    }
  });

  it('a notice without a business number drops everything, and the unchanged set is read again', async () => {
    const other = new EntityCache(url(), sandboxDocuments);
    try {
      other.get(FIXTURE.company);
      await until('the set of unchanged entities', () => other.unchangedIndex(nzbnForIndex(7)) === 7);
      const stored = (await findEntity(pool(), sandboxDocuments, FIXTURE.company))!;
      for (let i = 0; i < 2; i++) other.keep(other.mark(), new CachedEntity({ ...stored }));
      expect(other.get(FIXTURE.company)).toBeDefined();
      await pool().query("SELECT pg_notify('rsg_nzbn_entities', '*')");
      await until('the notice', () => other.get(FIXTURE.company) === undefined);
      await until('the set read again', () => other.unchangedIndex(nzbnForIndex(7)) === 7);
    } finally {
      await other.close();
    }
  });

  it('a change missed while not listening is never made from the generator once listening again', async () => {
    const nzbn = nzbnForIndex(60);
    const other = new EntityCache(url(), sandboxDocuments);
    try {
      other.get(nzbn);
      await until('the set of unchanged entities', () => other.unchangedIndex(nzbn) === 60);
      const stored = (await findEntity(pool(), sandboxDocuments, nzbn))!;
      for (let i = 0; i < 2; i++) other.keep(other.mark(), new CachedEntity({ ...stored }));
      expect(other.get(nzbn)).toBeDefined();
      // The listening connection dies; the change commits while it is down, so its notice is not heard.
      await pool().query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = $1`,
        [LISTENER_NAME],
      );
      await until('the lost connection', () => !other.listening);
      expect(other.unchangedIndex(nzbn)).toBeUndefined();
      const updated = await change(nzbn, 'Changed While Deaf Limited');
      // Listening again (by itself, a second later): the cache starts empty and reads the set afresh.
      await until('listening again', () => other.listening && other.unchangedIndex(nzbnForIndex(61)) === 61);
      expect(other.get(nzbn)).toBeUndefined();
      expect(other.unchangedIndex(nzbn)).toBeUndefined();
      expect((await findEntity(pool(), sandboxDocuments, nzbn))!.etag).toBe(updated!.stored.etag);
    } finally {
      await other.close();
    }
    // The app's own cache lost its connection too, and listens again the same way.
    const cache = entityCacheOf(pool())!;
    await until('the app cache to listen again', async () => {
      await get(FIXTURE.company);
      return cache.listening;
    });
  });

  it('a stored version is kept frozen', async () => {
    for (let i = 0; i < 3; i++) await get(FIXTURE.company);
    const kept = entityCacheOf(pool())!.get(FIXTURE.company)!;
    expect(Object.isFrozen(kept.stored)).toBe(true);
  });
});
