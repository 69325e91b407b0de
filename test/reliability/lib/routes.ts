// The application's route table, collected as the routes are registered (not listed by hand), so a route added
// tomorrow is covered by every check that walks the table.
import diagnostics from 'node:diagnostics_channel';
import type { FastifyInstance } from 'fastify';

export interface RouteInfo {
  method: string;
  url: string;
}

const tables = new WeakMap<FastifyInstance, RouteInfo[]>();

// Fastify publishes every new instance on this channel before any plugin or route is added to it.
diagnostics.channel('fastify.initialization').subscribe((message) => {
  const { fastify } = message as { fastify: FastifyInstance };
  const routes: RouteInfo[] = [];
  tables.set(fastify, routes);
  fastify.addHook('onRoute', (route) => {
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) {
      routes.push({ method: String(m).toUpperCase(), url: route.url });
    }
  });
});

/** Every (method, url) of an app built after this module was imported, HEAD and OPTIONS left out. */
export function routesOf(app: FastifyInstance): RouteInfo[] {
  const routes = tables.get(app);
  if (!routes) throw new Error('route table not collected: import test/reliability/lib/routes.ts before building the app');
  const seen = new Set<string>();
  return routes
    .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS')
    .map((r) => ({ method: r.method, url: r.url.replace(/\/{2,}/g, '/') }))
    .filter((r) => {
      const key = `${r.method} ${r.url}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** Public by decision §2: the login and setup pages, the health check and the static assets. */
export function isPublicRoute(url: string): boolean {
  const u = url.replace(/\/+$/, '');
  // The calendar feed is read by a phone's calendar app, which has no session: it answers only to its secret address.
  return u === '/users/login' || u === '/users/setup' || u === '/healthz' || u === '/favicon.ico' || u.startsWith('/static') || u.startsWith('/agenda/ical/');
}

export const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const paramsOf = (url: string): string[] => [...url.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);

/** The route with its parameters filled in: `resolve(name, url)` gives each value; a wildcard becomes `app.css`. */
export function fillRoute(url: string, resolve: (param: string, url: string) => string): string {
  return url.replace(/:([A-Za-z_][A-Za-z0-9_]*)(\([^)]*\))?/g, (_m, name: string) => encodeURIComponent(resolve(name, url))).replace(/\*$/, 'app.css');
}
