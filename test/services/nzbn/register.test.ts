import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { glnCheckDigit, isValidGln } from '../../../src/platform/gs1.ts';
import { signedInUser } from '../../support/oauth.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { OpenApi } from './support/openapi.ts';

let t: NzbnTest;
let api: OpenApi;
beforeAll(async () => {
  t = await nzbnTest({ entities: 1_000 });
  api = await OpenApi.load(t);
});
afterAll(() => t?.close());

const register = (body: unknown, token = t.stranger.token) =>
  t.call('POST', '/entities', { token, payload: body });

describe('POST /entities', () => {
  it('registers sole traders, partnerships and trusts with new business numbers that carry a valid check digit', async () => {
    const numbers: string[] = [];
    for (const entityTypeCode of ['Sole_Trader', 'Partnership', 'Trading_Trust', 'SoleTrader', 'Trust']) {
      const response = await register({
        entityTypeCode,
        entityName: `Harakeke ${entityTypeCode} Services`,
        phoneNumber: [{ phoneAreaCode: '3', phoneNumber: '3791234' }],
        tradingNames: [{ name: 'Harakeke Weaving' }],
        privacySettings: { phonePrivateInformation: true },
      });
      // 200: the published status of POST /entities.
      expect(response.statusCode, response.body).toBe(200);
      api.conforms('POST', '/entities', response);
      const entity = response.json();
      numbers.push(entity.nzbn);
      expect(isValidGln(entity.nzbn)).toBe(true);
      expect(Number(entity.nzbn.slice(12))).toBe(glnCheckDigit(entity.nzbn.slice(0, 12)));
      expect(Number(entity.nzbn.slice(4, 12))).toBeGreaterThanOrEqual(70_000_000);
      expect(entity).toMatchObject({
        entityStatusCode: '50',
        sourceRegister: 'NZBN',
        'company-details': null,
      });
      expect(response.headers.location).toMatch(new RegExp(`/sandbox/nzbn/v5/entities/${entity.nzbn}$`));
      const fetched = await t.call('GET', `/entities/${entity.nzbn}`, { token: t.stranger.token });
      expect(fetched.json()).toEqual(entity);
      expect(fetched.headers.etag).toBe(response.headers.etag);
      expect((await t.call('GET', `/entities/${entity.nzbn}`)).json().phoneNumbers).toEqual([]);
    }
    expect(new Set(numbers).size).toBe(numbers.length);
    const found = (await t.call('GET', '/entities?search-term=harakeke%20weaving&page-size=50')).json();
    expect(found.items.map((i: { nzbn: string }) => i.nzbn).sort()).toEqual([...numbers].sort());
    const events = await t.gateway.runtime.environments.sandbox.pool.query(
      "SELECT nzbn FROM nzbn_change_events WHERE change_event_type = 'NEW' AND nzbn = ANY($1)",
      [numbers],
    );
    expect(events.rowCount).toBe(numbers.length);
  });

  it('gives the applicant business authority over the new entity', async () => {
    const applicant = await signedInUser(t.gateway);
    const entity = (
      await register({ entityTypeCode: 'Sole_Trader', entityName: 'Tui Lane Pottery' }, applicant.token)
    ).json();
    const added = await t.call('POST', `/entities/${entity.nzbn}/websites`, {
      token: applicant.token,
      payload: [{ url: 'https://tui-lane.example' }],
    });
    expect(added.statusCode).toBe(200);
    const other = await t.call('POST', `/entities/${entity.nzbn}/websites`, {
      token: t.owner.token,
      payload: [{ url: 'https://not-mine.example' }],
    });
    expect(other.statusCode).toBe(403);
  });

  it('refuses types that come from a source register, and bad bodies, naming the field', async () => {
    const company = await register({ entityTypeCode: 'LTD', entityName: 'Not Through Here Limited' });
    expect(company.statusCode).toBe(400);
    expect(company.json().list[0].field).toBe('entityTypeCode');
    const blank = await register({ entityTypeCode: 'Sole_Trader', entityName: '   ' });
    expect(blank.json().list[0].field).toBe('entityName');
    const phone = await register({
      entityTypeCode: 'Sole_Trader',
      entityName: 'X',
      phoneNumber: [{ phoneNumber: '1' }],
    });
    expect(phone.json().list[0].field).toBe('phoneNumber.0.phoneNumber');
    const role = await register({
      entityTypeCode: 'Partnership',
      entityName: 'Y',
      roles: [{ roleType: 'Partner' }],
    });
    expect(role.json().list[0].field).toBe('roles.0.rolePerson');
    const missing = await register({ entityName: 'Z' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().list[0].field).toBe('entityTypeCode');
  });
});

describe('POST /entities takes the published PostableEntity', () => {
  it('maps its address lists, items and roles onto the entity, ignoring the identifiers a client sends', async () => {
    const address = (address1: string) => ({
      uniqueIdentifier: '',
      startDate: '2026-01-05T00:00:00+13:00',
      address1,
      address3: 'Nelson',
      postCode: '7010',
      countryCode: 'NZ',
    });
    const response = await register({
      entityTypeCode: 'Partnership',
      entityName: 'Kahikatea Partners',
      nzbn: null,
      entityStatusCode: null,
      registeredAddress: [address('1 Rata Street')],
      postalAddress: [{ ...address('PO Box 44'), postalIsPhysicalAddress: false }],
      principalPlaceOfActivity: [address('9 Totara Lane')],
      physicalAddress: [address('12 Miro Road')],
      otherAddress: [{ ...address('3 Matai Way'), description: 'records' }],
      emailAddress: [
        { uniqueIdentifier: '77', emailAddress: 'office@kahikatea.example', emailPurpose: 'Primary' },
      ],
      phoneNumber: [{ phoneAreaCode: '3', phoneNumber: '5481234' }],
      website: [{ url: 'https://kahikatea.example' }],
      industryClassification: [{ classificationCode: 'F332310' }],
      roles: [
        { roleType: 'Partner', rolePerson: { firstName: 'Mere', lastName: 'Kahu' } },
        { roleType: 'Partner', rolePerson: { firstName: 'Tom', lastName: 'Kahu' } },
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const entity = response.json();
    const types = entity.addresses.addressList.map((a: { addressType: string; address1: string }) => [
      a.addressType,
      a.address1,
    ]);
    expect(types).toEqual([
      ['REGISTERED', '1 Rata Street'],
      ['POSTAL', 'PO Box 44'],
      ['OFFICE', '9 Totara Lane'],
      ['DELIVERY', '12 Miro Road'],
      ['RECORDS', '3 Matai Way'],
    ]);
    expect(entity.emailAddresses[0]).toMatchObject({ emailAddress: 'office@kahikatea.example' });
    expect(entity.emailAddresses[0].uniqueIdentifier).not.toBe('77');
    expect(entity.websites[0].url).toBe('https://kahikatea.example');
    expect(entity.industryClassifications[0].classificationCode).toBe('F332310');
    expect(entity.roles).toHaveLength(2);
  });

  it('refuses what the register sets, and names the field as sent', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ nzbn: '9429000000000' }, 'nzbn'],
      [{ entityStatusCode: '50' }, 'entityStatusCode'],
      [{ company: { nzsxCode: 'X' } }, 'company'],
      [
        { emailAddress: [{ emailAddress: 'a@b.example', emailPurposeDescription: 'x' }] },
        'emailAddress.0.emailPurposeDescription',
      ],
      [{ tradingNames: [{ name: 'Old', endDate: '2020-01-01' }] }, 'tradingNames.0.endDate'],
      [{ otherAddress: [{ address1: '1 A St', description: 'holiday home' }] }, 'otherAddress.0.description'],
      [
        {
          postalAddress: [{ address1: '1 A St' }],
          physicalAddress: [{ address1: '2 B St', startDate: 'soon' }],
        },
        'physicalAddress.0.startDate',
      ],
    ];
    for (const [fields, field] of cases) {
      const response = await register({
        entityTypeCode: 'Sole_Trader',
        entityName: 'Refused Trader',
        ...fields,
      });
      expect(response.statusCode, field).toBe(400);
      expect(response.json().list[0].field, response.body).toBe(field);
    }
  });
});

describe('business authorities', () => {
  it('are granted by a holder, used at once, and revoked by a holder; revocation takes effect at once', async () => {
    const listed = await t.call('GET', `/authorities?nzbn=${FIXTURE.authority}`, { token: t.owner.token });
    expect(listed.statusCode).toBe(200);
    api.conforms('GET', '/authorities', listed);
    expect(listed.json().items.map((a: { userId: string }) => a.userId)).toContain(t.owner.userId);

    const helper = await signedInUser(t.gateway);
    const tryUpdate = () =>
      t.call('POST', `/entities/${FIXTURE.authority}/trading-areas`, {
        token: helper.token,
        payload: [{ tradingArea: 'Nelson' }],
      });
    expect((await tryUpdate()).statusCode).toBe(403);
    const granted = await t.call('POST', '/authorities', {
      token: t.owner.token,
      payload: { nzbn: FIXTURE.authority, userId: helper.userId, approvalType: 'USER' },
    });
    expect(granted.statusCode).toBe(201);
    api.conforms('POST', '/authorities', granted);
    expect(granted.json()).toMatchObject({
      nzbn: FIXTURE.authority,
      userId: helper.userId,
      organisationId: null,
      AuthorityStatus: 'ACCEPTED',
      approvalType: 'USER',
    });
    expect((await tryUpdate()).statusCode).toBe(200);

    const url = `/authorities/${granted.json().authorityId}`;
    const revoked = await t.call('PUT', url, {
      token: t.owner.token,
      payload: { AuthorityStatus: 'REVOKED' },
    });
    expect(revoked.statusCode).toBe(204);
    expect((await tryUpdate()).statusCode).toBe(403);
    const again = await t.call('PUT', url, { token: t.owner.token, payload: { AuthorityStatus: 'REVOKED' } });
    expect(again.statusCode).toBe(400);
    expect(again.json().list[0].field).toBe('AuthorityStatus');
    const unknown = await t.call('PUT', '/authorities/not-a-uuid', {
      token: t.owner.token,
      payload: { AuthorityStatus: 'REVOKED' },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().errorDescription).toContain('Object Not Found');
  });

  it('a grant names an existing holder, and a user without authority cannot grant one to another', async () => {
    const nobody = await t.call('POST', '/authorities', {
      token: t.owner.token,
      payload: {
        nzbn: FIXTURE.authority,
        userId: '00000000-0000-4000-8000-000000000000',
        approvalType: 'USER',
      },
    });
    expect(nobody.json().list).toEqual([{ field: 'userId', message: 'no user has this id' }]);
    const org = await t.call('POST', '/authorities', {
      token: t.owner.token,
      payload: { nzbn: FIXTURE.authority, organisationId: 'NO-SUCH-ORG', approvalType: 'USER' },
    });
    expect(org.json().list[0].field).toBe('organisationId');
    const stranger = await t.call('POST', '/authorities', {
      token: t.stranger.token,
      payload: { nzbn: FIXTURE.authority, userId: t.owner.userId, approvalType: 'USER' },
    });
    expect(stranger.statusCode).toBe(403);
  });
});
