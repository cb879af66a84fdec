/**
 * The rows of the sandbox register as COPY text: generated entities by index, in chunks that can be
 * produced in any order and in parallel (every number and identifier is a function of the index), the
 * earlier names of those entities for the name history, their organisation parts and the requests for
 * access to those (organisation-parts.ts), and the fixed test cases with their organisation parts and
 * the requests for access to those. The store loads them (store/seed-load.ts) without knowing how they
 * were made.
 */
import { nzGeography } from '../../../platform/geography.ts';
import { parseNzDateTime } from '../../../platform/nz-time.ts';
import type { Entity } from '../domain/schema.ts';
import { accessRequestCopyLine, type SeededAccessRequest } from '../store/org-part-access.ts';
import { partCopyLine } from '../store/org-parts.ts';
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
import { generatePreviousNames } from './history.ts';
import { nzbnForIndex } from './numbers.ts';
import { generatedParts } from './organisation-parts.ts';

/** The seed every sandbox register is generated from: the same seed, the same register. */
export const SANDBOX_SEED = 'nzbn-sandbox-v1';
/** Generated entities per chunk: one COPY and one commit each. */
export const CHUNK_SIZE = 10_000;

/** COPY lines for the generated entities with indexes [start, end), in batches of about 1 MB. */
export function* chunkText(seed: string, start: number, end: number): Generator<ChunkText> {
  const context = { geography: nzGeography(), asOf: DEFAULT_AS_OF };
  const empty = (): ChunkText => ({ entities: [], history: [], parts: [], access: [], count: 0 });
  let batch = empty();
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
    addParts(batch, seed, index, entity, { start, end });
    batch.count++;
    if (size >= 1_000_000) {
      yield batch;
      batch = empty();
      size = 0;
    }
  }
  if (batch.count > 0) yield batch;
}

/**
 * The COPY lines of a generated entity's organisation parts and of the requests for access to them;
 * a request by a neighbour outside the chunk [start, end) is left out (only an odd chunk size has one).
 */
function addParts(
  batch: ChunkText,
  seed: string,
  index: number,
  entity: Entity,
  chunk: { start: number; end: number },
): void {
  const { parts, requests } = generatedParts(seed, index, entity);
  for (const part of parts) {
    const lastUpdated = Math.max(parseNzDateTime(part.startDate)!, parseNzDateTime(part.statusDate)!);
    batch.parts.push(partCopyLine(part, new Date(lastUpdated)));
  }
  for (const request of requests) {
    if (request.requestingIndex < chunk.start || request.requestingIndex >= chunk.end) continue;
    batch.access.push(
      accessRequestCopyLine({
        opn: request.opn,
        requestingNzbn: nzbnForIndex(request.requestingIndex),
        status: request.status,
        requestedAt: new Date(request.requestedAt),
        decidedAt: request.decidedAt === null ? null : new Date(request.decidedAt),
      }),
    );
  }
}

/** The fixed test cases as rows with their organisation parts (the same in every sandbox). */
export function fixtureRows(): (FixtureRow & {
  fixture: ReturnType<typeof generateFixtures>[number]['fixture'];
})[] {
  return generateFixtures({ geography: nzGeography() }).map(({ fixture, entity }) => ({
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
  return generateEntityAt(seed, index, { geography: nzGeography(), asOf: DEFAULT_AS_OF });
}
