import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { nameOperations } from '../../../platform/http/operation-ids.ts';
import { ANSWER_CACHE_SIZE, AnswerCache } from '../store/answer-cache.ts';
import { complianceRoutes } from './compliance.ts';
import { documentRoutes, fileRoutes } from './documents.ts';
import { onlineRegisterRoutes } from './online-register.ts';
import { DISCLOSE_OPERATION_IDS } from './operation-ids.ts';
import { readRoutes } from './read.ts';

/** The offers register's operations (x-organisation required on every one: routes/support.ts). */
export const discloseRoutes: FastifyPluginAsync<ServiceContext> = async (app, context) => {
  nameOperations(app, DISCLOSE_OPERATION_IDS);
  // Offer and scheme detail answers, kept while this process listens for changes (store/answer-cache.ts).
  const answers = new AnswerCache(
    context.database.url,
    context.settings.answerCacheEntries ?? ANSWER_CACHE_SIZE,
  );
  app.addHook('onClose', async () => answers.close());
  readRoutes(app, context, answers);
  documentRoutes(app, context);
  await complianceRoutes(app, context, answers);
};

/** Answered without a key: the document store's signed URLs and the online register's pages. */
export const disclosePublicRoutes: FastifyPluginAsync<ServiceContext> = async (app, context) => {
  fileRoutes(app, context);
  onlineRegisterRoutes(app, context);
};
