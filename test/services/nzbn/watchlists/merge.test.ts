import { describe, expect, it } from 'vitest';
import { RuleError } from '../../../../src/platform/errors.ts';
import {
  type CurrentWatchlist,
  mergeWatchlist,
  type WatchlistFields,
  type WatchlistInput,
} from '../../../../src/services/nzbn/domain/watchlist.ts';

const NOW = new Date('2030-03-04T00:00:00.000Z');

const EMAIL_LIST: CurrentWatchlist = {
  name: 'Suppliers',
  channel: 'EMAIL',
  frequency: 'DAILY',
  wildcard: null,
  changeEventTypes: ['ALL'],
  pushEndpoint: null,
  authorizationToken: null,
  adminEmailAddress: null,
  watchlistEmailAddresses: ['ops@example.com'],
  fromDate: new Date('2030-01-01T00:00:00.000Z'),
  toDate: null,
  suspended: false,
};

const PUSH_LIST: CurrentWatchlist = {
  ...EMAIL_LIST,
  channel: 'PUSH',
  frequency: 'ONEVENT',
  pushEndpoint: 'https://hooks.example.com/nzbn',
  authorizationToken: 'Bearer abc',
  adminEmailAddress: 'admin@example.com',
  watchlistEmailAddresses: [],
};

describe('mergeWatchlist: what a body makes of the stored watchlist', () => {
  const cases: {
    name: string;
    body: WatchlistInput;
    current: CurrentWatchlist | null;
    expected: Partial<WatchlistFields>;
  }[] = [
    {
      name: 'a new EMAIL watchlist takes the defaults (DAILY, ALL types, from now, not suspended)',
      body: { name: ' Suppliers ', channel: 'email', watchlistEmailAddresses: ['a@example.com'] },
      current: null,
      expected: {
        name: 'Suppliers',
        channel: 'EMAIL',
        frequency: 'DAILY',
        wildcard: null,
        changeEventTypes: ['ALL'],
        fromDate: NOW,
        toDate: null,
        suspended: false,
        pushEndpoint: null,
        authorizationToken: null,
      },
    },
    {
      name: 'a new PUSH watchlist defaults to ONEVENT; NEW, the earlier wildcard, is ALL of type NEW',
      body: {
        name: 'Hooks',
        channel: 'PUSH',
        pushEndpoint: 'http://localhost:8080/x',
        adminEmailAddress: 'admin@example.com',
        wildcard: 'new',
      },
      current: null,
      expected: {
        channel: 'PUSH',
        frequency: 'ONEVENT',
        wildcard: 'ALL',
        changeEventTypes: ['NEW'],
        watchlistEmailAddresses: [],
      },
    },
    {
      name: 'IMMEDIATE, the earlier name, is ONEVENT; lists come as comma-joined text too',
      body: {
        frequency: 'immediate',
        changeEventTypes: 'new, ENTITY_NAME',
        watchlistEmailAddresses: 'a@x.nz, b@x.nz',
      },
      current: EMAIL_LIST,
      expected: {
        frequency: 'ONEVENT',
        changeEventTypes: ['NEW', 'ENTITY_NAME'],
        watchlistEmailAddresses: ['a@x.nz', 'b@x.nz'],
      },
    },
    {
      name: 'an empty update keeps every stored field',
      body: {},
      current: PUSH_LIST,
      expected: { ...PUSH_LIST },
    },
    {
      name: 'fields given replace, change types are upper-cased once each',
      body: { name: 'Renamed', frequency: 'weekly', changeEventTypes: ['new', ' NEW ', 'ENTITY_NAME'] },
      current: EMAIL_LIST,
      expected: { name: 'Renamed', frequency: 'WEEKLY', changeEventTypes: ['NEW', 'ENTITY_NAME'] },
    },
    {
      name: 'null clears a nullable field; undefined keeps it',
      body: { authorizationToken: null, toDate: '2031-01-01' },
      current: PUSH_LIST,
      expected: {
        authorizationToken: null,
        pushEndpoint: PUSH_LIST.pushEndpoint,
        toDate: new Date('2030-12-31T11:00:00.000Z'),
      },
    },
    {
      name: 'suspended: false resumes a suspended watchlist',
      body: { suspended: false },
      current: { ...PUSH_LIST, suspended: true },
      expected: { suspended: false },
    },
  ];
  it.each(cases)('$name', ({ body, current, expected }) => {
    expect(mergeWatchlist(body, current, NOW)).toMatchObject(expected);
  });
});

describe('mergeWatchlist: broken rules name the field', () => {
  const cases: {
    name: string;
    body: WatchlistInput;
    current: CurrentWatchlist | null;
    field: string;
    rule: RegExp;
  }[] = [
    { name: 'no name', body: { channel: 'EMAIL' }, current: null, field: 'name', rule: /is required/ },
    { name: 'a blank name', body: { name: '  ' }, current: EMAIL_LIST, field: 'name', rule: /is required/ },
    {
      name: 'an unknown channel',
      body: { channel: 'SMS' },
      current: EMAIL_LIST,
      field: 'channel',
      rule: /EMAIL or PUSH/,
    },
    {
      name: 'an unknown frequency',
      body: { frequency: 'HOURLY' },
      current: EMAIL_LIST,
      field: 'frequency',
      rule: /ONEVENT, DAILY, WEEKLY/,
    },
    {
      name: 'an unknown wildcard',
      body: { wildcard: 'SOME' },
      current: EMAIL_LIST,
      field: 'wildcard',
      rule: /ALL .* UNINCORPORATED/,
    },
    {
      name: 'NEW, the earlier wildcard, with other change event types',
      body: { wildcard: 'NEW', changeEventTypes: 'ENTITY_NAME' },
      current: EMAIL_LIST,
      field: 'changeEventTypes',
      rule: /only the change event type NEW/,
    },
    {
      name: 'an unknown change type',
      body: { changeEventTypes: ['ALL', 'BOGUS'] },
      current: EMAIL_LIST,
      field: 'changeEventTypes',
      rule: /"BOGUS"/,
    },
    {
      name: 'no change types',
      body: { changeEventTypes: [' '] },
      current: EMAIL_LIST,
      field: 'changeEventTypes',
      rule: /at least one/,
    },
    {
      name: 'a plain http endpoint',
      body: { pushEndpoint: 'http://example.com/x' },
      current: PUSH_LIST,
      field: 'pushEndpoint',
      rule: /https/,
    },
    {
      name: 'an endpoint with credentials',
      body: { pushEndpoint: 'https://u:p@example.com/' },
      current: PUSH_LIST,
      field: 'pushEndpoint',
      rule: /user name or password/,
    },
    {
      name: 'a bad admin address',
      body: { adminEmailAddress: 'nobody' },
      current: PUSH_LIST,
      field: 'adminEmailAddress',
      rule: /not an email/,
    },
    {
      name: 'a bad list address',
      body: { watchlistEmailAddresses: ['a@b.nz', 'x'] },
      current: EMAIL_LIST,
      field: 'watchlistEmailAddresses',
      rule: /"x"/,
    },
    {
      name: 'PUSH without an endpoint',
      body: { channel: 'PUSH', adminEmailAddress: 'a@b.nz' },
      current: EMAIL_LIST,
      field: 'pushEndpoint',
      rule: /required for the PUSH/,
    },
    {
      name: 'PUSH without an administrator',
      body: { pushEndpoint: 'https://h.example.com', adminEmailAddress: null },
      current: PUSH_LIST,
      field: 'adminEmailAddress',
      rule: /required for the PUSH/,
    },
    {
      name: 'EMAIL without addresses',
      body: { watchlistEmailAddresses: [] },
      current: EMAIL_LIST,
      field: 'watchlistEmailAddresses',
      rule: /at least one address/,
    },
    {
      name: 'a date that is not one',
      body: { fromDate: 'soon' },
      current: EMAIL_LIST,
      field: 'fromDate',
      rule: /must be a date-time/,
    },
    {
      name: 'an end before the start',
      body: { toDate: '2029-01-01' },
      current: EMAIL_LIST,
      field: 'toDate',
      rule: /before fromDate/,
    },
    {
      name: 'suspending by hand',
      body: { suspended: true },
      current: EMAIL_LIST,
      field: 'suspended',
      rule: /only delivery/,
    },
    {
      name: 'resuming an end-dated watchlist',
      body: { suspended: false },
      current: { ...PUSH_LIST, suspended: true, endDatedAt: NOW },
      field: 'suspended',
      rule: /end-dated/,
    },
  ];
  it.each(cases)('$name → $field', ({ body, current, field, rule }) => {
    let thrown: unknown;
    try {
      mergeWatchlist(body, current, NOW);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RuleError);
    expect((thrown as RuleError).field).toBe(field);
    expect((thrown as RuleError).rule).toMatch(rule);
  });
});
