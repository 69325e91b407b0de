import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sendErrorPage } from './errors.js';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Security headers, allowed hosts, trusted origins and no caching of pages that hold patient data. */
export const securityPlugin = fp(async (app: FastifyInstance) => {
  const { config } = app.deps;
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
        ...(config.isProduction ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    hsts: config.isProduction ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    referrerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
  });

  if (config.isProduction) {
    const allowed = new Set(config.allowedHosts);
    const trusted = new Set(config.trustedOrigins);
    app.addHook('onRequest', async (request, reply) => {
      const host = (request.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
      if (!allowed.has(host)) return sendErrorPage(request, reply, 400, { text: 'Host no permitido.' });
      if (UNSAFE.has(request.method)) {
        const origin = request.headers.origin;
        const own = `${request.protocol}://${request.headers.host ?? ''}`;
        if (origin !== undefined && origin !== own && !trusted.has(origin)) {
          return sendErrorPage(request, reply, 403, { text: 'Origen no permitido para esta solicitud.' });
        }
      }
    });
  }

  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.url.startsWith('/static/')) reply.header('Cache-Control', 'no-store');
    return payload;
  });
});
