/**
 * The rows of the sandbox register as COPY text: generated entities by index, in chunks that can be
 * produced in any order and in parallel (every number and identifier is a function of the index), the
 * earlier names of those entities for the name history, and the fixed test cases.
 */
import path from 'node:path';
import { copyLine } from '../../../platform/db/copy-text.ts';
import { REFERENCE_DATA_DIR } from '../../../platform/paths.ts';
import type { Entity } from '../domain/schema.ts';
import { DEFAULT_AS_OF, generateEntityAt } from '../sandbox/entity.ts';
import { generateFixtures } from '../sandbox/fixtures.ts';
import { type Geography, loadGeography } from '../sandbox/geography.ts';
import { generatePreviousNames } from '../sandbox/history.ts';
import { type EntityRow, entityCopyLine, instant, toEntityRow } from './rows.ts';

/** The seed every sandbox register is generated from: the same seed, the same register. */
export const SANDBOX_SEED = 'nzbn-sandbox-v1';
/** Generated entities per chunk: one COPY and one commit each. */
export const CHUNK_SIZE = 10_000;

export const HISTORY_COPY_COLUMNS = 'nzbn, kind, item, start_date, end_date';

let geography: Geography | undefined;
/** The Stats NZ 2019 geography the addresses are built on (read once per thread). */
export function sandboxGeography(): Geography {
  geography ??= loadGeography(path.join(REFERENCE_DATA_DIR, 'geo'));
  return geography;
}

export interface ChunkText {
  entities: string[];
  history: string[];
  count: number;
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

/** An ended entity name, as GET /entities/{nzbn}/history/entity-names lists it. */
export function entityNameHistoryLine(
  nzbn: string,
  name: string,
  startDate: string,
  endDate: string,
): string {
  const item = JSON.stringify({ entityName: name, startDate, endDate });
  return copyLine([nzbn, 'entity-names', item, instant(startDate), instant(endDate)]);
}

/** The fixed test cases as rows (the same in every sandbox, whatever its seed or scale). */
export interface FixtureRow {
  row: EntityRow;
  fixture: ReturnType<typeof generateFixtures>[number]['fixture'];
}

export function fixtureRows(): FixtureRow[] {
  return generateFixtures({ geography: sandboxGeography() }).map(({ fixture, entity }) => ({
    fixture,
    row: toEntityRow(entity, { origin: 'fixture' }),
  }));
}

/** A generated entity as the seed generated it (its document is not stored until it changes). */
export function generatedEntity(index: number, seed = SANDBOX_SEED): Entity {
  return generateEntityAt(seed, index, { geography: sandboxGeography(), asOf: DEFAULT_AS_OF });
}
