import type { ServiceDefinition } from './contract.ts';
import { discloseService } from './disclose/index.ts';
import { iponzService } from './iponz/index.ts';
import { marketRentService } from './market-rent/index.ts';
import { nzbnService } from './nzbn/index.ts';
import { ppsrService } from './ppsr/index.ts';

/** The five registers, with the public gateway's addresses (reference/gateway.md). */
export const SERVICES: readonly ServiceDefinition[] = [
  nzbnService,
  marketRentService,
  iponzService,
  ppsrService,
  discloseService,
];
