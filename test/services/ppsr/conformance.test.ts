import { conformanceMatrix } from '../../support/conformance.ts';
import { ppsrFixture } from './support/harness-fixture.ts';

/** The rules stated once for every register, on every operation of the secured interests register. */
conformanceMatrix(ppsrFixture);
