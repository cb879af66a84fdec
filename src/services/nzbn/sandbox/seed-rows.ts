/**
 * The rows of the sandbox register as COPY text: generated entities by index, in chunks that can be
 * produced in any order and in parallel (every number and identifier is a function of the index), the
 * earlier names of those entities for the name history, and the fixed test cases with their
 * organisation parts and the requests for access to those. The store loads them (store/seed-load.ts) without knowing how they were made.
 */
import path from 'node:path';
import { REFERENCE_DATA_DIR } from '../../../platform/paths.ts';
import type { Entity } from '../domain/schema.ts';
import type { SeededAccessRequest } from '../store/org-part-access.ts';
import { entityCopyLine, entityNameHistoryLine, toEntityRow } from '../store/rows.ts';
import type { ChunkText, FixtureRow } from '../store/seed-load.ts';
import { DEFAULT_AS_OF, generateEntityAt } from './entity.ts';
import { fixtureParts } from './fixture-parts.ts';
import {
  FIXTURE_ACCESS_ASKED,
  FIXTURE_ACCESS_DECIDED,
  FIXTURE_ACCESS_REQUESTS,
  generateFixtures,
} from './fixtures.ts';
import { type Geography, loadGeography } from './geography.ts';
import { generatePreviousNames } from './history.ts';

/** The seed every sandbox register is generated from: the same seed, the same register. */
export const SANDBOX_SEED = 'nzbn-sandbox-v1';
/** Generated entities per chunk: one COPY and one commit each. */
export const CHUNK_SIZE = 10_000;

let geography: Geography | undefined;
/** The Stats NZ 2019 geography the addresses are built on (read once per thread). */
export function sandboxGeography(): Geography {
  geography ??= loadGeography(path.join(REFERENCE_DATA_DIR, 'geo'));
  return geography;
}

/** COPY lines for the generated entities with indexes [start, end), in batches of about 1 MB. */
export function* chunkText(seed: string, start: number, end: number): Generator<ChunkText> {
  const context = { geography: sandboxGeography(), asOf: DEFAULT_AS_OF };
  let batch: ChunkText = { entities: [], history: [], count: 0 };
  let size = 0;
  for (let index = start; index < end; index++) {
    const entity = generateEntityAt(seed, index, context);
    const previous = generatePreviousNames(seed, index, entity, context.geography);
    const row = toEntityRow(entity, {
      origin: 'generated',
      seedIndex: index,
      previousNames: previous.map((name) => name.name),
      storeDocument: false,
    });
    const line = entityCopyLine(row);
    batch.entities.push(line);
    size += line.length;
    for (const name of previous) {
      batch.history.push(entityNameHistoryLine(row.nzbn, name.name, name.startDate, name.endDate));
    }
    batch.count++;
    if (size >= 1_000_000) {
      yield batch;
      batch = { entities: [], history: [], count: 0 };
      size = 0;
    }
  }
  if (batch.count > 0) yield batch;
}

/** The fixed test cases as rows with their organisation parts (the same in every sandbox). */
export function fixtureRows(): (FixtureRow & {
  fixture: ReturnType<typeof generateFixtures>[number]['fixture'];
})[] {
  return generateFixtures({ geography: sandboxGeography() }).map(({ fixture, entity }) => ({
    fixture,
    row: toEntityRow(entity, { origin: 'fixture' }),
    parts: fixtureParts(entity, fixture.organisationParts),
  }));
}

/** The seed's requests for access to the fixed test cases' private parts. */
export function fixtureAccessRequests(): SeededAccessRequest[] {
  return FIXTURE_ACCESS_REQUESTS.map((request) => ({
    ...request,
    requestedAt: new Date(FIXTURE_ACCESS_ASKED),
    decidedAt: request.status === 'PENDING' ? null : new Date(FIXTURE_ACCESS_DECIDED),
  }));
}

/** A generated entity as the seed generated it (its document is not stored until it changes). */
export function generatedEntity(index: number, seed = SANDBOX_SEED): Entity {
  return generateEntityAt(seed, index, { geography: sandboxGeography(), asOf: DEFAULT_AS_OF });
}
