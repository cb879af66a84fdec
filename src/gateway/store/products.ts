/**
 * The SQL of `products` (gateway database): the rows the service registry calls for, reads, and an
 * operator's change, announced to every process (key lookups cache a product's limits, and every process
 * holds its CORS policy). The CORS policies' own read is store/cors-policies.ts.
 */
import type { Pool, PoolClient } from 'pg';
import { publish } from '../../platform/db/notify.ts';
import { ENVIRONMENTS, productId, type ServiceDefinition } from '../../services/contract.ts';
import { wildcardCredentials } from '../domain/cors.ts';
import { PRODUCT_DEFAULTS, type Product, type ProductChange } from '../domain/products.ts';

/**
 * Inserts the products that are missing. Two processes may do this at once (two `rsg migrate`): the
 * conflict clause names no index, because a racing insert can collide on the UNIQUE (environment,
 * service) index before the primary key, and a conflict on either means the product is there.
 */
export async function ensureProducts(pool: Pool, services: readonly ServiceDefinition[]): Promise<void> {
  for (const environment of ENVIRONMENTS) {
    for (const service of services) {
      const defaults = PRODUCT_DEFAULTS[environment];
      await pool.query(
        `INSERT INTO products (id, environment, service, name, rate_limit_per_minute, quota_calls,
                               quota_period_seconds, approval_required)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
        [
          productId(environment, service.id),
          environment,
          service.id,
          `${service.title} (${environment})`,
          defaults.rateLimitPerMinute,
          defaults.quotaCalls,
          defaults.quotaPeriodSeconds,
          defaults.approvalRequired,
        ],
      );
    }
  }
}

const COLUMNS = `id, environment, service, name, rate_limit_per_minute AS "rateLimitPerMinute",
  quota_calls AS "quotaCalls", quota_period_seconds AS "quotaPeriodSeconds", approval_required AS "approvalRequired",
  json_build_object('origins', cors_origins, 'methods', cors_methods, 'headers', cors_headers,
    'exposeHeaders', cors_expose_headers, 'maxAgeSeconds', cors_max_age,
    'allowCredentials', cors_allow_credentials) AS cors`;

export async function listProducts(pool: Pool): Promise<Product[]> {
  return (await pool.query<Product>(`SELECT ${COLUMNS} FROM products ORDER BY environment DESC, id`)).rows;
}

export async function findProduct(pool: Pool, id: string): Promise<Product | undefined> {
  return (await pool.query<Product>(`SELECT ${COLUMNS} FROM products WHERE id = $1`, [id])).rows[0];
}

/** Whether the product exists (a new subscription's check, inside its transaction). */
export async function productExists(db: Pool | PoolClient, id: string): Promise<boolean> {
  return ((await db.query('SELECT 1 FROM products WHERE id = $1', [id])).rowCount ?? 0) > 0;
}

/**
 * Changes what `change` names; undefined when there is no such product. The table's check keeps the
 * wildcard-with-credentials pair out whatever order its halves are set in (mapped to the option's rule).
 */
export async function updateProduct(
  pool: Pool,
  id: string,
  change: ProductChange,
): Promise<Product | undefined> {
  const quota = change.quota;
  const cors = change.cors ?? {};
  const result = await pool
    .query<Product>(
      `UPDATE products SET
        rate_limit_per_minute = COALESCE($2, rate_limit_per_minute),
        quota_calls = CASE WHEN $3::boolean THEN $4 ELSE quota_calls END,
        quota_period_seconds = CASE WHEN $3::boolean THEN $5 ELSE quota_period_seconds END,
        approval_required = COALESCE($6, approval_required),
        cors_origins = CASE WHEN $7::boolean THEN $8::text[] ELSE cors_origins END,
        cors_methods = COALESCE($9::text[], cors_methods),
        cors_headers = COALESCE($10::text[], cors_headers),
        cors_expose_headers = COALESCE($11::text[], cors_expose_headers),
        cors_max_age = COALESCE($12, cors_max_age),
        cors_allow_credentials = COALESCE($13, cors_allow_credentials)
      WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        id,
        change.rateLimitPerMinute ?? null,
        quota !== undefined,
        quota?.calls ?? null,
        quota?.periodSeconds ?? null,
        change.approvalRequired ?? null,
        cors.origins !== undefined,
        cors.origins ?? null,
        cors.methods ?? null,
        cors.headers ?? null,
        cors.exposeHeaders ?? null,
        cors.maxAgeSeconds ?? null,
        cors.allowCredentials ?? null,
      ],
    )
    .catch((error: unknown) => {
      // The stored origins may be * while only --cors-credentials is changed: the table's check decides.
      if ((error as { constraint?: string }).constraint === 'products_cors_wildcard_credentials')
        throw wildcardCredentials();
      throw error;
    });
  // Key lookups cache the product's limits, and every process holds its CORS policy: look again.
  if (result.rows[0]) await publish(pool, { kind: 'product', id });
  return result.rows[0];
}
