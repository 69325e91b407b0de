import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { DIVIPOLA } from './divipola.js';

// The departamento → municipios catalogue that public/app.js uses to narrow the city list when the department
// changes. Served once per browser as a file of its own (about 15 KB) instead of inside every page with a patient
// form, where it was half of the page's bytes. Public like the other files under /static/: it is DANE's public
// catalogue, no patient data.

/** `{ "SANTANDER": ["AGUADA", …], … }`, as UTF-8 bytes. */
export const DIVIPOLA_CATALOGUE: Buffer = Buffer.from(
  JSON.stringify(Object.fromEntries(DIVIPOLA.map((d) => [d.nombre, d.municipios.map((m) => m.nombre)]))),
);

const CATALOGUE_VERSION = createHash('sha256').update(DIVIPOLA_CATALOGUE).digest('hex').slice(0, 12);
const CATALOGUE_PATH = '/static/divipola.json';

/** Where pages point app.js to: the content's hash in the URL, so browsers may keep it as long as they like. */
export const DIVIPOLA_CATALOGUE_URL = `${CATALOGUE_PATH}?v=${CATALOGUE_VERSION}`;

export async function divipolaCatalogueRoutes(app: FastifyInstance): Promise<void> {
  app.get(CATALOGUE_PATH, async (request, reply) => {
    const current = (request.query as { v?: unknown }).v === CATALOGUE_VERSION;
    return reply
      .type('application/json; charset=utf-8')
      .header('Cache-Control', current ? 'public, max-age=31536000, immutable' : 'public, max-age=3600')
      .send(DIVIPOLA_CATALOGUE);
  });
}
