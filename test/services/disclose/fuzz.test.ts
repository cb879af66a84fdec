import { fuzzOperations } from '../../support/fuzz-operations.ts';
import { discloseFixture } from './support/harness-fixture.ts';

/**
 * "No 500s" for the offers register: the shared operation fuzzer walks every operation of its OpenAPI
 * document with valid, awkward and hostile parameters, headers and bodies built from the schemas and the
 * fixture (./support/harness-fixture.ts). Fixed seed, bounded runs.
 */
fuzzOperations(discloseFixture, {
  seed: 0x6469_7363,
  runs: 25,
  perOperation: {
    'PUT /offer/{offerNumber}/fund/{fundNumber}/submit-fund-compliance': 60,
    'PUT /offer/{offerNumber}/fund/{fundNumber}/submit-fph-compliance': 60,
  },
});
