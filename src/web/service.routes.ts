// What the server answers besides the features: the favicon, the root's redirect and the health checks.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { requireAdmin } from './guard.js';

export async function serviceRoutes(app: FastifyInstance, options: { publicDir: string }): Promise<void> {
  const { db } = app.deps;
  // Browsers ask for /favicon.ico on their own: answered from the bundle's public files (no 404 in their console).
  const favicon = await readFile(path.join(options.publicDir, 'favicon.ico'));
  app.get('/favicon.ico', async (_request, reply) => reply.header('cache-control', 'public, max-age=604800').type('image/x-icon').send(favicon));
  app.get('/', async (request, reply) => reply.redirect(request.user ? '/dashboard/' : '/users/login/', 302));
  app.get('/healthz', async (_request, reply) => {
    try {
      await sql`select 1`.execute(db);
      return reply.type('text/plain; charset=utf-8').send('ok');
    } catch {
      return reply.code(503).type('text/plain; charset=utf-8').send('unavailable');
    }
  });

  // The kept pages' hits and renders so far (administrators; the benchmark prints the hit rate of each scenario).
  app.get('/healthz/cache', { preHandler: requireAdmin }, async (_request, reply) => reply.header('cache-control', 'no-store').send(app.pages.counts()));

  // Where the memory is (administrators; the benchmark prints it after each scenario, decision 0250).
  app.get('/healthz/memory', { preHandler: requireAdmin }, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send(app.keptMemory.report(app.pages.keptBytes())),
  );
}
