/**
 * Registration of a new entity: a business number from the registration range (bodies 70,000,000 to
 * 79,999,999, check digit by the GS1 rule), the row, the NEW change event, and whatever the caller
 * must do before commit (granting the applicant authority), in one transaction.
 */
import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';
import { withCheckDigit } from '../../../platform/gs1.ts';
import { hidesItems } from '../domain/privacy.ts';
import type { Entity } from '../domain/schema.ts';
import { nextItemId, recordChange } from './changes.ts';
import type { StoredEntity } from './entities.ts';
import { ENTITY_COLUMNS, entityRowValues, toEntityRow } from './rows.ts';

export async function registerEntity(
  pool: pg.Pool,
  now: Date,
  identifiers: number,
  make: (nzbn: string, newId: () => string) => Entity,
  /** Runs in the registering transaction (`client`), just before it commits. */
  beforeCommit: (entity: Entity, client: pg.PoolClient) => Promise<void>,
): Promise<{ entity: Entity; stored: StoredEntity }> {
  return withTransaction(pool, async (client) => {
    const body = await client.query<{ body: string }>(
      "SELECT nextval('nzbn_registration_body_seq')::text AS body",
    );
    const nzbn = withCheckDigit(`9429${body.rows[0]!.body.padStart(8, '0')}`);
    const ids: string[] = [];
    for (let i = 0; i < identifiers; i++) ids.push(await nextItemId(client));
    const entity = make(nzbn, () => ids.shift()!);
    const row = toEntityRow(entity, { origin: 'registered' });
    const placeholders = ENTITY_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
    await client.query(
      `INSERT INTO nzbn_entities (${ENTITY_COLUMNS.join(', ')}) VALUES (${placeholders})`,
      entityRowValues(row),
    );
    await recordChange(client, {
      nzbn,
      entityName: entity.entityName,
      entityTypeCode: entity.entityTypeCode,
      changeEventType: 'NEW',
      changeDate: now,
      newValue: entity,
      isPrivate: hidesItems(entity),
    });
    await beforeCommit(entity, client);
    return {
      entity,
      stored: {
        nzbn,
        etag: row.etag!,
        version: 1,
        lastUpdated: now,
        hidesItems: row.hidesItems,
        previousNames: [],
        document: row.document!,
      },
    };
  });
}
