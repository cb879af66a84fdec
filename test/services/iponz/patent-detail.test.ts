import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, addMonths } from '../../../src/platform/calendar.ts';
import { IPC_PATTERN } from '../../../src/services/iponz/domain/patent-detail.ts';
import { fixedCases } from '../../../src/services/iponz/sandbox/fixtures.ts';
import { generateCase } from '../../../src/services/iponz/sandbox/generator.ts';
import { type IponzTest, iponzTest, TODAY } from './support/api.ts';
import { expectValid } from './support/xsd.ts';

/**
 * A patent's detail in its bibliographic read: abstract, claims (count and the independent ones), IPC
 * classifications, priority claims, the PCT publication and the inventors, as XML valid against the
 * served XSD and as JSON with the same tree; the sandbox's details deterministic and coherent with the
 * case's published elements; the date-range list of generated patents valid too.
 */
let t: IponzTest;
let xsd: string;
const REPEATED = ['IndependentClaim', 'IpcClassification', 'PriorityClaim', 'Inventor', 'Status', 'Renewal'];
const parser = new XMLParser({ parseTagValue: false, isArray: (name) => REPEATED.includes(name) });
beforeAll(async () => {
  t = await iponzTest();
  xsd = (await t.call('GET', '/schemas/patent.xsd')).body;
}, 120_000);
afterAll(async () => t?.close());

const readPatent = async (number: number) => {
  const xml = await t.call('GET', `/patents/${number}`);
  expect(xml.statusCode, xml.body).toBe(200);
  await expectValid(xml.body, xsd, `patent ${number}`);
  const json = await t.call('GET', `/patents/${number}`, { headers: { accept: 'application/json' } });
  expect(json.statusCode, json.body).toBe(200);
  return { xml: parser.parse(xml.body).Patent, json: json.json().Patent };
};

const DETAIL = ['Abstract', 'Claims', 'IpcClassifications', 'PriorityClaims', 'PctPublication', 'Inventors'];
const detailOf = (doc: Record<string, unknown>) =>
  Object.fromEntries(DETAIL.filter((k) => k in doc).map((k) => [k, doc[k]]));

describe('a patent by number', () => {
  it('a PCT case: abstract, claims, IPC, its priority claim, its publication, its inventor', async () => {
    const { xml, json } = await readPatent(500000);
    expect(xml.Abstract.length).toBeGreaterThan(20);
    const claims = xml.Claims;
    expect(claims.IndependentClaim[0].ClaimNumber).toBe('1');
    expect(claims.IndependentClaim.length).toBeLessThanOrEqual(Number(claims.ClaimCount));
    for (const c of claims.IndependentClaim)
      expect(Number(c.ClaimNumber)).toBeLessThanOrEqual(Number(claims.ClaimCount));
    for (const ipc of xml.IpcClassifications.IpcClassification) expect(ipc).toMatch(IPC_PATTERN);
    const [priority] = xml.PriorityClaims.PriorityClaim;
    expect(priority.PriorityCountryCode).toBe(xml.PriorityCountryCode);
    expect(priority.PriorityDate < xml.CompleteFiledDate).toBe(true);
    expect(priority.PriorityDate >= addMonths(xml.CompleteFiledDate, -12)).toBe(true);
    expect(xml.PctPublication).toEqual({
      PublicationNumber: xml.InternationalPublicationNumber,
      PublicationDate: addMonths(priority.PriorityDate, 18),
    });
    expect(xml.Inventors.Inventor).toEqual([
      { ClientIdentifier: '100007', InventorName: 'Mere Tūhoe', CountryCode: 'NZ' },
    ]);
    expect(detailOf(json)).toEqual(detailOf(xml));
    // The detail sits after the dates and right before the history, as the XSD orders it.
    const keys = Object.keys(json);
    expect(keys.filter((k) => DETAIL.includes(k))).toEqual(DETAIL);
    expect(keys.indexOf('Inventors') + 1).toBe(keys.indexOf('StatusHistory'));
  });

  it('a national case: no PCT publication; every fixed patent the same detail as the seed made it', async () => {
    const { xml, json } = await readPatent(500001);
    expect(xml.PctPublication).toBeUndefined();
    expect(json.PctPublication).toBeUndefined();
    expect(Array.isArray(json.PriorityClaims.PriorityClaim)).toBe(true);
    for (const c of fixedCases(TODAY).filter((k) => k.kind === 'patent')) {
      const read = (await readPatent(c.caseNumber)).json;
      expect(read.Abstract).toBe(c.patentDetail!.abstract);
      expect(read.Claims.ClaimCount).toBe(String(c.patentDetail!.claims.count));
      expect(read.IpcClassifications.IpcClassification).toEqual(c.patentDetail!.ipcClassifications);
    }
  }, 60_000);

  it('the generator: the same detail every time, coherent with the case', () => {
    for (let i = 100; i < 300; i++) {
      const patent = generateCase('patent', i, TODAY, 1_000, 1_000);
      expect(generateCase('patent', i, TODAY, 1_000, 1_000)).toEqual(patent);
      const detail = patent.patentDetail!;
      expect(detail.claims.independent[0]!.number).toBe(1);
      for (const c of detail.claims.independent) expect(c.number).toBeLessThanOrEqual(detail.claims.count);
      for (const p of detail.priorityClaims) {
        expect(p.countryCode).toBe(patent.priorityCountryCode);
        expect(p.date < patent.applicationDate).toBe(true);
      }
      expect(detail.pctPublication?.number ?? null).toBe(patent.internationalPublicationNumber);
      if (detail.pctPublication) expect(detail.pctPublication.date <= TODAY).toBe(true);
    }
    expect(generateCase('trademark', 100, TODAY, 1_000, 1_000).patentDetail).toBeNull();
  });

  it('the date-range list of patents is valid with every generated detail', async () => {
    const list = await t.call('GET', `/patents?start-date=${addDays(TODAY, -365)}&end-date=${TODAY}`);
    expect(list.statusCode).toBe(200);
    await expectValid(list.body, xsd, 'patent list');
    const patents = parser.parse(list.body).PatentList.Patent ?? [];
    expect(patents.filter((p: { Claims?: unknown }) => p.Claims).length).toBeGreaterThan(0);
  });
});
