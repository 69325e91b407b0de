// Item 4: walks the application's route table (collected as routes are registered, never listed by hand) and
// checks every route: login required, CSRF required for unsafe methods, no caching and the security headers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from './lib/client.js';
import { createReliabilityContext, report, type ReliabilityContext } from './lib/context.js';
import { fillRoute, isPublicRoute, routesOf, UNSAFE_METHODS, type RouteInfo } from './lib/routes.js';
import { fingerprint, resolveParam } from './lib/world.js';

let ctx: ReliabilityContext;
let routes: RouteInfo[];
const urlOf = (r: RouteInfo) => fillRoute(r.url, (name, url) => resolveParam(ctx.world, name, url));

before(async () => {
  ctx = await createReliabilityContext();
  routes = routesOf(ctx.app);
  report(`route table: ${routes.length} routes: ${routes.map((r) => `${r.method} ${r.url}`).join(' | ')}`);
});
after(async () => ctx.close());

describe('route table', () => {
  test('the table is collected from the app itself and holds the known routes', () => {
    const keys = routes.map((r) => `${r.method} ${r.url.replace(/(.)\/$/, '$1')}`);
    for (const known of ['GET /users/login', 'POST /users/login', 'POST /users/logout', 'GET /dashboard', 'GET /healthz', 'GET /static/*']) {
      assert.ok(keys.includes(known), `${known} missing from ${keys.join(', ')}`);
    }
  });

  test('every route but the public ones answers 302 to the login page, with next, without a session', async () => {
    const anonymous = Client.inject(ctx.app);
    let checked = 0;
    for (const r of routes.filter((x) => !isPublicRoute(x.url))) {
      const url = urlOf(r);
      const before = UNSAFE_METHODS.has(r.method) ? await fingerprint(ctx.db) : null;
      const res = await anonymous.request(r.method, url, UNSAFE_METHODS.has(r.method) ? 'a=1' : undefined, UNSAFE_METHODS.has(r.method) ? { 'content-type': 'application/x-www-form-urlencoded' } : {});
      assert.equal(res.status, 302, `${r.method} ${url} answered ${res.status} without a session`);
      const expected = url === '/' ? '/users/login/' : `/users/login/?next=${encodeURIComponent(url).replace(/%2F/g, '/')}`;
      assert.equal(res.location, expected, `${r.method} ${url}`);
      if (before) assert.deepEqual(await fingerprint(ctx.db), before, `${r.method} ${url} changed data without a session`);
      checked++;
    }
    report(`anonymous: ${checked} protected routes answered 302 to /users/login/?next=…`);
    assert.ok(checked > 0);
  });

  test('the public routes answer without a session and never with a 500', async () => {
    const anonymous = Client.inject(ctx.app);
    for (const r of routes.filter((x) => isPublicRoute(x.url) && x.method === 'GET')) {
      const res = await anonymous.get(urlOf(r));
      assert.ok(res.status < 500 && res.status !== 302, `${r.method} ${urlOf(r)} answered ${res.status}`);
    }
  });

  test('every unsafe route answers 403 without a valid CSRF token, explains it, and changes nothing', async () => {
    const { client } = await ctx.loggedIn({ isAdmin: true });
    let checked = 0;
    for (const r of routes.filter((x) => UNSAFE_METHODS.has(x.method))) {
      const url = urlOf(r);
      for (const token of [undefined, 'not-a-valid-token']) {
        const before = await fingerprint(ctx.db);
        const body = token ? `csrfmiddlewaretoken=${token}` : 'a=1';
        const res = await client.request(r.method, url, body, { 'content-type': 'application/x-www-form-urlencoded' });
        assert.equal(res.status, 403, `${r.method} ${url} with token ${token ?? '(none)'} answered ${res.status}`);
        assert.match(res.body, /CSRF/, `${r.method} ${url}: the 403 page explains the token`);
        assert.deepEqual(await fingerprint(ctx.db), before, `${r.method} ${url} changed data without a CSRF token`);
        checked++;
      }
    }
    // The session survived (a refused logout did not log out).
    assert.equal((await client.get('/dashboard/')).status, 200);
    report(`CSRF: ${checked} unsafe requests (no token, forged token) answered 403 and changed nothing`);
    assert.ok(checked > 0);
  });

  test('every authenticated answer carries no-store and the security headers', async () => {
    const { client } = await ctx.loggedIn({ isAdmin: true });
    let checked = 0;
    const statuses: Record<string, number> = {};
    for (const r of routes.filter((x) => x.method === 'GET' && !x.url.startsWith('/static'))) {
      const url = urlOf(r);
      const res = await client.get(url);
      assert.ok(res.status < 500, `GET ${url} answered ${res.status}`);
      statuses[url] = res.status;
      assertSecurityHeaders(res.headers, `GET ${url}`);
      assert.equal(res.headers['cache-control'], 'no-store', `GET ${url}: Cache-Control`);
      checked++;
    }
    // Error pages too: 404, 405, 403.
    for (const url of ['/no-such-page/', '/patients/999999999/']) assertSecurityHeaders((await client.get(url)).headers, url);
    report(`headers: ${checked} authenticated pages checked: ${Object.entries(statuses).map(([u, s]) => `${u}=${s}`).join(' ')}`);
  });
});

function assertSecurityHeaders(headers: Record<string, unknown>, label: string): void {
  const csp = String(headers['content-security-policy'] ?? '');
  const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k!, v]));
  const scripts = directives.get('script-src') ?? directives.get('default-src');
  assert.ok(scripts, `${label}: CSP has no script-src: ${csp}`);
  assert.ok(!scripts.includes("'unsafe-inline'") && !scripts.includes("'unsafe-eval'") && !scripts.includes('*'), `${label}: script-src too broad: ${csp}`);
  assert.deepEqual(directives.get('frame-ancestors'), ["'none'"], `${label}: frame-ancestors: ${csp}`);
  assert.equal(headers['x-content-type-options'], 'nosniff', `${label}: X-Content-Type-Options`);
  assert.ok(headers['referrer-policy'], `${label}: Referrer-Policy missing`);
}
