import { type Config, loadConfig } from '../config.ts';
import { bootstrapIfNeeded } from '../gateway/bootstrap.ts';
import {
  CorsRuleError,
  type CorsSettings,
  parseCredentials,
  parseHeaderNames,
  parseMaxAge,
  parseMethods,
  parseOrigins,
} from '../gateway/cors.ts';
import { listProducts, type Product, type ProductChange, updateProduct } from '../gateway/products.ts';
import {
  changeState,
  createSubscription,
  type KeySlot,
  listSubscriptions,
  regenerateKey,
} from '../gateway/subscriptions.ts';
import { usageOf } from '../gateway/usage.ts';
import { addUser, listUsers } from '../identity/users.ts';
import { advanceClock, type ClockReading, readClock, setClock } from '../platform/clock-store.ts';
import { openDatabase } from '../platform/db/pool.ts';
import { migrateAll, prepareDatabases, seedSandbox } from '../runtime.ts';
import { SERVICES } from '../services/registry.ts';
import {
  type Options,
  optional,
  parse,
  print,
  required,
  subscriptionId,
  UsageError,
  userId,
  wholeNumber,
  withGateway,
} from './args.ts';
import { identityUsersCommand, oauthCommand, organisationsCommand } from './identity.ts';
import { printBootstrap, startCommand, workerCommand } from './start.ts';

const clockLine = (r: ClockReading) =>
  `${r.environment} clock: ${r.now.toISOString()} (${r.mode}${r.mode === 'virtual' ? `, offset ${r.offsetMs} ms${r.frozen ? ', frozen' : ''}` : ''})`;

export async function runCommand(command: string, args: string[]): Promise<number> {
  const config = loadConfig();
  switch (command) {
    case 'start':
      return startCommand(args);
    case 'worker':
      return workerCommand(args);
    case 'migrate': {
      parse(args, {});
      const setup = await prepareDatabases(config);
      try {
        const applied = await migrateAll(setup.urls);
        process.stdout.write(
          applied.length ? `applied:\n  ${applied.join('\n  ')}\n` : 'databases are up to date\n',
        );
      } finally {
        await setup.embedded?.stop();
      }
      return 0;
    }
    case 'seed': {
      const { values } = parse(args, { scale: { type: 'string' } });
      if (values.scale !== undefined && values.scale !== 'small' && values.scale !== 'full') {
        throw new UsageError('--scale must be small or full');
      }
      const scale = values.scale ?? config.seedScale;
      const setup = await prepareDatabases(config);
      try {
        await migrateAll(setup.urls);
        const gateway = openDatabase(setup.urls.gateway, 2);
        const result = await bootstrapIfNeeded(gateway.pool, config.adminEmail).finally(() =>
          gateway.close(),
        );
        if (result) printBootstrap(result, config);
        else process.stdout.write('the operator and sandbox subscriptions exist already\n');
        const summaries = await seedSandbox(setup.urls, scale, (line) => process.stderr.write(`${line}\n`));
        for (const summary of summaries) process.stdout.write(`${summary}\n`);
      } finally {
        await setup.embedded?.stop();
      }
      return 0;
    }
    case 'users':
      return args[0] === 'add' || args[0] === 'list'
        ? usersCommand(config, args)
        : identityUsersCommand(config, args);
    case 'organisations':
      return organisationsCommand(config, args);
    case 'oauth':
      return oauthCommand(config, args);
    case 'subscriptions':
      return subscriptionsCommand(config, args);
    case 'keys': {
      const { values, positionals } = parse(args, {
        subscription: { type: 'string' },
        which: { type: 'string' },
        json: { type: 'boolean' },
      });
      if (positionals[0] !== 'regenerate')
        throw new UsageError('keys regenerate --subscription ID --which primary|secondary');
      const which = required(values, 'which');
      if (which !== 'primary' && which !== 'secondary')
        throw new UsageError('--which must be primary or secondary');
      const id = subscriptionId(values);
      const key = await withGateway(config, (pool) => regenerateKey(pool, id, which as KeySlot));
      print({ subscriptionId: id, which, key }, values.json === true, () => key);
      return 0;
    }
    case 'products':
      return productsCommand(config, args);
    case 'clock': {
      const { positionals } = parse(args, {});
      const [action, argument] = positionals;
      const reading = await withGateway(config, (pool) => {
        if (action === 'show' || action === undefined) return readClock(pool, 'sandbox');
        if (action === 'advance' && argument) return advanceClock(pool, 'sandbox', argument);
        if (action === 'set' && argument) return setClock(pool, 'sandbox', argument);
        throw new UsageError('clock show | clock advance <duration> | clock set <iso-time>');
      });
      process.stdout.write(`${clockLine(reading)}\n`);
      return 0;
    }
    case 'import': {
      const { values, positionals } = parse(args, { environment: { type: 'string' } });
      const [kind, file] = positionals;
      if (kind !== 'bonds' || !file)
        throw new UsageError('import bonds FILE.csv [--environment sandbox|production]');
      const environment = values.environment ?? 'production';
      if (environment !== 'sandbox' && environment !== 'production') {
        throw new UsageError('--environment must be sandbox or production');
      }
      const { importBondsCommand } = await import('../services/market-rent/import/command.ts');
      const setup = await prepareDatabases(config);
      try {
        await migrateAll(setup.urls);
        return await importBondsCommand(setup.urls[environment], file, environment);
      } finally {
        await setup.embedded?.stop();
      }
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

async function usersCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    email: { type: 'string' },
    name: { type: 'string' },
    operator: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const json = values.json === true;
  if (positionals[0] === 'add') {
    const email = required(values, 'email');
    const user = await withGateway(config, (pool) =>
      addUser(pool, { email, name: optional(values, 'name'), isOperator: values.operator === true }),
    );
    print(user, json, () => `added ${user.email} (${user.id})${user.isOperator ? ' as an operator' : ''}`);
    return 0;
  }
  if (positionals[0] === 'list') {
    const users = await withGateway(config, listUsers);
    print(users, json, () =>
      users.map((u) => `${u.email}\t${u.name}\t${u.isOperator ? 'operator' : 'user'}`).join('\n'),
    );
    return 0;
  }
  throw new UsageError('users add --email E [--name N] [--operator] | users list');
}

async function subscriptionsCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    user: { type: 'string' },
    product: { type: 'string' },
    name: { type: 'string' },
    subscription: { type: 'string' },
    hours: { type: 'string' },
    json: { type: 'boolean' },
  });
  const json = values.json === true;
  const action = positionals[0];
  if (action === 'create') {
    const email = required(values, 'user');
    const product = required(values, 'product');
    // Run by the operator, so the subscription is active at once, whatever the product's approval rule.
    const created = await withGateway(config, async (pool) =>
      createSubscription(pool, {
        userId: await userId(pool, email),
        productId: product,
        name: optional(values, 'name'),
        state: 'active',
      }),
    );
    const { subscriptionId, primaryKey, secondaryKey } = created;
    print({ subscriptionId, primaryKey, secondaryKey }, json, () =>
      [
        `subscription ${subscriptionId} (active)`,
        `primary key:   ${primaryKey}`,
        `secondary key: ${secondaryKey}`,
      ].join('\n'),
    );
    return 0;
  }
  if (action === 'list') {
    const list = await withGateway(config, (pool) =>
      listSubscriptions(pool, { userEmail: optional(values, 'user') }),
    );
    print(list, json, () =>
      list
        .map(
          (s) =>
            `${s.id}\t${s.productId}\t${s.state}\t${s.userEmail}\tkeys …${s.primaryKeyHint} …${s.secondaryKeyHint}`,
        )
        .join('\n'),
    );
    return 0;
  }
  const transitions: Record<string, 'active' | 'suspended' | 'cancelled'> = {
    approve: 'active',
    resume: 'active',
    suspend: 'suspended',
    cancel: 'cancelled',
  };
  if (action && transitions[action]) {
    const id = subscriptionId(values);
    await withGateway(config, (pool) => changeState(pool, id, transitions[action]!));
    print(
      { subscriptionId: id, state: transitions[action] },
      json,
      () => `subscription ${id} is ${transitions[action]}`,
    );
    return 0;
  }
  if (action === 'usage') {
    const id = subscriptionId(values);
    const hours = wholeNumber(values, 'hours') ?? 24;
    const rows = await withGateway(config, (pool) =>
      usageOf(pool, id, new Date(Date.now() - hours * 3_600_000)),
    );
    print(rows, json, () =>
      [
        'minute\tcalls\t4xx\t5xx\t429',
        ...rows.map(
          (r) =>
            `${r.minute.toISOString()}\t${r.calls}\t${r.clientErrors}\t${r.serverErrors}\t${r.throttled}`,
        ),
      ].join('\n'),
    );
    return 0;
  }
  throw new UsageError('subscriptions create | list | approve | suspend | resume | cancel | usage');
}

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

async function productsCommand(config: Config, args: string[]): Promise<number> {
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
