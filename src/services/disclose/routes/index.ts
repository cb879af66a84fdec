import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { complianceRoutes } from './compliance.ts';
import { readRoutes } from './read.ts';

/** The offers register's operations (x-organisation required on every one: routes/support.ts). */
export const discloseRoutes: FastifyPluginAsync<ServiceContext> = async (app, context) => {
  readRoutes(app, context);
  await complianceRoutes(app, context);
};
