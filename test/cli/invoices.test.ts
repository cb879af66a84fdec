import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/platform/db/pool.ts';
import { insertFees, organisationWithOwner } from '../billing/support/invoices.ts';
import { rsg } from '../support/cli.ts';
import { migratedDatabases } from '../support/runtime.ts';

let databases: Awaited<ReturnType<typeof migratedDatabases>>;
let gateway: Database;
let production: Database;
let dir: string;

beforeAll(async () => {
  databases = await migratedDatabases();
  gateway = openDatabase(databases.gateway, 2);
  production = openDatabase(databases.production, 2);
  dir = mkdtempSync(join(tmpdir(), 'rsg-invoices-cli-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await Promise.all([gateway?.close(), production?.close()]);
  await databases?.drop();
});

describe('rsg invoices', () => {
  it('run closes the ended months; list, show (CSV, PDF) and credit', async () => {
    const org = await organisationWithOwner(gateway.pool, 'Command Line Ltd', 'production');
    await insertFees(production.pool, [
      { organisationId: org.id, chargedAt: new Date('2025-03-05T00:00:00Z'), amountCents: 150 },
      { organisationId: org.id, chargedAt: new Date('2025-03-06T00:00:00Z'), amountCents: 150 },
      {
        organisationId: org.id,
        chargedAt: new Date('2025-03-07T00:00:00Z'),
        amountCents: 1200,
        feeCode: 'REG',
      },
    ]);
    const urls = databases;
    const run = await rsg(['invoices', 'run', '--environment', 'production'], { urls });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('production 2025-03: 1 invoices, 3 fees (numbers 1–1)');
    const again = await rsg(['invoices', 'run'], { urls });
    expect(again.stdout.trim()).toBe('no month has ended with fees not yet invoiced');

    const list = await rsg(['invoices', 'list', '--json'], { urls });
    const invoices = JSON.parse(list.stdout) as {
      reference: string;
      environment: string;
      totalCents: number;
    }[];
    expect(invoices.map((i) => [i.reference, i.environment, i.totalCents])).toEqual([
      ['INV-000001', 'production', 1725],
    ]);

    const show = await rsg(['invoices', 'show', 'INV-1', '--environment', 'production'], { urls });
    expect(show.stdout).toContain('INV-000001\tproduction\t2025-03');
    expect(show.stdout).toContain('2 × 1.50');
    expect(show.stdout).toContain('total NZ$17.25');

    const csv = await rsg(['invoices', 'show', 'INV-000001', '--environment', 'production', '--csv', '-'], {
      urls,
    });
    const rows = csv.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^document,kind,organisation,period/);
    expect(rows).toHaveLength(4);
    expect(rows[3]).toMatch(/TOTAL,,,,,3,,15\.00,2\.25,17\.25$/);

    const pdf = join(dir, 'invoice.pdf');
    const written = await rsg(
      ['invoices', 'show', 'INV-000001', '--environment', 'production', '--pdf', pdf],
      {
        urls,
      },
    );
    expect(written.code).toBe(0);
    expect(readFileSync(pdf).subarray(0, 5).toString()).toBe('%PDF-');

    const credit = await rsg(
      [
        'invoices',
        'credit',
        'INV-000001',
        '--environment',
        'production',
        '--reason',
        'search repeated',
        '--amount',
        '150',
      ],
      { urls },
    );
    expect(credit.stderr).toBe('');
    expect(credit.stdout).toContain('CN-000001\tproduction\t2025-03');
    expect(credit.stdout).toContain('credits INV-000001');
    expect(credit.stdout).toContain('total NZ$1.73'); // 150 + 22.5 rounded half up
  });

  it('refuses bad input naming the option', async () => {
    const urls = databases;
    const cases: [string[], RegExp][] = [
      [
        ['invoices', 'show', 'nonsense', '--environment', 'production'],
        /number: "nonsense" is not an invoice number/,
      ],
      [['invoices', 'show', 'INV-000999', '--environment', 'production'], /no INV-000999 in production/],
      [['invoices', 'show', 'INV-000001'], /--environment must be sandbox or production/],
      [['invoices', 'list', '--period', '2025-13'], /--period must be a month such as 2026-11/],
      [
        ['invoices', 'run', '--environment', 'production', '--period', '2099-01'],
        /period: 2099-01 has not ended yet/,
      ],
      [['invoices', 'credit', 'INV-000001', '--environment', 'production'], /--reason is required/],
      [
        [
          'invoices',
          'credit',
          'INV-000001',
          '--environment',
          'production',
          '--reason',
          'x',
          '--amount',
          '99999',
        ],
        /amount: INV-000001 has 1350 cents \(net\) left to credit/,
      ],
      [['invoices', 'frobnicate'], /invoices list/],
    ];
    for (const [args, message] of cases) {
      const result = await rsg(args, { urls });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
  });
});
