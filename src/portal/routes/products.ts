import type { FastifyInstance } from 'fastify';
import type { Product } from '../../gateway/domain/products.ts';
import { findProduct, listProducts } from '../../gateway/store/products.ts';
import { ORGANISATION_HEADER_SERVICES } from '../domain/organisation-header.ts';
import { baseUrl, PRODUCT_ID } from '../domain/products.ts';
import { notFound } from '../errors.ts';
import type { PortalDeps } from '../index.ts';
import { preparedDocument } from '../operations/reference.ts';
import { organisationIn } from '../operations/sandbox.ts';
import { liveSubscriptions } from '../operations/subscriptions.ts';
import { sendPage } from '../pages/layout.ts';
import { productPage, productsPage } from '../pages/products.ts';
import { REFERENCE_SCRIPT_URL, SWAGGER_CSS, SWAGGER_JS } from '../pages/reference.ts';
import { portalContext } from '../session.ts';

/** The product list, each product's page with its API reference, and the document the reference draws. */
export function productRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;
  const product = async (id: string): Promise<Product> => {
    const found = PRODUCT_ID.test(id) ? await findProduct(pool, id) : undefined;
    if (!found) throw notFound('There is no such product.');
    return found;
  };

  scope.get('/products', async (request, reply) => {
    const user = portalContext(request).user;
    const [products, live] = await Promise.all([listProducts(pool), liveSubscriptions(pool, user)]);
    const page = productsPage(request, deps.runtime.services, products, live);
    // Seven columns, paths among them: the wide column, so that no path wraps at a laptop's width.
    return sendPage(request, reply, 'Products', page, 200, { wide: true });
  });

  scope.get<{ Params: { id: string } }>('/products/:id', async (request, reply) => {
    const found = await product(request.params.id);
    const user = portalContext(request).user;
    const live = await liveSubscriptions(pool, user);
    const organisation = ORGANISATION_HEADER_SERVICES.has(found.service)
      ? { value: user ? await organisationIn(pool, user.id, found.environment) : undefined }
      : undefined;
    const page = productPage(request, deps, found, live.get(found.id), organisation);
    return sendPage(request, reply, found.name, page, 200, {
      styles: [SWAGGER_CSS],
      scripts: [SWAGGER_JS, REFERENCE_SCRIPT_URL],
      wide: true,
    });
  });

  // The document the reference draws: the service's own, prepared (domain/reference-document.ts).
  scope.get<{ Params: { id: string } }>('/products/:id/openapi.json', async (request, reply) => {
    const found = await product(request.params.id);
    const document = await preparedDocument(deps, baseUrl(deps.runtime.services, found), found.service);
    if (!document) throw notFound('This product publishes no OpenAPI document.');
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(document));
  });
}
