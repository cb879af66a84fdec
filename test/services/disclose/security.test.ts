import { securityMatrix } from '../../support/security-matrix.ts';
import { discloseFixture } from './support/harness-fixture.ts';

/**
 * The offers register in the shared security matrix: every operation needs a key of its product and
 * environment and refuses an x-organisation the caller is not in; the filings are answered with success
 * for the fixtures' organisation, which has authority over the fund.
 */
securityMatrix(discloseFixture);
