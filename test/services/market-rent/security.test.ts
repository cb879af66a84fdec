import { securityMatrix } from '../../support/security-matrix.ts';
import { marketRentFixture } from './support/harness-fixture.ts';

/**
 * Rental statistics in the shared security matrix: every operation is public to a subscriber, and
 * refused without a key, with a malformed key, another environment's or another service's key.
 */
securityMatrix(marketRentFixture);
