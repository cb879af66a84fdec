import { conformanceMatrix } from '../../support/conformance.ts';
import { discloseFixture } from './support/harness-fixture.ts';

/** The rules stated once for every register, on every operation of the offers register (conformance.ts). */
conformanceMatrix(discloseFixture);
