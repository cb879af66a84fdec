/**
 * Products: one per service per environment (`sandbox-nzbn` …), with its rate limit, quota, approval rule
 * and CORS settings. Their SQL is store/products.ts.
 */
import type { Environment } from '../../services/contract.ts';
import type { CorsSettings } from './cors.ts';

export interface Product {
  id: string;
  environment: Environment;
  service: string;
  name: string;
  rateLimitPerMinute: number;
  quotaCalls: number | null;
  quotaPeriodSeconds: number | null;
  approvalRequired: boolean;
  /** Cross-origin resource sharing (see domain/cors.ts); `origins` null: off, the default. */
  cors: CorsSettings;
}

/**
 * Defaults for new products. The sandbox is for building and testing, so it is open without approval;
 * production holds real data, so an operator approves each subscription. Operators change these with
 * `rsg products set`; later starts never overwrite their changes.
 */
export const PRODUCT_DEFAULTS: Record<
  Environment,
  Omit<Product, 'id' | 'environment' | 'service' | 'name' | 'cors'>
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

export interface ProductChange {
  rateLimitPerMinute?: number;
  /** null removes the quota. */
  quota?: { calls: number; periodSeconds: number } | null;
  approvalRequired?: boolean;
  /** Only the settings named change; `origins: null` turns CORS off. */
  cors?: Partial<CorsSettings>;
}
