import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { accountRoutes } from './account.ts';
import { Processing } from './processing.ts';
import { searchRoutes } from './search.ts';
import { statementRoutes } from './statements.ts';

/** The secured interests register's operations in one environment. */
export const ppsrRoutes: FastifyPluginAsync<ServiceContext> = async (app, context) => {
  const processing = new Processing(context, {
    platformTimeoutMs: context.settings.platformTimeoutMs ?? 180_000,
    sandboxDelayMs: context.settings.sandboxDelayMs ?? 0,
  });
  statementRoutes(app, context, processing);
  searchRoutes(app, context, processing);
  accountRoutes(app, context, processing);
};
