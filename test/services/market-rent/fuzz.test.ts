import { fuzzOperations } from '../../support/fuzz-operations.ts';
import { marketRentFixture } from './support/harness-fixture.ts';

/**
 * "No 500s" for rental statistics: the shared operation fuzzer (test/support/fuzz-operations.ts) walks
 * every operation of its OpenAPI document with valid, awkward and hostile parameters built from the
 * schemas and the fixture (./support/harness-fixture.ts): the definitions, areas and labels the service
 * publishes, valid statistics queries with a parameter dropped, repeated or replaced, broken
 * %-encoding, unknown parameters, odd Accept headers. Fixed seed, bounded runs.
 */
fuzzOperations(marketRentFixture, {
  seed: 0x6d72_3266, // "mr2f"
  runs: 40,
  perOperation: { 'GET /statistics': 300 },
});
