import type { Product } from '../../gateway/domain/products.ts';
import { ENVIRONMENT_PREFIX, type ServiceDefinition } from '../../services/contract.ts';

/** What the product pages say of a product (the gateway's), and where its register answers. */
const PERIODS: Record<number, string> = { 60: 'minute', 3600: 'hour', 86400: 'day', 604800: 'week' };

/** A product id as the portal's addresses and forms give it; anything else names no product. */
export const PRODUCT_ID = /^[a-z-]{1,60}$/;

export function quotaText(product: Product): string {
  if (product.quotaCalls === null || product.quotaPeriodSeconds === null) return 'no quota';
  const period =
    PERIODS[product.quotaPeriodSeconds] ?? `${product.quotaPeriodSeconds.toLocaleString('en')} seconds`;
  return `${product.quotaCalls.toLocaleString('en')} calls per ${period}`;
}

type Services = readonly ServiceDefinition[];

export const serviceOf = (services: Services, product: Product): ServiceDefinition | undefined =>
  services.find((service) => service.id === product.service);

/** Whether the product's register is built (has routes); one that is not answers 501. */
export const isBuilt = (services: Services, product: Product): boolean =>
  serviceOf(services, product)?.routes !== undefined;

export function baseUrl(services: Services, product: Product): string {
  return `${ENVIRONMENT_PREFIX[product.environment]}${serviceOf(services, product)?.path ?? ''}`;
}

/** The product of a service in an environment. */
export function productFor(products: Product[], service: string, environment: string): Product | undefined {
  return products.find((product) => product.service === service && product.environment === environment);
}
