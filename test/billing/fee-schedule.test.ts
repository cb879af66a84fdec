import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FEE_SCHEDULE,
  DEFAULT_FEES,
  gstCents,
  parseFeeScheduleOverrides,
  quote,
} from '../../src/billing/domain/fee-schedule.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('GST', () => {
  it('is 15 % of the amount, to the nearest cent, a half cent up', () => {
    expect([0, 1, 3, 10, 150, 200, 500, 1_200, 20_000].map(gstCents)).toEqual([
      0, 0, 0, 2, 23, 30, 75, 180, 3_000,
    ]);
    // 15 % of 3 cents is 0.45 (down); of 10 is 1.5 (up); of 150 is 22.5 (up).
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000 }), (cents) => {
        const exact = cents * 0.15;
        expect(Math.abs(gstCents(cents) - exact)).toBeLessThanOrEqual(0.5);
        expect((cents * 15) % 100 === 50 ? gstCents(cents) > exact : true).toBe(true);
      }),
    );
    expect(() => gstCents(-1)).toThrow(/whole number of cents/);
    expect(() => gstCents(1.5)).toThrow(/whole number of cents/);
  });
});

describe('the default schedule', () => {
  it('prices a debtor search by API below the website’s NZ$2, and every fee in whole cents', () => {
    expect(quote(DEFAULT_FEE_SCHEDULE, 'PPSR_SEARCH_DEBTOR_ORGANISATION', 'Web')).toMatchObject({
      amountCents: 200,
      gstCents: 30,
    });
    expect(quote(DEFAULT_FEE_SCHEDULE, 'PPSR_SEARCH_DEBTOR_ORGANISATION', 'API').amountCents).toBeLessThan(
      200,
    );
    expect(quote(DEFAULT_FEE_SCHEDULE, 'NZBN_ORGANISATION_PART', 'API')).toMatchObject({
      service: 'nzbn',
      amountCents: 500,
      gstCents: 75,
    });
    for (const fee of DEFAULT_FEES) {
      expect(fee.code.startsWith(`${fee.service.toUpperCase()}_`), fee.code).toBe(true);
      expect(Number.isSafeInteger(fee.cents.API) && Number.isSafeInteger(fee.cents.Web)).toBe(true);
    }
    expect(() => quote(DEFAULT_FEE_SCHEDULE, 'NO_SUCH_FEE', 'API')).toThrow(/no fee code NO_SUCH_FEE/);
    // Per class: one fee, GST once on the product (3 × NZ$200 = NZ$600, GST NZ$90).
    expect(quote(DEFAULT_FEE_SCHEDULE, 'IPONZ_TRADE_MARK_RENEWAL', 'API', 3)).toMatchObject({
      amountCents: 60_000,
      gstCents: 9_000,
      description: 'Trade mark renewal fee, per class × 3',
    });
    expect(() => quote(DEFAULT_FEE_SCHEDULE, 'IPONZ_TRADE_MARK_RENEWAL', 'API', 0)).toThrow(/quantity/);
  });

  it('is the table in src/billing/README.md', async () => {
    const { readFile } = await import('node:fs/promises');
    const readme = await readFile(new URL('../../src/billing/README.md', import.meta.url), 'utf8');
    const rows = [
      ...readme.matchAll(/^\| `([A-Z0-9_]+)` \| (\w+) \| [^|]+ \| ([\d.]+) \| ([\d.]+) \|$/gm),
    ].map((m) => `${m[1]} ${m[2]} ${m[3]} ${m[4]}`);
    const cents = (n: number) => (n / 100).toFixed(2);
    expect(rows).toEqual(
      DEFAULT_FEES.map((f) => `${f.code} ${f.service} ${cents(f.cents.API)} ${cents(f.cents.Web)}`),
    );
  });
});

describe('operator overrides', () => {
  it('change amounts and descriptions of known codes, and leave the rest', () => {
    const schedule = parseFeeScheduleOverrides(
      JSON.stringify({
        fees: { PPSR_RENEWAL: { API: 1_000, description: 'Renewal' }, NZBN_ORGANISATION_PART: { Web: 0 } },
      }),
    );
    expect(schedule.get('PPSR_RENEWAL')).toMatchObject({
      cents: { API: 1_000, Web: 1_600 },
      description: 'Renewal',
    });
    expect(schedule.get('NZBN_ORGANISATION_PART')?.cents).toEqual({ API: 500, Web: 0 });
    expect(schedule.get('PPSR_REGISTRATION')).toEqual(DEFAULT_FEE_SCHEDULE.get('PPSR_REGISTRATION'));
  });

  it.each([
    ['not json', /fees: the file is not JSON/],
    ['[]', /must be an object with one key, "fees"/],
    ['{"fees": {"NEW_FEE": {"API": 1}}}', /fees.NEW_FEE: is not a fee code/],
    ['{"fees": {"PPSR_RENEWAL": {"API": -1}}}', /fees.PPSR_RENEWAL.API: must be a whole number of cents/],
    ['{"fees": {"PPSR_RENEWAL": {"API": 1.5}}}', /fees.PPSR_RENEWAL.API: must be a whole number of cents/],
    ['{"fees": {"PPSR_RENEWAL": {"GST": 1}}}', /fees.PPSR_RENEWAL.GST: is not a setting of a fee/],
    ['{"fees": {"PPSR_RENEWAL": {"description": " "}}}', /fees.PPSR_RENEWAL.description: must be text/],
  ])('refuse %s, naming the place', (text, message) => {
    expect(() => parseFeeScheduleOverrides(text)).toThrow(message);
  });

  it('come from the file RSG_FEE_SCHEDULE names; a bad one stops the start naming the variable', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rsg-fees-'));
    const good = path.join(dir, 'fees.json');
    await writeFile(good, JSON.stringify({ fees: { PPSR_RENEWAL: { API: 999 } } }));
    const config = loadConfig({ RSG_FEE_SCHEDULE: good });
    expect(config.fees.schedule.get('PPSR_RENEWAL')?.cents.API).toBe(999);
    expect(config.fees.overrides).toBe(good);
    expect(config.fees.enabled).toBe(true);
    expect(loadConfig({}).fees.schedule).toBe(DEFAULT_FEE_SCHEDULE);
    expect(loadConfig({ RSG_FEES: 'off' }).fees.enabled).toBe(false);
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, '{"fees": {"PPSR_RENEWAL": {"API": "ten"}}}');
    expect(() => loadConfig({ RSG_FEE_SCHEDULE: bad })).toThrow(ConfigError);
    expect(() => loadConfig({ RSG_FEE_SCHEDULE: bad })).toThrow(
      /^RSG_FEE_SCHEDULE: .*bad.json: fees.PPSR_RENEWAL.API/,
    );
    expect(() => loadConfig({ RSG_FEE_SCHEDULE: path.join(dir, 'missing.json') })).toThrow(
      /^RSG_FEE_SCHEDULE: cannot read/,
    );
    expect(() => loadConfig({ RSG_FEES: 'maybe' })).toThrow(/^RSG_FEES: must be one of on, off/);
  });
});
