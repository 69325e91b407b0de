// Issue 25, point 7: `next` on the login page and every redirect of the login. `?next=/%E2%82%AC` answered a raw 500
// (ERR_INVALID_CHAR) to a logged-in user, and a login posted with it created its session row and audit entry, then
// answered 500 with no cookie. Now every target leaves percent-encoded, only ever on this site, and a login that
// answers leaves exactly one session; one that cannot answer leaves none.
import assert from 'node:assert/strict';
import { validateHeaderValue } from 'node:http';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { createTestContext, createUser, login, TestClient, type TestContext, type TestResponse } from './helpers.js';

let ctx: TestContext;
before(async () => {
  ctx = await createTestContext();
});
after(async () => ctx.close());

const SITE = 'http://somno.test';

/** A redirect a browser follows to this site, with a Location node sends. */
function assertSameSiteRedirect(res: TestResponse, what: string): string {
  assert.equal(res.status, 302, `${what}: ${res.status} ${res.body.slice(0, 200)}`);
  const location = res.location!;
  assert.doesNotThrow(() => validateHeaderValue('location', location), what);
  assert.match(location, /^\/[\x21-\x7E]*$/, `${what}: ${location}`);
  assert.equal(new URL(location, SITE).origin, SITE, `${what}: ${location} leaves the site`);
  return location;
}

// [what is sent as ?next= (already in the URL's form), where the login leads]
const CASES: [string, string][] = [
  ['/%E2%82%AC', '/%E2%82%AC'],
  [encodeURIComponent('/ñandú/'), '/%C3%B1and%C3%BA/'],
  ['/ñandú/', '/%C3%B1and%C3%BA/'], // raw UTF-8 in the query, as curl may send it
  ['/patients/%3Fq%3DN%C3%BA%C3%B1ez%20%C3%81vila', '/patients/?q=N%C3%BA%C3%B1ez%20%C3%81vila'],
  ['/%25E2%2582%25AC', '/%E2%82%AC'], // encoded twice: the target keeps its escapes
  ['//evil.example', '/dashboard/'],
  ['/%2F/evil.example', '/dashboard/'],
  ['%2F%5Cevil.example', '/dashboard/'],
  ['/%5C/evil.example', '/dashboard/'],
  ['https://evil.example/', '/dashboard/'],
  ['/%0D%0ASet-Cookie:%20sessionid=x', '/dashboard/'],
  ['/%09/evil.example', '/dashboard/'],
  ['/%E2%80%A8x', '/dashboard/'],
  ['/%E2%82', '/%E2%82'], // a truncated escape: kept as sent (the query parser leaves it), still a valid header
];

describe('?next= on the login page', () => {
  test(`${CASES.length} kinds of next (non-ASCII, encoded twice, other sites, backslashes, line breaks): the page shows; logged in, a valid redirect on this site`, async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    // Sent to the login by the guard from a path with raw non-ASCII, a space and quotes: a valid next back there.
    const guarded = assertSameSiteRedirect(await client.get('/ñandú/ "x"?q=Núñez'), 'guard');
    assert.equal(new URL(guarded, SITE).searchParams.get('next'), '/%C3%B1and%C3%BA/%20%22x%22?q=N%C3%BA%C3%B1ez');
    for (const [next] of CASES) {
      const page = await client.get(`/users/login/?next=${next}`);
      assert.equal(page.status, 200, next);
      const action = /<form method="post" action="([^"]*)"/.exec(page.body)![1]!;
      assert.match(action, /^\/users\/login\/(\?next=[\x21-\x7E]+)?$/, action);
    }
    await login(client, user.username, user.password);
    for (const [next, expected] of CASES) {
      assert.equal(assertSameSiteRedirect(await client.get(`/users/login/?next=${next}`), `next=${next}`), expected, `next=${next}`);
    }
  });

  test('a login posted with each kind of next answers with its cookie and leaves one session and one audit entry', async () => {
    for (const [next, expected] of CASES) {
      const user = await createUser(ctx.db);
      const client = new TestClient(ctx.app);
      await client.get(`/users/login/?next=${next}`);
      const res = await client.post(`/users/login/?next=${next}`, { username: user.username, password: user.password });
      assert.equal(assertSameSiteRedirect(res, `login with next=${next}`), expected, `next=${next}`);
      assert.ok(client.cookies.get('sessionid'), `next=${next}: the session cookie is set`);
      const sessions = await ctx.db.selectFrom('sessions').select('id_hash').where('user_id', '=', user.id).execute();
      assert.equal(sessions.length, 1, `next=${next}: one session`);
      const logins = await ctx.db.selectFrom('audit_log').select('id').where('action', '=', 'login').where('entity_id', '=', user.id).execute();
      assert.equal(logins.length, 1, `next=${next}: one audit entry`);
      assert.equal((await client.get('/dashboard/')).status, 200, `next=${next}: logged in`);
    }
  });

  test('the next of the form field, when the query has none, is held to the same rules', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await client.get('/users/login/');
    const res = await client.post('/users/login/', { username: user.username, password: user.password, next: '/ñandú/€' });
    assert.equal(assertSameSiteRedirect(res, 'form next'), '/%C3%B1and%C3%BA/%E2%82%AC');
  });

  test('any text as next, logged in: always a valid redirect on this site, never a 500', async () => {
    const user = await createUser(ctx.db);
    const client = new TestClient(ctx.app);
    await login(client, user.username, user.password);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 }), fc.constantFrom('//', '/\\', '\\', '/\t/', '/\r\n', '/%0A', '/%00')),
        fc.boolean(),
        async (text, slash) => {
          const next = (slash ? '/' : '') + text;
          let query: string;
          try {
            query = encodeURIComponent(next);
          } catch {
            return; // a lone surrogate cannot be put in a URL at all
          }
          assertSameSiteRedirect(await client.get(`/users/login/?next=${query}`), JSON.stringify(next));
        },
      ),
      { numRuns: 200 },
    );
  });
});
