import { Ajv } from 'ajv';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOutbox } from '../../../../src/platform/mail.ts';
import { type JobsHandle, startJobs } from '../../../../src/runtime.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from '../support/api.ts';
import {
  clockTo,
  createWatchlist,
  makeChange,
  minutes,
  notifications,
  Receiver,
  sandboxNow,
  settle,
} from '../support/watchlists.ts';

let t: NzbnTest;
let jobs: JobsHandle;
let receiver: Receiver;

beforeAll(async () => {
  t = await nzbnTest({ clockMode: 'virtual' });
  receiver = await new Receiver(() => sandboxNow(t)).start();
  jobs = await startJobs(t.gateway.runtime, 'http://127.0.0.1:8080');
});
afterAll(async () => {
  await jobs?.stop();
  await receiver?.close();
  await t?.close();
});

const pathOf = (endpoint: string) => new URL(endpoint).pathname;

describe('push delivery', () => {
  it('sends each matching change once, signed with Standard Webhooks and carrying the authorization token', async () => {
    const endpoint = receiver.endpoint();
    const watchlist = await createWatchlist(t, {
      pushEndpoint: endpoint,
      authorizationToken: 'Bearer s3cret',
    });
    const first = await makeChange(t);
    const second = await makeChange(t);
    await settle(jobs);
    const got = receiver.on(pathOf(endpoint));
    expect(got).toHaveLength(2);
    // An independent implementation of the scheme verifies every delivery.
    const verifier = new Webhook(watchlist.webhookSecret);
    for (const delivery of got) {
      expect(() => verifier.verify(delivery.body, delivery.headers as Record<string, string>)).not.toThrow();
      expect(delivery.headers.authorization).toBe('Bearer s3cret');
      expect(delivery.headers['content-type']).toBe('application/json');
    }
    expect(() =>
      new Webhook(`whsec_${Buffer.from('another key entirely!').toString('base64')}`).verify(
        got[0]!.body,
        got[0]!.headers as Record<string, string>,
      ),
    ).toThrow();
    // The body is a change item (ours: one change event), in the order of the changes; the change event
    // search lists the same change in the published NzbnChange shape.
    const items = got.map((delivery) => JSON.parse(delivery.body));
    expect(items.map((item) => item.changeEventId)).toEqual([first, second]);
    expect(items[0]).toMatchObject({
      nzbn: FIXTURE.authority,
      changeEventType: expect.any(String),
      changeDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      entityName: expect.any(String),
    });
    const search = await t.call(
      'GET',
      '/entities/changes?change-event-type=ALL&sort-order=DESC&page-size=50',
    );
    type Listed = { nzbn: string; entityName: string; changeDateTime: string; items: unknown[] };
    const listed = search
      .json()
      .items.find(
        (item: Listed) => item.nzbn === items[0].nzbn && item.changeDateTime === items[0].changeDate,
      );
    expect(listed).toMatchObject({ entityName: items[0].entityName });
    expect(listed.items).toContainEqual(
      expect.objectContaining({
        changeEventType: items[0].changeEventType,
        newValue: JSON.stringify(items[0].newValue),
      }),
    );
    expect(items[0].links[0].href).toBe(
      `http://127.0.0.1:8080/sandbox/nzbn/v5/entities/${FIXTURE.authority}`,
    );
    // The body is what the service's OpenAPI document publishes as its webhook.
    const document = (await t.call('GET', '/openapi.json', { key: null })).json();
    const webhook = document.webhooks.watchlistNotification.post;
    const validate = new Ajv({ strict: false }).compile(
      webhook.requestBody.content['application/json'].schema,
    );
    for (const item of items) expect(validate(item), JSON.stringify(validate.errors)).toBe(true);
    expect(webhook.parameters.map((p: { name: string }) => p.name)).toContain('webhook-signature');
    // Delivered once: settling again sends nothing more.
    await settle(jobs);
    expect(receiver.on(pathOf(endpoint))).toHaveLength(2);
    const view = (await t.call('GET', `/watchlists/${watchlist.watchlistId}`)).json();
    // The published integer: the last change event delivered.
    expect(view.lastSuccessfulChangeNoticeId).toBe(Number(second));
  });

  it('retries at exactly 20, 90, 180, 300 and 450 minutes after the original attempt, then suspends and emails the administrator', async () => {
    const endpoint = receiver.endpoint();
    const path = pathOf(endpoint);
    receiver.answer = (request) => (request.path === path ? 503 : 200);
    const admin = `admin-${Date.now()}@example.test`;
    const watchlist = await createWatchlist(t, { pushEndpoint: endpoint, adminEmailAddress: admin });
    await makeChange(t);
    await settle(jobs);
    expect(receiver.on(path)).toHaveLength(1);
    const [record] = await notifications(t, watchlist.watchlistId);
    const original = record!.first_attempt_at!;
    expect(record!.next_attempt_at!.getTime() - original.getTime()).toBe(minutes(20));

    for (const [index, offset] of [20, 90, 180, 300, 450].entries()) {
      // A minute before the retry is due: nothing is sent.
      await clockTo(t, new Date(original.getTime() + minutes(offset - 1)));
      await settle(jobs);
      expect(receiver.on(path)).toHaveLength(index + 1);
      await clockTo(t, new Date(original.getTime() + minutes(offset)));
      await settle(jobs);
      const attempts = receiver.on(path);
      expect(attempts).toHaveLength(index + 2);
      const at = attempts.at(-1)!.at.getTime() - original.getTime();
      expect(Math.floor(at / 60_000)).toBe(offset);
    }
    // Every attempt carried the same webhook-id, so a receiver can drop repeats.
    expect(new Set(receiver.on(path).map((r) => r.headers['webhook-id'])).size).toBe(1);
    const suspended = (await t.call('GET', `/watchlists/${watchlist.watchlistId}`)).json();
    expect(suspended.suspended).toBe(true);
    const mail = await listOutbox(t.gateway.runtime.gateway.pool, { to: admin });
    expect(mail).toHaveLength(1);
    expect(mail[0]!.subject).toContain('suspended');
    expect(mail[0]!.text).toContain(`/watchlists/${watchlist.watchlistId}`);

    // While suspended: records are created, nothing is sent.
    const later = [await makeChange(t), await makeChange(t), await makeChange(t)];
    await clockTo(t, new Date(original.getTime() + minutes(600)));
    await settle(jobs);
    expect(receiver.on(path)).toHaveLength(6);
    const records = await notifications(t, watchlist.watchlistId);
    expect(records).toHaveLength(4);
    expect(records.every((r) => r.delivered_at === null)).toBe(true);

    // Resumed: from the point of suspension (the failed one first), in order, each once.
    receiver.answer = () => 200;
    const resumed = await t.call('PUT', `/watchlists/${watchlist.watchlistId}`, {
      payload: { suspended: false },
    });
    // 201: the published status of PUT /watchlists/{watchlistId}.
    expect(resumed.statusCode, resumed.body).toBe(201);
    expect(resumed.json().suspended).toBe(false);
    await settle(jobs);
    const all = receiver.on(path);
    expect(all).toHaveLength(10);
    const sent = all.slice(6).map((r) => JSON.parse(r.body).changeEventId);
    expect(sent).toEqual([records[0]!.change_event_id, ...later]);
    expect(all[6]!.headers['webhook-id']).toBe(all[0]!.headers['webhook-id']);
    expect((await notifications(t, watchlist.watchlistId)).every((r) => r.delivered_at !== null)).toBe(true);
  });

  it('counts an answer after more than two minutes as a failed attempt', async () => {
    const endpoint = receiver.endpoint();
    const path = pathOf(endpoint);
    receiver.answer = (request) => (request.path === path ? 'hang' : 200);
    const watchlist = await createWatchlist(t, { pushEndpoint: endpoint });
    await makeChange(t);
    const settling = settle(jobs);
    await receiver.waitFor(path, 1);
    const [started] = await notifications(t, watchlist.watchlistId);
    expect(started!.attempts).toBe(0); // in flight: nothing written yet
    await clockTo(t, new Date(sandboxNow(t).getTime() + minutes(2) + 1_000));
    await settling;
    receiver.release(200); // the late 200 changes nothing
    const [record] = await notifications(t, watchlist.watchlistId);
    expect(record!.attempts).toBe(1);
    expect(record!.delivered_at).toBeNull();
    expect(record!.last_error).toContain('two-minute');
    expect(record!.next_attempt_at!.getTime() - record!.first_attempt_at!.getTime()).toBe(minutes(20));
    receiver.answer = () => 200;
  });

  it('end-dates a watchlist suspended for a month without resumption', async () => {
    const endpoint = receiver.endpoint();
    const path = pathOf(endpoint);
    receiver.answer = (request) => (request.path === path ? 500 : 200);
    const watchlist = await createWatchlist(t, { pushEndpoint: endpoint });
    await makeChange(t);
    await settle(jobs);
    const [record] = await notifications(t, watchlist.watchlistId);
    // The whole schedule at once: a jump past the last retry runs the overdue attempts in turn.
    await clockTo(t, new Date(record!.first_attempt_at!.getTime() + minutes(451)));
    await settle(jobs);
    expect(receiver.on(path)).toHaveLength(6);
    const rows = await t.gateway.runtime.environments.sandbox.pool.query<{ suspended_at: Date }>(
      'SELECT suspended_at FROM nzbn_watchlists WHERE number = $1',
      [watchlist.watchlistId],
    );
    const suspendedAt = rows.rows[0]!.suspended_at;
    const monthLater = new Date(suspendedAt);
    monthLater.setUTCMonth(monthLater.getUTCMonth() + 1);
    await clockTo(t, new Date(monthLater.getTime() - minutes(1)));
    await settle(jobs);
    expect((await t.call('GET', `/watchlists/${watchlist.watchlistId}`)).json().toDate).toBeNull();
    await clockTo(t, monthLater);
    await settle(jobs);
    const ended = (await t.call('GET', `/watchlists/${watchlist.watchlistId}`)).json();
    expect(ended.toDate).not.toBeNull();
    expect(ended.suspended).toBe(true);
    const resume = await t.call('PUT', `/watchlists/${watchlist.watchlistId}`, {
      payload: { suspended: false },
    });
    expect(resume.statusCode).toBe(400);
    expect(resume.body).toContain('end-dated');
    // An end-dated watchlist gets no more records.
    const before = (await notifications(t, watchlist.watchlistId)).length;
    await makeChange(t);
    await settle(jobs);
    expect(await notifications(t, watchlist.watchlistId)).toHaveLength(before);
    receiver.answer = () => 200;
  });
});

describe('fan-out', () => {
  it('matches listed numbers, the wildcards and the change event types', async () => {
    const all = receiver.endpoint();
    const news = receiver.endpoint();
    const names = receiver.endpoint();
    const companies = receiver.endpoint();
    const incorporated = receiver.endpoint();
    const unincorporated = receiver.endpoint();
    await createWatchlist(t, { pushEndpoint: all, wildcard: 'ALL', nzbns: [] });
    await createWatchlist(t, { pushEndpoint: news, wildcard: 'ALL', changeEventTypes: ['NEW'], nzbns: [] });
    await createWatchlist(t, { pushEndpoint: names, changeEventTypes: ['ENTITY_NAME'] });
    await createWatchlist(t, { pushEndpoint: companies, wildcard: 'COMPANIES', nzbns: [] });
    await createWatchlist(t, { pushEndpoint: incorporated, wildcard: 'incorporated', nzbns: [] });
    await createWatchlist(t, { pushEndpoint: unincorporated, wildcard: 'UNINCORPORATED', nzbns: [] });
    await makeChange(t, FIXTURE.authority);
    await makeChange(t, FIXTURE.privateData);
    const registered = await t.call('POST', '/entities', {
      token: t.owner.token,
      payload: { entityTypeCode: 'Sole_Trader', entityName: 'Kōwhai Lane Joinery' },
    });
    expect(registered.statusCode, registered.body).toBe(200);
    await settle(jobs);
    expect(receiver.on(pathOf(all)).length).toBeGreaterThanOrEqual(2);
    const newItems = receiver.on(pathOf(news)).map((r) => JSON.parse(r.body));
    expect(newItems.every((item) => item.changeEventType === 'NEW')).toBe(true);
    expect(newItems).toHaveLength(1);
    expect(newItems[0].nzbn).toBe(registered.json().nzbn);
    // A website change is not an entity name change.
    expect(receiver.on(pathOf(names))).toHaveLength(0);
    // The two changed fixtures are limited companies, the registration a sole trader.
    const nzbnsAt = (endpoint: string) =>
      new Set(receiver.on(pathOf(endpoint)).map((r) => JSON.parse(r.body).nzbn as string));
    const soleTrader = registered.json().nzbn as string;
    for (const endpoint of [companies, incorporated]) {
      const seen = nzbnsAt(endpoint);
      expect([FIXTURE.authority, FIXTURE.privateData].every((nzbn) => seen.has(nzbn))).toBe(true);
      expect(seen.has(soleTrader)).toBe(false);
    }
    const seen = nzbnsAt(unincorporated);
    expect(seen.has(soleTrader)).toBe(true);
    expect(seen.has(FIXTURE.authority) || seen.has(FIXTURE.privateData)).toBe(false);
  });

  it('refuses the PUBLIC_SECTOR wildcard, whose entities no watchlist reports', async () => {
    const response = await t.call('POST', '/watchlists', {
      token: t.owner.token,
      payload: {
        name: 'Councils',
        channel: 'PUSH',
        pushEndpoint: receiver.endpoint(),
        wildcard: 'PUBLIC_SECTOR',
        adminEmailAddress: 'admin@example.test',
        nzbns: [],
      },
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().list[0].field).toBe('wildcard');
    expect(response.body).toContain('public sector');
  });
});

describe('email digests', () => {
  it('sends a daily digest per address with the changes since the last one', async () => {
    const address = `digest-${Date.now()}@example.test`;
    await createWatchlist(t, {
      channel: 'EMAIL',
      frequency: 'DAILY',
      watchlistEmailAddresses: [address],
      adminEmailAddress: undefined,
    });
    const outbox = () => listOutbox(t.gateway.runtime.gateway.pool, { to: address });
    await makeChange(t);
    await settle(jobs);
    expect(await outbox()).toHaveLength(1);
    // Within the day: collected, not sent.
    await makeChange(t);
    await makeChange(t);
    await settle(jobs);
    expect(await outbox()).toHaveLength(1);
    await clockTo(t, new Date(sandboxNow(t).getTime() + 24 * 60 * minutes(1)));
    await settle(jobs);
    const mail = await outbox();
    expect(mail).toHaveLength(2);
    expect(mail[0]!.subject).toContain('2 changes');
    expect(mail[0]!.text).toContain(FIXTURE.authority);
  });
});

describe('test notifications', () => {
  it('go through the same signed push delivery, in turn, and into the email digest', async () => {
    const endpoint = receiver.endpoint();
    const watchlist = await createWatchlist(t, { pushEndpoint: endpoint });
    const sent = await t.call('POST', `/watchlists/${watchlist.watchlistId}/action-send-test-notification`, {
      payload: { text: 'Checking our receiver' },
    });
    expect(sent.statusCode, sent.body).toBe(201);
    expect(sent.json()).toEqual({ text: 'Checking our receiver' });
    await settle(jobs);
    const [delivery] = receiver.on(pathOf(endpoint));
    expect(JSON.parse(delivery!.body)).toEqual({ text: 'Checking our receiver' });
    expect(() =>
      new Webhook(watchlist.webhookSecret).verify(
        delivery!.body,
        delivery!.headers as Record<string, string>,
      ),
    ).not.toThrow();
    const [record] = await notifications(t, watchlist.watchlistId);
    expect(record!.delivered_at).not.toBeNull();
    // A test is no change: the last change notice stays as it was.
    const read = (await t.call('GET', `/watchlists/${watchlist.watchlistId}`)).json();
    expect(read.lastSuccessfulChangeNoticeId).toBeNull();
    const plain = await t.call('POST', `/watchlists/${watchlist.watchlistId}/action-send-test-notification`, {
      payload: {},
    });
    expect(plain.json().text).toMatch(/test notification/i);

    const address = `test-note-${Date.now()}@example.test`;
    const email = await createWatchlist(t, {
      channel: 'EMAIL',
      frequency: 'DAILY',
      watchlistEmailAddresses: [address],
      adminEmailAddress: undefined,
    });
    await t.call('POST', `/watchlists/${email.watchlistId}/action-send-test-notification`, {
      payload: { text: 'Hello inbox' },
    });
    await settle(jobs);
    const mail = await listOutbox(t.gateway.runtime.gateway.pool, { to: address });
    expect(mail).toHaveLength(1);
    expect(mail[0]!.text).toContain('Hello inbox');
    const missing = await t.call('POST', '/watchlists/2147483647/action-send-test-notification', {
      payload: { text: 'x' },
    });
    expect(missing.statusCode).toBe(404);
  });
});

describe('stopping', () => {
  it('abandons an attempt in flight without counting it, and gives the watchlist back', async () => {
    await jobs.stop();
    const own = await startJobs(t.gateway.runtime, 'http://127.0.0.1:8080');
    const endpoint = receiver.endpoint();
    const path = pathOf(endpoint);
    receiver.answer = (request) => (request.path === path ? 'hang' : 200);
    const watchlist = await createWatchlist(t, { pushEndpoint: endpoint });
    await makeChange(t);
    const settling = own.settle().catch(() => {});
    await receiver.waitFor(path, 1);
    await own.stop();
    await settling;
    const [record] = await notifications(t, watchlist.watchlistId);
    expect(record!.attempts).toBe(0);
    const row = await t.gateway.runtime.environments.sandbox.pool.query(
      'SELECT lease_worker, next_due_at FROM nzbn_watchlists WHERE number = $1',
      [watchlist.watchlistId],
    );
    expect(row.rows[0].lease_worker).toBeNull();
    expect(row.rows[0].next_due_at).not.toBeNull();
    receiver.answer = () => 200;
  });
});
