import fc from 'fast-check';
import { IPONZ_ERRORS } from '../../../../src/services/iponz/errors.ts';
import type { OperationAccess, ServiceFixture, Values } from '../../../support/service-fixture.ts';
import { iponzTest, TODAY } from './api.ts';

/**
 * The IP office's fixture for the shared harnesses (test/support/security-matrix.ts,
 * test/support/fuzz-operations.ts): reads are public to a subscriber; renewals need a user registered
 * with the office (else 403 not-registered-user). The renewal examples are the fixed cases whose renewal
 * is due now (sandbox/fixtures.ts); the fuzzer draws case numbers, client ids and dates from the fixed
 * cases and clients and from odd values.
 */
const registered = (path: Record<string, string>): OperationAccess => ({ user: 'authority', path, body: {} });
const dates = (): Values => ({
  valid: ['2025-06-15', '2026-01-01', TODAY, '2024-02-29'],
  odd: ['2026-02-30', '2026-13-01', '0000-01-01', '26-01-01', '2026/01/01', '20260101', '9999-12-31'],
});

export const iponzFixture = (): ServiceFixture => ({
  service: 'iponz',
  otherService: 'market-rent',
  refusals: { noAuthority: IPONZ_ERRORS.notRegisteredUser },
  async setup() {
    const t = await iponzTest();
    const known: Record<string, Values> = {
      patentNumber: {
        valid: ['500000', '500006', '500050', '500051'],
        odd: ['0', '0500000', '1e5', '-1', '9999999999'],
      },
      trademarkNumber: { valid: ['1000000', '1000004', '1000050', '1000051'], odd: ['0', '01000000', '1.5'] },
      designNumber: { valid: ['400000', '400004', '400050', '400051'], odd: ['0', '4e5', ' 400000'] },
      clientId: { valid: ['100000', '100003', '100007', '100150'], odd: ['0', '0100000', 'abc'] },
      schema: { valid: ['patent.xsd', 'trademark.xsd', 'design.xsd'], odd: ['../index.ts', 'x.xsd', ''] },
      name: fc.oneof(
        fc.constantFrom('kiwi', 'li', '%wid%', "o'brien%sons", 'pure_honey', 'XY', 'mere tūhoe'),
        fc.string({ maxLength: 8 }),
      ),
      address: fc.oneof(
        fc.constantFrom('queen st%auckland', 'te aro', '%', 'PO Box'),
        fc.string({ maxLength: 8 }),
      ),
      page: { valid: ['1', '2'], odd: ['0', '-1', '1.5', '100001'] },
      'page-size': { valid: ['1', '20', '100'], odd: ['0', '101', 'x'] },
      'start-date': dates(),
      'end-date': dates(),
      'registered-start-date': dates(),
      'registered-end-date': dates(),
      billingReference: { valid: ['PO-1', ''], odd: ['x'.repeat(101)] },
      Title: fc.oneof(
        fc.constantFrom('kiwi*', '"kiwi foods"', 'fern AND NOT wines', '(k?wi OR fern)', 'NOT', '((', '"'),
        fc.string({ maxLength: 12 }),
      ),
      ObjectIdentifier: { valid: ['0900000000000000'], odd: ['09', 'zzzzzzzzzzzzzzzz', '09000000000000001'] },
    };
    return {
      gateway: t.gateway,
      owner: t.owner,
      stranger: t.stranger,
      key: t.key,
      ids: {
        patentNumber: '500000',
        trademarkNumber: '1000000',
        designNumber: '400000',
        clientId: '100000',
        schema: 'patent.xsd',
        // A seeded document, for the document download's JSON form.
        documentId: (
          await t.gateway.runtime.environments.sandbox.pool.query(
            'SELECT document_identifier FROM iponz_case_documents ORDER BY document_identifier LIMIT 1',
          )
        ).rows[0].document_identifier,
      },
      tables: [
        { pool: t.gateway.runtime.environments.sandbox.pool, prefixes: ['iponz_'], tables: ['fee_records'] },
      ],
      values: (name: string) => known[name],
      close: () => t.close(),
    };
  },
  operations: {
    'GET /clients': {
      query: ['name=kiwi', 'name=%25wid%25&address=queen%20st%25auckland&page=1&page-size=5'],
    },
    'GET /clients/{clientId}': 'public',
    'GET /schemas/{schema}': 'public',
    'GET /patents/{patentNumber}': 'public',
    'GET /patent/{patentNumber}': 'public',
    'GET /trademarks/{trademarkNumber}': 'public',
    'GET /designs/{designNumber}': 'public',
    'GET /design/{designNumber}': 'public',
    'GET /patents': { query: `start-date=2026-01-01&end-date=${TODAY}` },
    'GET /trademarks': { query: `start-date=2026-01-01&end-date=${TODAY}` },
    'GET /designs': {
      query: [
        `start-date=2026-01-01&end-date=${TODAY}`,
        'registered-start-date=2025-01-01&registered-end-date=2025-12-31',
      ],
    },
    'GET /patents/{patentNumber}/renewal': { path: { patentNumber: '500050' } },
    'GET /trademarks/{trademarkNumber}/renewal': { path: { trademarkNumber: '1000050' } },
    'GET /designs/{designNumber}/renewal': { path: { designNumber: '400050' } },
    'POST /patents/{patentNumber}/renew': registered({ patentNumber: '500050' }),
    'POST /trademarks/{trademarkNumber}/renew': registered({ trademarkNumber: '1000050' }),
    'POST /designs/{designNumber}/renew': registered({ designNumber: '400050' }),
    // The SOAP endpoints: their WSDLs, and their JSON forms (the SOAP bodies have their own security
    // matrix and fuzzer in soap-framework.test.ts).
    'GET /trademarksearch': { query: ['wsdl', 'xsd=trademark-list-v1.xsd'] },
    'POST /trademarksearch': { body: { ClientRef: 'r', Title: 'kiwi* OR "fern foods"' }, write: 'action' },
    'GET /download-document': { query: 'wsdl' },
    // The applications and correspondence: SOAP only; their bodies have their own matrix and fuzzer.
    'GET /patent': { query: ['wsdl', 'xsd=patent-application.xsd'] },
    'POST /patent': { coveredBy: 'soap-filing-security.test.ts' },
    'GET /trademark': { query: ['wsdl', 'xsd=trademark-application.xsd'] },
    'POST /trademark': { coveredBy: 'soap-filing-security.test.ts' },
    'GET /taskcorrespondence': { query: ['wsdl', 'xsd=task-correspondence.xsd'] },
    'POST /taskcorrespondence': { coveredBy: 'soap-filing-security.test.ts' },
    'GET /discussioncorrespondence': { query: ['wsdl', 'xsd=discussion-correspondence.xsd'] },
    'POST /discussioncorrespondence': { coveredBy: 'soap-filing-security.test.ts' },
    'POST /download-document': {
      body: (ids: Record<string, string>) => ({ ObjectIdentifier: ids.documentId }),
      write: 'action',
    },
  },
});
