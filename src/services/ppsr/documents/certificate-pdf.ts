/**
 * A search certificate as a PDF, laid out by pdfkit (A4, DejaVu Sans Condensed embedded, as billing's
 * invoices: the standard PDF fonts have no macrons). What it says is the JSON certificate's: the number,
 * the time, the searcher's organisation, the criteria and each statement found as it stood, its
 * collateral under the published type names.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type PDFKit from 'pdfkit';
import { lazyRequire } from '../../../platform/lazy-require.ts';

const pdfkit = lazyRequire<typeof PDFKit>('pdfkit');

import { COLLATERAL_TYPES, type CollateralType } from '../domain/collateral.ts';
import type { SearchCertificate } from '../operations/certificates.ts';

const FONT_DIR = path.join(
  path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')),
  'ttf',
);

type Statement = SearchCertificate['financingStatements'][number];

const debtorName = (debtor: Statement['debtors'][number]) =>
  debtor.debtorType === 'organisation'
    ? `${debtor.organisationName ?? ''}${debtor.nzbn ? ` (NZBN ${debtor.nzbn})` : ''}`
    : [debtor.firstName, debtor.middleNames, debtor.lastName].filter(Boolean).join(' ') +
      (debtor.dateOfBirth ? ` (born ${debtor.dateOfBirth})` : '');

/** A collateral's line: its published type name, its description, its vehicles or aircraft. */
function collateralLine(collateral: Statement['collaterals'][number]): string {
  const name = COLLATERAL_TYPES[collateral.collateralType as CollateralType] ?? collateral.collateralType;
  const items = [
    ...(collateral.motorVehicles ?? []).map((v) =>
      [
        `${v.year} ${v.make} ${v.model}`,
        v.vin && `VIN ${v.vin}`,
        v.chassisNumber && `chassis ${v.chassisNumber}`,
        v.registrationPlate && `plate ${v.registrationPlate}`,
      ]
        .filter(Boolean)
        .join(', '),
    ),
    ...(collateral.aircraft ?? []).map((a) => `${a.manufacturer} ${a.model}, serial ${a.serialNumber}`),
  ];
  return [name, collateral.description, ...items].filter(Boolean).join('; ');
}

/** The certificate as a PDF file. */
export function certificatePdf(certificate: SearchCertificate): Promise<Buffer> {
  const document = new (pdfkit())({
    size: 'A4',
    margin: 50,
    info: {
      Title: `Search certificate ${certificate.searchCertificateNumber}`,
      Author: 'Register Services Gateway',
      Subject: `Secured interests register search by ${certificate.searcher.name}`,
    },
  });
  document.registerFont('Body', path.join(FONT_DIR, 'DejaVuSansCondensed.ttf'));
  document.registerFont('Bold', path.join(FONT_DIR, 'DejaVuSansCondensed-Bold.ttf'));
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    document.on('data', (chunk: Buffer) => chunks.push(chunk));
    document.on('end', () => resolve(Buffer.concat(chunks)));
    document.on('error', reject);
  });
  const { searchBy, ...criteria } = certificate.criteria;
  document.font('Bold').fontSize(16).text(`Search certificate ${certificate.searchCertificateNumber}`);
  document.font('Body').fontSize(10).moveDown(0.5);
  document.text(`Secured interests register. Searched ${certificate.searchedDate} (New Zealand time).`);
  document.text(`Searched by ${certificate.searcher.name} (${certificate.searcher.organisationId}).`);
  document.text(`Search id ${certificate.searchId}.`);
  document.moveDown(0.5).font('Bold').text('Criteria');
  document.font('Body').text(
    `Search by ${searchBy}: ${Object.entries(criteria)
      .map(([k, v]) => `${k} ${String(v)}`)
      .join(', ')}`,
  );
  document
    .moveDown(0.5)
    .font('Bold')
    .text(`Results: ${certificate.totalResults} financing statement(s), as they stood at the search`);
  for (const statement of certificate.financingStatements) {
    document
      .moveDown(0.5)
      .font('Bold')
      .text(`${statement.registrationNumber} — ${statement.status}, version ${statement.version}`);
    document.font('Body');
    document.text(`Registered ${statement.registrationDate}; expires ${statement.expiryDate}.`);
    document.text(`Debtors: ${statement.debtors.map(debtorName).join('; ')}`);
    document.text(`Secured parties: ${statement.securedParties.map((p) => p.name).join('; ')}`);
    for (const collateral of statement.collaterals)
      document.text(`Collateral: ${collateralLine(collateral)}`);
  }
  document.end();
  return done;
}
