import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { complianceRoutes } from './compliance.ts';
import { documentRoutes, fileRoutes } from './documents.ts';
import { onlineRegisterRoutes } from './online-register.ts';
import { readRoutes } from './read.ts';

/** The offers register's operations (x-organisation required on every one: routes/support.ts). */
export const discloseRoutes: FastifyPluginAsync<ServiceContext> = async (app, context) => {
  readRoutes(app, context);
  documentRoutes(app, context);
  await complianceRoutes(app, context);
};

/** Answered without a key: the document store's signed URLs and the online register's pages. */
export const disclosePublicRoutes: FastifyPluginAsync<ServiceContext> = async (app, context) => {
  fileRoutes(app, context);
  onlineRegisterRoutes(app, context);
};
