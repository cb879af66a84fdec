import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInUser } from '../../support/oauth.ts';
import { type PpsrTest, ppsrTest, registration } from './support/api.ts';

/**
 * Search certificates: every search yields one, which the searcher's organisation reads later as JSON
 * and as a PDF, listing the criteria, the time, the searcher's organisation and the results as they
 * stood at the search, even after a later amendment. Another organisation's is as none.
 */
const PDFTOTEXT = '/usr/bin/pdftotext';
let test: PpsrTest;
beforeAll(async () => {
  test = await ppsrTest();
}, 120_000);
afterAll(async () => test?.close());

const pdfText = (pdf: Buffer): string => {
  const dir = mkdtempSync(join(tmpdir(), 'certificate-'));
  try {
    const file = join(dir, 'certificate.pdf');
    writeFileSync(file, pdf);
    return execFileSync(PDFTOTEXT, ['-layout', file, '-'], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

describe('a search certificate', () => {
  it('shows the criteria, time, searcher and results as they stood, as JSON and PDF', async () => {
    const plate = `CRT${String(Date.now()).slice(-3)}`;
    const body = registration({
      collaterals: [
        {
          collateralType: 'GOODS_MOTOR_VEHICLES',
          motorVehicles: [{ make: 'Toyota', model: 'Hilux', year: 2019, registrationPlate: plate }],
        },
        { collateralType: 'MONEY' },
      ],
    });
    const created = await test.call('POST', '/financing-statements', { body });
    expect(created.statusCode, created.body).toBe(201);
    const number = created.json().registrationNumber as string;
    const search = await test.call('POST', '/financing-statements-search', {
      body: {
        searchBy: 'motorVehicle',
        legitimateSearchReason: 'yes',
        searchByMotorVehicle: { registrationPlate: plate },
      },
    });
    expect(search.statusCode, search.body).toBe(200);
    const certificateNumber = search.json().searchCertificateNumber as string;
    expect(certificateNumber).toMatch(/^SC\d{10}$/);

    // A later amendment: the certificate still shows the statement as the search found it.
    const amended = await test.call('PUT', `/financing-statements/${number}`, {
      body: { ...body, collaterals: [...body.collaterals, { collateralType: 'AAPP' }] },
    });
    expect(amended.statusCode, amended.body).toBe(200);

    const read = await test.call('GET', `/search-certificates/${certificateNumber}`);
    expect(read.statusCode, read.body).toBe(200);
    const certificate = read.json();
    expect(certificate).toMatchObject({
      searchCertificateNumber: certificateNumber,
      searchId: search.json().searchId,
      criteria: { searchBy: 'motorVehicle', criterion: 'registrationPlate', value: plate },
      totalResults: 1,
    });
    expect(certificate.searchedDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(Date.parse(certificate.searchedUtcDate)).toBeLessThanOrEqual(
      Date.parse(String(amended.headers['last-modified'])) + 1000,
    );
    const organisation = (await test.call('GET', '/customer-organisation')).json();
    expect(certificate.searcher).toEqual({
      organisationId: organisation.organisationId,
      name: organisation.name,
    });
    expect(certificate.financingStatements).toHaveLength(1);
    expect(certificate.financingStatements[0]).toMatchObject({ registrationNumber: number, version: 1 });
    expect(certificate.financingStatements[0].collaterals).toHaveLength(2);

    const pdf = await test.call('GET', `/search-certificates/${certificateNumber}/pdf`, {
      headers: { accept: 'application/pdf' },
    });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toMatch(/^application\/pdf/);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    if (existsSync(PDFTOTEXT)) {
      const text = pdfText(pdf.rawPayload).replace(/\s+/g, ' ');
      expect(text).toContain(`Search certificate ${certificateNumber}`);
      expect(text).toContain(`Searched by ${organisation.name}`);
      expect(text).toContain(`criterion registrationPlate, value ${plate}`);
      expect(text).toContain(`${number} — Registered, version 1`);
      // The published collateral type names, as the statement stood (no AAPP yet).
      expect(text).toContain('Goods – Motor Vehicles');
      expect(text).toContain('Collateral: Money');
      expect(text).not.toContain('All Present and After Acquired Personal Property');
    }
  });

  it('is to another organisation as one that does not exist', async () => {
    const search = await test.call('POST', '/financing-statements-search', {
      body: {
        searchBy: 'motorVehicle',
        legitimateSearchReason: 'yes',
        searchByMotorVehicle: { registrationPlate: 'NONE1' },
      },
    });
    const certificateNumber = search.json().searchCertificateNumber as string;
    const other = (await signedInUser(test.gateway)).token;
    for (const path of [
      `/search-certificates/${certificateNumber}`,
      `/search-certificates/${certificateNumber}/pdf`,
    ]) {
      const refused = await test.call('GET', path, { token: other });
      expect(refused.statusCode, path).toBe(404);
    }
    const unknown = await test.call('GET', '/search-certificates/SC9999999999');
    expect(unknown.statusCode).toBe(404);
    const malformed = await test.call('GET', '/search-certificates/SC12');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().errors[0].field).toBe('certificateNumber');
  });
});
