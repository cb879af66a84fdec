import { fuzzOperations } from '../../support/fuzz-operations.ts';
import { ppsrFixture } from './support/harness-fixture.ts';

/**
 * "No 500s" for the secured interests register: the shared operation fuzzer walks every operation of its
 * OpenAPI document with valid, awkward and hostile parameters and bodies (fixed seed, bounded runs).
 */
fuzzOperations(ppsrFixture, {
  seed: 0x7070_7372, // "ppsr"
  runs: 25,
  perOperation: { 'POST /financing-statements': 60, 'POST /financing-statements-search': 60 },
  leaveOut: ['securedPartyGroupId', 'searchId'],
});
