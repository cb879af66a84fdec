import { conformanceMatrix } from '../../support/conformance.ts';
import { marketRentFixture } from './support/harness-fixture.ts';

/** The rules stated once for every register, on every operation of rental statistics (conformance.ts). */
conformanceMatrix(marketRentFixture);
