import type { FastifyInstance } from 'fastify';
import { requireAdmin } from '../web/guard.js';
import { pageContext, sendPage } from '../web/render.js';
import { listDocumentoCollisions } from './identity.repository.js';
import { DocumentoCollisionsPage } from './views/collisions.page.js';

/**
 * /users/documentos/ (administrators, beside the users' pages where it was first placed): the patients whose
 * documentos collided when keys became canonical (decision 0030); rendered per request.
 */
export async function documentoCollisionsRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.deps;
  app.get('/users/documentos/', { preHandler: requireAdmin }, async (request, reply) =>
    sendPage(reply, <DocumentoCollisionsPage ctx={pageContext(request, reply)} rows={await listDocumentoCollisions(db)} />),
  );
}
