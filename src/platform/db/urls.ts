/** Where each of the three databases lives. */
export interface DatabaseUrls {
  gateway: string;
  sandbox: string;
  production: string;
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, '')) || 'postgres';
}

/**
 * With DATABASE_URL set, the gateway's state lives in that database and the two environments in
 * `<name>_sandbox` and `<name>_production` on the same server, unless SANDBOX_DATABASE_URL or
 * PRODUCTION_DATABASE_URL name others. The embedded server uses rsg_gateway, rsg_sandbox, rsg_production.
 */
export function resolveDatabaseUrls(options: {
  serverUrl?: string;
  databaseUrl?: string;
  sandboxDatabaseUrl?: string;
  productionDatabaseUrl?: string;
}): DatabaseUrls {
  if (options.databaseUrl) {
    const name = databaseName(options.databaseUrl);
    return {
      gateway: options.databaseUrl,
      sandbox: options.sandboxDatabaseUrl ?? withDatabase(options.databaseUrl, `${name}_sandbox`),
      production: options.productionDatabaseUrl ?? withDatabase(options.databaseUrl, `${name}_production`),
    };
  }
  if (!options.serverUrl) throw new Error('either a server URL or DATABASE_URL is needed');
  return {
    gateway: withDatabase(options.serverUrl, 'rsg_gateway'),
    sandbox: options.sandboxDatabaseUrl ?? withDatabase(options.serverUrl, 'rsg_sandbox'),
    production: options.productionDatabaseUrl ?? withDatabase(options.serverUrl, 'rsg_production'),
  };
}
