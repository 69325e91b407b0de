// Issue 25, point 7: redirect targets a Location header can carry. A header node refuses (a character outside
// Latin-1, a line break) was a 500 after the work was done; every redirect now goes out percent-encoded.
import assert from 'node:assert/strict';
import { validateHeaderValue } from 'node:http';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import fc from 'fast-check';
import { guardPlugin } from './guard.js';
import { asQueryValue, encodeLocation, isHeaderSafe } from './location.js';

describe('encodeLocation', () => {
  test('what a URL cannot carry is percent-encoded as UTF-8; the rest and existing escapes are kept', () => {
    assert.equal(encodeLocation('/ñandú/€ x'), '/%C3%B1and%C3%BA/%E2%82%AC%20x');
    assert.equal(encodeLocation('/a%2Fb%zz%'), '/a%2Fb%25zz%25');
    assert.equal(encodeLocation("/p/?a=1&b=[2]:@!$'()*+,;=~-._#f"), "/p/?a=1&b=[2]:@!$'()*+,;=~-._#f");
    assert.equal(encodeLocation('/\r\n\t\u0000'), '/%0D%0A%09%00');
    assert.equal(encodeLocation('/\uD800'), null, 'a lone surrogate has no UTF-8');
  });

  test('any text: the result is a header value node accepts, and decodes back to the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        const encoded = encodeLocation(`/${text}`)!;
        assert.ok(isHeaderSafe(encoded), encoded);
        validateHeaderValue('location', encoded);
        // '%' in the text stays as it is only when it starts a valid escape; elsewhere it decodes back.
        if (!/%[0-9A-Fa-f]{2}/.test(text)) assert.equal(decodeURIComponent(encoded), `/${text}`);
      }),
      { numRuns: 300 },
    );
  });

  test('asQueryValue: slashes readable, the rest a query value; a lone surrogate gives null', () => {
    assert.equal(asQueryValue('/patients/?q=Núñez&x=1'), '/patients/%3Fq%3DN%C3%BA%C3%B1ez%26x%3D1');
    assert.equal(asQueryValue('/\uDC00'), null);
  });
});

test('the last guard: a redirect built with raw text still leaves as a valid header (no 500)', async () => {
  const app = Fastify({ logger: false });
  app.decorateRequest('user', null);
  await app.register(guardPlugin);
  // /healthz is public: the guard lets it through to this stand-in route.
  app.get('/healthz', async (_request, reply) => reply.redirect('/ñandú/€\r\nSet-Cookie: x=1', 302));
  const res = await app.inject({ method: 'GET', url: '/healthz' });
  assert.equal(res.statusCode, 302);
  assert.equal(res.headers.location, '/%C3%B1and%C3%BA/%E2%82%AC%0D%0ASet-Cookie:%20x=1');
  assert.equal(res.headers['set-cookie'], undefined);
  await app.close();
});
