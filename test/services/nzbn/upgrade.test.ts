import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/platform/db/migrations.ts';
import { type Database, openDatabase } from '../../../src/platform/db/pool.ts';
import { documentEtag } from '../../../src/services/nzbn/store/rows.ts';
import { freshDatabases } from '../../support/runtime.ts';

/**
 * A register stored before the published shapes (migrations 001–007) upgraded: a stored entity's payment
 * bank accounts become the published four parts (009) and its business ethnicity the published values
 * (013), with a new ETag that is its document's hash, a stored organisation part the published
 * OrganisationPart, its values and columns (010), and a watchlist of our earlier NEW wildcard the
 * published ALL of change event type NEW (018).
 */
const MIGRATIONS = path.join(import.meta.dirname, '../../../src/services/nzbn/migrations');
// The ledger comes first in every environment's database (runtime.ts): migration 007 moves fees into it.
const BILLING = { module: 'billing', dir: path.join(import.meta.dirname, '../../../src/billing/migrations') };
const E = '9429000001007';
const OPN = '9429800000019';
let database: Database;
let drop: () => Promise<void>;
let before: string;

beforeAll(async () => {
  const urls = await freshDatabases();
  drop = urls.drop;
  database = openDatabase(urls.sandbox);
  before = await mkdtemp(path.join(tmpdir(), 'rsg-nzbn-007-'));
  for (const file of await readdir(MIGRATIONS)) {
    if (file < '008') await copyFile(path.join(MIGRATIONS, file), path.join(before, file));
  }
  await migrate(database.pool, [BILLING, { module: 'nzbn', dir: before }]);
});
afterAll(async () => {
  await database?.close();
  await drop?.();
  if (before) await rm(before, { recursive: true, force: true });
});

describe('upgrading a register stored before the published shapes', () => {
  it('converts stored bank accounts and organisation parts, and leaves their answers hashable', async () => {
    const stamp = '2009-03-24T10:00:00.000+1300';
    const old = {
      nzbn: E,
      entityName: 'SANDBOX TEST COMPANY LIMITED',
      paymentBankAccounts: [
        { uniqueIdentifier: '7', bankAccountNumber: '01-0902-0068389-00', startDate: stamp },
      ],
      businessEthnicityIdentifiers: [
        {
          uniqueIdentifier: '8',
          ethnicity: 'PASIFIKA',
          identifyingFactors: [
            { identifyingFactor: 'OWNERSHIP', identifyingFactorOtherDescription: null },
            { identifyingFactor: 'OTHER_PLEASE_SPECIFY', identifyingFactorOtherDescription: 'Whānau' },
          ],
          startDate: stamp,
        },
      ],
    };
    const text = JSON.stringify(old);
    await database.pool.query(
      `INSERT INTO nzbn_entities (nzbn, origin, entity_name, sort_name, status_code, type_code, registration_date,
         search_text, last_updated, etag, document)
       VALUES ($1, 'fixture', 'SANDBOX TEST COMPANY LIMITED', 'sandbox test company', '50', 'LTD', now(), 'sandbox',
         now(), $2, $3)`,
      [E, documentEtag(text), text],
    );
    const part = {
      opn: OPN,
      parentNzbn: E,
      parentNzbnName: 'SANDBOX TEST COMPANY LIMITED',
      parentGln: E,
      name: 'Sandbox Test Depot',
      purposes: ['Invoicing', 'Delivery'],
      function: 'Warehouse',
      organisationPartStatus: 'Inactive',
      addresses: [
        {
          uniqueIdentifier: '9',
          startDate: stamp,
          endDate: null,
          careOf: null,
          address1: '1 Wharf Road',
          address2: null,
          address3: 'Napier',
          address4: null,
          postCode: '4110',
          countryCode: 'NZ',
          addressType: 'REGISTERED',
          pafId: null,
        },
      ],
      phoneNumbers: [],
      emailAddresses: [
        {
          uniqueIdentifier: '10',
          emailAddress: 'depot@example.test',
          emailPurpose: 'Primary',
          emailPurposeDescription: 'Primary',
          startDate: stamp,
        },
      ],
      gstNumber: null,
      paymentBankAccountNumber: null,
      customData: { dock: '7' },
      privacy: 'shared',
      nzbnList: ['9429000001014'],
      startDate: stamp,
      statusDate: stamp,
    };
    await database.pool.query(
      `INSERT INTO nzbn_organisation_parts (opn, parent_nzbn, parent_gln, name, function, status, privacy, nzbn_list,
         last_updated, etag, document)
       VALUES ($1, $2, $2, $3, 'Warehouse', 'Inactive', 'shared', '{9429000001014}', now(), 'old', $4)`,
      [OPN, E, part.name, JSON.stringify(part)],
    );

    // A watchlist of our earlier NEW wildcard (every new registration).
    await database.pool.query(
      `INSERT INTO nzbn_watchlists (owner_key, name, channel, frequency, wildcard, change_event_types,
         watchlist_email_addresses, webhook_secret, from_date, created_at, updated_at)
       VALUES ('sub:old', 'Registrations', 'EMAIL', 'DAILY', 'NEW', '{ALL}', '{a@example.test}', 'whsec_x', now(), now(), now())`,
    );

    await migrate(database.pool, [BILLING, { module: 'nzbn', dir: MIGRATIONS }]);

    const watchlist = await database.pool.query(
      `SELECT wildcard, change_event_types FROM nzbn_watchlists WHERE owner_key = 'sub:old'`,
    );
    expect(watchlist.rows).toEqual([{ wildcard: 'ALL', change_event_types: ['NEW'] }]);

    const entity = (
      await database.pool.query<{ document: string; etag: string; version: number }>(
        'SELECT document::text AS document, etag, version FROM nzbn_entities WHERE nzbn = $1',
        [E],
      )
    ).rows[0]!;
    // The published key order, the rest of the document byte for byte, and an ETag that is its hash.
    expect(entity.document).toBe(
      JSON.stringify({
        ...old,
        paymentBankAccounts: [
          {
            uniqueIdentifier: '7',
            accountName: null,
            bankId: '01',
            bankBranch: '0902',
            accountBase: '0068389',
            accountSuffix: '00',
            purpose: null,
            startDate: stamp,
          },
        ],
        businessEthnicityIdentifiers: [
          {
            uniqueIdentifier: '8',
            ethnicity: 'OTHER',
            identifyingFactors: [
              { identifyingFactor: 'OWNERSHIP_50_PERCENT_OR_MORE', identifyingFactorOtherDescription: null },
              { identifyingFactor: 'OWNERSHIP_UNSPECIFIED', identifyingFactorOtherDescription: 'Whānau' },
            ],
            startDate: stamp,
          },
        ],
      }),
    );
    expect(entity.etag).toBe(documentEtag(entity.document));
    // Migrations 009 (bank accounts) and 013 (ethnicity) each made a new version.
    expect(entity.version).toBe(3);

    const stored = (
      await database.pool.query<{
        document: Record<string, unknown>;
        status: string;
        privacy: string;
        function: string;
      }>('SELECT document, status, privacy, function FROM nzbn_organisation_parts WHERE opn = $1', [OPN])
    ).rows[0]!;
    expect(stored).toMatchObject({ status: 'INACTIVE', privacy: 'SHARED', function: 'PHYSICAL_LOCATION' });
    expect(Object.keys(stored.document)).toEqual([
      'opn',
      'parentNzbn',
      'parentNzbnName',
      'parentGln',
      'name',
      'purposes',
      'function',
      'organisationPartStatus',
      'addresses',
      'phoneNumbers',
      'emailAddresses',
      'gstNumber',
      'paymentBankAccountNumber',
      'custom-data',
      'privacy',
      'nzbn-list',
      'startDate',
      'statusDate',
    ]);
    expect(stored.document).toMatchObject({
      purposes: [
        {
          uniqueIdentifier: expect.stringMatching(/^\d+$/),
          purpose: 'E_INVOICING',
          purposeDescription: 'Invoicing',
        },
        {
          uniqueIdentifier: expect.stringMatching(/^\d+$/),
          purpose: 'OTHER',
          purposeDescription: 'Delivery',
        },
      ],
      organisationPartStatus: 'INACTIVE',
      privacy: 'SHARED',
      'custom-data': [
        { uniqueIdentifier: expect.stringMatching(/^\d+$/), key: 'dock', value: '7', startDate: stamp },
      ],
      'nzbn-list': [{ nzbn: '9429000001014' }],
      emailAddresses: [
        expect.objectContaining({ emailPurpose: 'OTHER', emailPurposeDescription: 'Primary' }),
      ],
    });
    const [address] = stored.document.addresses as Record<string, unknown>[];
    expect(address).toMatchObject({ addressType: 'PHYSICAL', address1: '1 Wharf Road' });
    expect(address).not.toHaveProperty('endDate');
    // The new values are the only ones the columns take now.
    await expect(
      database.pool.query("UPDATE nzbn_organisation_parts SET status = 'Active' WHERE opn = $1", [OPN]),
    ).rejects.toThrow(/check/);
  });
});
