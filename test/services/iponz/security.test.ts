import { securityMatrix } from '../../support/security-matrix.ts';
import { iponzFixture } from './support/harness-fixture.ts';

/**
 * The IP office in the shared security matrix: every operation refused without a key, with a malformed
 * key, another environment's or another service's key; renewals also without a user's token, with an
 * application's token, and for a user not registered with the office (403 not-registered-user), writing
 * nothing. What each operation needs is in ./support/harness-fixture.ts.
 */
securityMatrix(iponzFixture());
