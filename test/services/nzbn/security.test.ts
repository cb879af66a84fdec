import { securityMatrix } from '../../support/security-matrix.ts';
import { nzbnFixture } from './support/harness-fixture.ts';

/**
 * The business number register in the shared security matrix: every operation of its OpenAPI document
 * refused without a key, with a malformed key, another environment's or another service's key; the
 * writes also without a user's token, with an application's token, and for a user without business
 * authority (403 FORBIDDEN); watchlists for another subscriber (404 NOT_FOUND) or another organisation.
 * What each operation needs is in ./support/harness-fixture.ts.
 */
securityMatrix(nzbnFixture());
