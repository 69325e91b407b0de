import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';
import { sendCsrfRefusal, sendErrorPage } from './errors.js';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Security headers, allowed hosts, trusted origins and no caching of pages that hold patient data. */
export const securityPlugin = fp(async (app: FastifyInstance) => {
  const { config } = app.deps;
  const headers = helmetHeaders({
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
    // As strict as the CSP's frame-ancestors 'none', for browsers that only read this header.
    xFrameOptions: { action: 'deny' },
    crossOriginEmbedderPolicy: false,
  });
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });

  if (config.isProduction) {
    const allowed = new Set(config.allowedHosts);
    // Callback hooks here and below: every request passes them, and an async hook costs each one a promise.
    app.addHook('onRequest', (request, reply, done) => {
      const host = (request.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
      if (!allowed.has(host)) {
        sendErrorPage(request, reply, 400, { text: 'Host no permitido.' });
        return;
      }
      done();
    });
  }

  // Every unsafe request, in every environment, comes from this site or a trusted origin (decision 0032).
  const trusted = new Set(config.trustedOrigins.map((o) => originOf(o) ?? o.toLowerCase()));
  app.addHook('onRequest', (request, reply, done) => {
    if (!UNSAFE.has(request.method)) return done();
    const own = originOf(`${request.protocol}://${request.headers.host ?? ''}`) ?? '';
    const verdict = judgeRequestOrigin(
      {
        origin: headerText(request.headers.origin),
        referer: headerText(request.headers.referer),
        secFetchSite: headerText(request.headers['sec-fetch-site']),
        https: request.protocol === 'https',
      },
      own,
      trusted,
    );
    if (verdict !== 'ok') {
      sendCsrfRefusal(request, reply);
      return;
    }
    done();
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.url.startsWith('/static/')) reply.header('Cache-Control', 'no-store');
    done(null, payload);
  });
});

/**
 * The headers helmet sets for these options. They depend on nothing in the request, so helmet runs once, at
 * start, against a recording response; @fastify/helmet would build helmet's middleware anew for every request
 * (8 % of a small request's time, decision 0016).
 */
export function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err instanceof Error ? err : new Error(String(err));
  });
  return headers;
}

const headerText = (value: string | string[] | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

export interface RequestOrigin {
  origin: string | undefined;
  referer: string | undefined;
  secFetchSite: string | undefined;
  /** Whether the request arrived over HTTPS (as the proxy reports it when trusted). */
  https: boolean;
}

/**
 * Whether an unsafe request may proceed, as Django's CSRF middleware decides it (or stricter): the `Origin` must
 * be this site's own origin or a trusted one (`null` never is); without `Origin`, the `Referer`'s origin must be;
 * over HTTPS one of the two is required. A browser that says `Sec-Fetch-Site: cross-site` is refused unless the
 * origin is trusted. Requests without any of these headers (not a browser) rely on the CSRF token alone.
 */
export function judgeRequestOrigin(r: RequestOrigin, ownOrigin: string, trusted: ReadonlySet<string>): 'ok' | 'refused' {
  const accepted = (origin: string) => origin === ownOrigin || trusted.has(origin);
  let origin: string | null = null;
  if (r.origin !== undefined) {
    origin = originOf(r.origin.trim());
    if (origin === null || !accepted(origin)) return 'refused';
  } else if (r.referer !== undefined) {
    origin = originOf(r.referer);
    if (origin === null || !accepted(origin)) return 'refused';
  } else if (r.https) {
    return 'refused';
  }
  if (r.secFetchSite?.trim().toLowerCase() === 'cross-site' && (origin === null || !trusted.has(origin))) return 'refused';
  return 'ok';
}

/** 'https://host:port' of a URL (default port left out), lower-cased, or null when it is not an http(s) URL. */
function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin.toLowerCase() : null;
  } catch {
    return null;
  }
}
