import type { Config } from '../config.ts';
import {
  CorsRuleError,
  type CorsSettings,
  parseCredentials,
  parseHeaderNames,
  parseMaxAge,
  parseMethods,
  parseOrigins,
} from '../gateway/domain/cors.ts';
import type { Product, ProductChange } from '../gateway/domain/products.ts';
import { listProducts, updateProduct } from '../gateway/store/products.ts';
import { SERVICES } from '../services/registry.ts';
import { type Options, optional, parse, print, UsageError, wholeNumber, withGateway } from './args.ts';

/** `rsg products`: list the products, set their limits, approval rule and CORS. */

/** The `--cors-*` options of `products set`; each bad value names its option and the rule. */
function corsChange(values: Options): Partial<CorsSettings> | undefined {
  const change: Partial<CorsSettings> = {};
  try {
    const origins = optional(values, 'cors-origins');
    if (origins !== undefined) change.origins = parseOrigins(origins);
    const methods = optional(values, 'cors-methods');
    if (methods !== undefined) change.methods = parseMethods(methods);
    const headers = optional(values, 'cors-headers');
    if (headers !== undefined) change.headers = parseHeaderNames(headers, '--cors-headers', true);
    const expose = optional(values, 'cors-expose-headers');
    if (expose !== undefined) change.exposeHeaders = parseHeaderNames(expose, '--cors-expose-headers', false);
    const maxAge = optional(values, 'cors-max-age');
    if (maxAge !== undefined) change.maxAgeSeconds = parseMaxAge(maxAge);
    const credentials = optional(values, 'cors-credentials');
    if (credentials !== undefined) change.allowCredentials = parseCredentials(credentials);
  } catch (error) {
    if (error instanceof CorsRuleError) throw new UsageError(error.message);
    throw error;
  }
  return Object.keys(change).length > 0 ? change : undefined;
}

const corsSummary = (p: Product) =>
  p.cors.origins === null
    ? 'CORS off'
    : `CORS ${p.cors.origins.join(',')} methods ${p.cors.methods.join(',')} max-age ${p.cors.maxAgeSeconds}s${p.cors.allowCredentials ? ' with credentials' : ''}`;

export async function productsCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    'rate-limit': { type: 'string' },
    quota: { type: 'string' },
    'quota-period': { type: 'string' },
    'no-quota': { type: 'boolean' },
    approval: { type: 'string' },
    'cors-origins': { type: 'string' },
    'cors-methods': { type: 'string' },
    'cors-headers': { type: 'string' },
    'cors-expose-headers': { type: 'string' },
    'cors-max-age': { type: 'string' },
    'cors-credentials': { type: 'string' },
    json: { type: 'boolean' },
  });
  const json = values.json === true;
  if (positionals[0] === 'list') {
    const products = await withGateway(config, listProducts);
    print(products, json, () =>
      products
        .map(
          (p) =>
            `${p.id}\t${p.rateLimitPerMinute}/min\t${p.quotaCalls === null ? 'no quota' : `${p.quotaCalls} per ${p.quotaPeriodSeconds}s`}\t${p.approvalRequired ? 'approval required' : 'open'}\t${corsSummary(p)}${SERVICES.some((s) => s.id === p.service && !s.routes) ? '\tnot built yet (calls answer 501)' : ''}`,
        )
        .join('\n'),
    );
    return 0;
  }
  if (positionals[0] === 'set' && positionals[1]) {
    const id = positionals[1];
    const change: ProductChange = {};
    const rate = wholeNumber(values, 'rate-limit');
    if (rate !== undefined) change.rateLimitPerMinute = rate;
    const quota = wholeNumber(values, 'quota');
    const period = wholeNumber(values, 'quota-period');
    if (values['no-quota'] === true) change.quota = null;
    else if (quota !== undefined || period !== undefined) {
      if (quota === undefined || period === undefined)
        throw new UsageError('--quota and --quota-period go together');
      change.quota = { calls: quota, periodSeconds: period };
    }
    if (values.approval !== undefined) {
      if (values.approval !== 'required' && values.approval !== 'none')
        throw new UsageError('--approval must be required or none');
      change.approvalRequired = values.approval === 'required';
    }
    const cors = corsChange(values);
    if (cors) change.cors = cors;
    const product = await withGateway(config, (pool) => updateProduct(pool, id, change)).catch(
      (error: unknown) => {
        if (error instanceof CorsRuleError) throw new UsageError(error.message);
        throw error;
      },
    );
    if (!product) throw new UsageError(`no product "${id}"; see "rsg products list"`);
    print(
      product,
      json,
      () => `${product.id} updated (running gateways apply it at once); ${corsSummary(product)}`,
    );
    return 0;
  }
  throw new UsageError('products list | products set ID [options]');
}
