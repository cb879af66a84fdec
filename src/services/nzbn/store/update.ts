/**
 * Every change to an entity goes through `updateEntity`: one transaction that locks the entity's row,
 * checks the request's preconditions against the stored version, applies the change to the record,
 * moves `lastUpdatedDate`, keeps the replaced version, writes the ended history periods, stores the new
 * version (new ETag) and records the change events. A failure anywhere leaves nothing written.
 *
 * It also tells every process that keeps entities in memory (store/entity-cache.ts): a notice sent in
 * the transaction reaches them at commit, and this process forgets the entity before answering. A new
 * path that changes `nzbn_entities` must do the same.
 */
import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import type { Entity } from '../domain/schema.ts';
import { type ChangeEvent, nextItemId, recordChange } from './changes.ts';
import type { DocumentSource } from './document-source.ts';
import { findEntity, parseEntity, type StoredEntity } from './entities.ts';
import { entityChange } from './entity-cache.ts';
import { ENTITY_COLUMNS, type EntityOrigin, entityRowValues, instant, toEntityRow } from './rows.ts';

const epochOf = (nzDateTime: string | null): number | null =>
  nzDateTime === null ? null : Date.parse(instant(nzDateTime));

export interface EndedItem {
  kind: string;
  item: unknown;
  startDate: string | null;
  endDate: string;
}

export interface Change<T> {
  result: T;
  events: Omit<ChangeEvent, 'nzbn' | 'entityName' | 'entityTypeCode' | 'changeDate'>[];
  ended?: EndedItem[];
  /** Names the entity gave up with this change: search keeps finding it by them (a name change). */
  previousNames?: string[];
}

export interface UpdateTools {
  client: pg.PoolClient;
  now: Date;
  /** `now` as the register writes dates. */
  stamp: string;
  nextItemId(): Promise<string>;
}

export interface Updated<T> {
  result: T;
  entity: Entity;
  stored: StoredEntity;
}

/**
 * Applies `change` to the entity `nzbn` (mutating the record it is given). `check` sees the stored
 * version first and may throw (412, 403 …) before anything is written. Returns undefined when the
 * entity does not exist. A generated entity's first change reads its document from `documents`.
 */
export async function updateEntity<T>(
  pool: pg.Pool,
  documents: DocumentSource,
  nzbn: string,
  now: Date,
  check: (stored: StoredEntity, entity: Entity) => void | Promise<void>,
  change: (entity: Entity, tools: UpdateTools) => Promise<Change<T>> | Change<T>,
): Promise<Updated<T> | undefined> {
  const notice = entityChange(pool, nzbn);
  let updated: Updated<T> | undefined;
  try {
    updated = await withTransaction(pool, async (client) => {
      const locked = await client.query<{ origin: EntityOrigin; seed_index: number | null }>(
        'SELECT origin, seed_index FROM nzbn_entities WHERE nzbn = $1 FOR UPDATE',
        [nzbn],
      );
      const lock = locked.rows[0];
      const before = lock && (await findEntity(client, documents, nzbn));
      if (!lock || !before) return undefined;
      const entity = parseEntity(before);
      await check(before, entity);
      const stamp = formatNzDateTime(now.getTime());
      const outcome = await change(entity, { client, now, stamp, nextItemId: () => nextItemId(client) });
      entity.lastUpdatedDate = stamp;
      const row = toEntityRow(entity, {
        origin: lock.origin,
        seedIndex: lock.seed_index,
        previousNames: [...before.previousNames, ...(outcome.previousNames ?? [])],
        version: before.version + 1,
      });
      await client.query(
        'INSERT INTO nzbn_entity_versions (nzbn, version, document, replaced_at) VALUES ($1, $2, $3, $4)',
        [nzbn, before.version, before.document, now],
      );
      for (const ended of outcome.ended ?? []) {
        // As epoch milliseconds: PostgreSQL refuses the year 0000, which a client's date may have, as text.
        await client.query(
          `INSERT INTO nzbn_entity_history (nzbn, kind, item, start_date, end_date)
           VALUES ($1, $2, $3, to_timestamp($4::float8 / 1000), to_timestamp($5::float8 / 1000))`,
          [nzbn, ended.kind, JSON.stringify(ended.item), epochOf(ended.startDate), epochOf(ended.endDate)],
        );
      }
      const assignments = ENTITY_COLUMNS.slice(1)
        .map((column, i) => `${column} = $${i + 2}`)
        .join(', ');
      await client.query(`UPDATE nzbn_entities SET ${assignments} WHERE nzbn = $1`, entityRowValues(row));
      for (const event of outcome.events) {
        await recordChange(client, {
          ...event,
          nzbn,
          entityName: entity.entityName,
          entityTypeCode: entity.entityTypeCode,
          changeDate: now,
        });
      }
      await notice.notify(client);
      return {
        result: outcome.result,
        entity,
        stored: {
          nzbn,
          etag: row.etag!,
          version: row.version,
          lastUpdated: now,
          hidesItems: row.hidesItems,
          previousNames: row.previousNames,
          document: row.document!,
        },
      };
    });
  } catch (error) {
    notice.abandoned();
    throw error;
  }
  if (!updated) return undefined;
  await notice.committed();
  return updated;
}
