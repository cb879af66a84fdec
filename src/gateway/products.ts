import type { Pool } from 'pg';
import { publish } from '../platform/db/notify.ts';
import { ENVIRONMENTS, type Environment, productId } from '../services/contract.ts';
import { SERVICES } from '../services/registry.ts';

export interface Product {
  id: string;
  environment: Environment;
  service: string;
  name: string;
  rateLimitPerMinute: number;
  quotaCalls: number | null;
  quotaPeriodSeconds: number | null;
  approvalRequired: boolean;
}

/**
 * Defaults for new products. The sandbox is for building and testing, so it is open without approval;
 * production holds real data, so an operator approves each subscription. Operators change these with
 * `rsg products set`; later starts never overwrite their changes.
 */
export const PRODUCT_DEFAULTS: Record<
  Environment,
  Omit<Product, 'id' | 'environment' | 'service' | 'name'>
> = {
  sandbox: {
    rateLimitPerMinute: 300,
    quotaCalls: 100_000,
    quotaPeriodSeconds: 86_400,
    approvalRequired: false,
  },
  production: {
    rateLimitPerMinute: 600,
    quotaCalls: 1_000_000,
    quotaPeriodSeconds: 86_400,
    approvalRequired: true,
  },
};

export async function ensureProducts(pool: Pool): Promise<void> {
  for (const environment of ENVIRONMENTS) {
    for (const service of SERVICES) {
      const defaults = PRODUCT_DEFAULTS[environment];
      await pool.query(
        `INSERT INTO products (id, environment, service, name, rate_limit_per_minute, quota_calls,
                               quota_period_seconds, approval_required)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
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
  quota_calls AS "quotaCalls", quota_period_seconds AS "quotaPeriodSeconds", approval_required AS "approvalRequired"`;

export async function listProducts(pool: Pool): Promise<Product[]> {
  return (await pool.query<Product>(`SELECT ${COLUMNS} FROM products ORDER BY environment DESC, id`)).rows;
}

export async function findProduct(pool: Pool, id: string): Promise<Product | undefined> {
  return (await pool.query<Product>(`SELECT ${COLUMNS} FROM products WHERE id = $1`, [id])).rows[0];
}

export interface ProductChange {
  rateLimitPerMinute?: number;
  /** null removes the quota. */
  quota?: { calls: number; periodSeconds: number } | null;
  approvalRequired?: boolean;
}

export async function updateProduct(
  pool: Pool,
  id: string,
  change: ProductChange,
): Promise<Product | undefined> {
  const quota = change.quota;
  const result = await pool.query<Product>(
    `UPDATE products SET
        rate_limit_per_minute = COALESCE($2, rate_limit_per_minute),
        quota_calls = CASE WHEN $3::boolean THEN $4 ELSE quota_calls END,
        quota_period_seconds = CASE WHEN $3::boolean THEN $5 ELSE quota_period_seconds END,
        approval_required = COALESCE($6, approval_required)
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [
      id,
      change.rateLimitPerMinute ?? null,
      quota !== undefined,
      quota?.calls ?? null,
      quota?.periodSeconds ?? null,
      change.approvalRequired ?? null,
    ],
  );
  // Key lookups cache the product's limits: tell every process to look again.
  if (result.rows[0]) await publish(pool, { kind: 'product', id });
  return result.rows[0];
}
