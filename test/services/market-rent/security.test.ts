import { securityMatrix } from '../../support/security-matrix.ts';
import { marketRentGateway } from './api-support.ts';

/**
 * Rental statistics in the shared security matrix (test/support/security-matrix.ts): every operation
 * is public to a subscriber (a key, no user token), and refused without a key, with a malformed key,
 * another environment's or another service's key.
 */
securityMatrix({
  service: 'market-rent',
  otherService: 'nzbn',
  async setup() {
    const { gateway, key } = await marketRentGateway();
    return { gateway, key, ids: { areaDefinition: 'REGC2019' }, close: () => gateway.close() };
  },
  operations: {
    'GET /statistics': { query: 'period-ending=2026-01&num-months=1&area-definition=REGC2019' },
    'GET /area-definitions': 'public',
    'GET /area-definitions/{areaDefinition}': 'public',
    'GET /area-definition/{areaDefinition}/area-labels': 'public',
  },
});
