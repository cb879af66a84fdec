import { conformanceMatrix } from '../../support/conformance.ts';
import { iponzFixture } from './support/harness-fixture.ts';

/** The rules stated once for every register, on every REST operation of the IP office (conformance.ts). */
conformanceMatrix(iponzFixture());
