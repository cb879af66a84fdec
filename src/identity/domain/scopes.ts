import type { Environment, ServiceDefinition } from '../../services/contract.ts';

/**
 * Audiences and scopes, named as the public gateway names them: the resource of an environment is
 * `<base>/gateway` or `<base>/sandbox`, and `<resource>/.default` asks for every permission of that
 * environment (as the hosted identity service's `.default` does). Finer scopes name a service and read
 * or write: `nzbn:read`, `nzbn:write`, `market-rent:read` …
 */
export const resourceFor = (base: string, environment: Environment): string =>
  `${base}/${environment === 'production' ? 'gateway' : 'sandbox'}`;

export const defaultScope = (base: string, environment: Environment): string =>
  `${resourceFor(base, environment)}/.default`;

export const serviceScopes = (services: readonly ServiceDefinition[]): string[] =>
  services.flatMap((s) => [`${s.id}:read`, `${s.id}:write`]);

export function environmentOfResource(base: string, resource: string): Environment | undefined {
  if (resource === resourceFor(base, 'production')) return 'production';
  if (resource === resourceFor(base, 'sandbox')) return 'sandbox';
  return undefined;
}

/** True when the token's scopes allow `needed` (e.g. `nzbn:write`) in `environment`. */
export function scopeAllows(
  scopes: readonly string[],
  base: string,
  environment: Environment,
  needed: string,
): boolean {
  return scopes.includes(needed) || scopes.includes(defaultScope(base, environment));
}
