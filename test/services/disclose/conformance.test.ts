import { conformanceMatrix } from '../../support/conformance.ts';
import { discloseFixture } from './harness-fixture.ts';

/**
 * The rules stated once for every register, on every operation of the offers register (conformance.ts).
 * The two filings' preconditions are tested in compliance.test.ts instead: their If-Match is mandatory
 * (428 without it), and RFC 9110 §13.1.4 has a server ignore If-Unmodified-Since beside an If-Match, so
 * the matrix's "a past If-Unmodified-Since is 412" cannot hold for them.
 */
const FILINGS = ['submit-fund-compliance', 'submit-fph-compliance'];

conformanceMatrix({
  ...discloseFixture,
  operations: Object.fromEntries(
    Object.entries(discloseFixture.operations).map(([id, access]) => [
      id,
      FILINGS.some((filing) => id.endsWith(filing))
        ? { ...(access === 'public' ? {} : access), coveredBy: 'test/services/disclose/compliance.test.ts' }
        : access,
    ]),
  ),
});
