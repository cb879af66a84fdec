import { fuzzOperations } from '../../support/fuzz-operations.ts';
import { iponzFixture } from './support/harness-fixture.ts';

/**
 * "No 500s" for the IP office: the shared operation fuzzer walks every operation of its OpenAPI
 * document (client search, bibliographic reads and lists, renewal checks and payments) with valid,
 * awkward and hostile parameters, bodies and headers. Fixed seed, bounded runs.
 */
fuzzOperations(iponzFixture(), {
  seed: 0x6970_6f6e, // "ipon"
  runs: 25,
  perOperation: { 'GET /clients': 150, 'GET /designs': 80 },
  fieldAliases: [
    'patent-number',
    'trademark-number',
    'design-number',
    'client-id',
    'api-business-govt-nz-request-id',
  ],
});
