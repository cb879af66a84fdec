import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, addYears } from '../../../src/platform/calendar.ts';
import { generateCase } from '../../../src/services/iponz/sandbox/generator.ts';
import { type IponzTest, iponzTest, TODAY } from './support/api.ts';
import { expectValid } from './support/xsd.ts';

/**
 * Renewals in a trade mark's case history: events of their own (the day renewed, the expiry renewed, the
 * new expiry), not a repeated status. The seeded mark renewed twice and a renewal paid over REST, read
 * back as REST XML valid against the served XSD and as JSON; the generator's renewals deterministic and
 * consistent with the renewal rules.
 */
let t: IponzTest;
let xsd: string;
const parser = new XMLParser({
  parseTagValue: false,
  isArray: (name) => ['Status', 'Renewal'].includes(name),
});
beforeAll(async () => {
  t = await iponzTest();
  xsd = (await t.call('GET', '/schemas/trademark.xsd')).body;
}, 120_000);
afterAll(async () => t?.close());

const readMark = async (number: number) => {
  const xml = await t.call('GET', `/trademarks/${number}`);
  expect(xml.statusCode, xml.body).toBe(200);
  await expectValid(xml.body, xsd, `trade mark ${number}`);
  const json = await t.call('GET', `/trademarks/${number}`, { headers: { accept: 'application/json' } });
  expect(json.statusCode, json.body).toBe(200);
  return { xml: parser.parse(xml.body).TradeMark, json: json.json().TradeMark };
};

describe('the seeded history', () => {
  it('a mark filed 20 years ago shows its two renewals as events, each status once', async () => {
    const filed = addYears(addMonths(TODAY, -3), -20);
    const { xml, json } = await readMark(1000052);
    const renewals = [
      { RenewedExpiryDate: addYears(filed, 10), NewExpiryDate: addYears(filed, 20) },
      { RenewedExpiryDate: addYears(filed, 20), NewExpiryDate: addYears(filed, 30) },
    ];
    expect(xml.StatusHistory.Renewal).toMatchObject(renewals);
    expect(json.StatusHistory.Renewal).toEqual(xml.StatusHistory.Renewal);
    expect(xml.ExpiryDate).toBe(addYears(filed, 30));
    for (const [i, r] of xml.StatusHistory.Renewal.entries()) {
      expect(r.RenewalDate <= renewals[i]!.RenewedExpiryDate).toBe(true);
      expect(r.RenewalDate >= addMonths(renewals[i]!.RenewedExpiryDate, -12)).toBe(true);
    }
    const codes = xml.StatusHistory.Status.map((s: { StatusCode: string }) => s.StatusCode);
    expect(codes).toEqual(['Under Examination', 'Registered']);
    expect(json.StatusHistory.Status.map((s: { StatusCode: string }) => s.StatusCode)).toEqual(codes);
  });

  it('a mark with no renewal has an empty list in JSON and no Renewal element in XML', async () => {
    const { xml, json } = await readMark(1000050);
    expect(xml.StatusHistory.Renewal).toBeUndefined();
    expect(json.StatusHistory.Renewal).toEqual([]);
  });

  it('the generator: the same renewals every time, each renewing its due date by ten years', () => {
    let seen = 0;
    for (let i = 100; i < 2_000 && seen < 5; i++) {
      const mark = generateCase('trademark', i, TODAY, 1_000, 1_000);
      expect(generateCase('trademark', i, TODAY, 1_000, 1_000)).toEqual(mark);
      if (mark.renewals.length === 0) continue;
      seen++;
      expect(['Registered', 'Registered - past expiry date']).toContain(mark.status);
      mark.renewals.forEach((r, k) => {
        expect(r.renewedExpiryDate).toBe(addYears(mark.termDate, 10 * (k + 1)));
        expect(r.newExpiryDate).toBe(addYears(mark.termDate, 10 * (k + 2)));
        expect(r.renewalDate <= r.renewedExpiryDate && r.renewalDate <= TODAY).toBe(true);
        expect(r.renewalDate >= mark.registrationDate!).toBe(true);
      });
      expect(mark.renewals.at(-1)!.renewedExpiryDate).toBe(mark.lastRenewalDueDate);
    }
    expect(seen).toBe(5);
  });
});

describe('a renewal paid over REST', () => {
  const renew = (number: number, id: string) =>
    t.call('POST', `/trademarks/${number}/renew`, {
      token: t.owner.token,
      headers: { 'api-business-govt-nz-request-id': id },
      payload: {},
    });

  it('adds a renewal event and no status row when the status stays', async () => {
    const before = await readMark(1000050);
    const paid = await renew(1000050, 'history-open');
    expect(paid.statusCode, paid.body).toBe(200);
    const { renewedDueDate, expiryDate } = paid.json();
    const after = await readMark(1000050);
    expect(after.xml.StatusHistory.Renewal).toEqual([
      { RenewalDate: TODAY, RenewedExpiryDate: renewedDueDate, NewExpiryDate: expiryDate },
    ]);
    expect(after.json.StatusHistory).toEqual(after.xml.StatusHistory);
    expect(after.xml.StatusHistory.Status).toEqual(before.xml.StatusHistory.Status);
    expect(after.xml.MarkCurrentStatusDate).toBe(before.xml.MarkCurrentStatusDate);
    expect(after.xml.ExpiryDate).toBe(expiryDate);
  });

  it('in grace: the renewal event and the one status change it makes (registered again)', async () => {
    const before = await readMark(1000051);
    const paid = await renew(1000051, 'history-grace');
    expect(paid.statusCode, paid.body).toBe(200);
    const after = await readMark(1000051);
    expect(after.xml.StatusHistory.Renewal).toEqual([
      {
        RenewalDate: TODAY,
        RenewedExpiryDate: paid.json().renewedDueDate,
        NewExpiryDate: paid.json().expiryDate,
      },
    ]);
    expect(after.xml.StatusHistory.Status).toEqual([
      ...before.xml.StatusHistory.Status,
      { StatusCode: 'Registered', StatusDate: TODAY },
    ]);
    expect(after.xml.MarkCurrentStatusCode).toBe('Registered');
    // A repeat of the same request writes nothing more.
    expect((await renew(1000051, 'history-grace')).statusCode).toBe(200);
    expect((await readMark(1000051)).xml.StatusHistory).toEqual(after.xml.StatusHistory);
  });
});
