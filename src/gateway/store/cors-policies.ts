/** The SQL of the products' CORS settings, read whole by the policies every process holds in memory. */
import type { Pool } from 'pg';
import type { CorsSettings } from '../domain/cors.ts';

export interface CorsPolicyRow extends CorsSettings {
  environment: string;
  service: string;
}

/** Every product's CORS settings (ten rows: one product per service and environment). */
export async function corsPolicyRows(pool: Pool): Promise<CorsPolicyRow[]> {
  const result = await pool.query<CorsPolicyRow>(
    `SELECT environment, service, cors_origins AS origins, cors_methods AS methods,
            cors_headers AS headers, cors_expose_headers AS "exposeHeaders",
            cors_max_age AS "maxAgeSeconds", cors_allow_credentials AS "allowCredentials"
       FROM products`,
  );
  return result.rows;
}
