import { securityMatrix } from '../../support/security-matrix.ts';
import { ppsrFixture } from './support/harness-fixture.ts';

/**
 * The secured interests register in the shared security matrix: every operation refused without a key,
 * with a malformed key, another environment's or another service's key, writing nothing; secured party
 * groups not found by another subscriber; each operation answered with success for a key alone.
 */
securityMatrix(ppsrFixture);
