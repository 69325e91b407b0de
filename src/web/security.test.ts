import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { judgeRequestOrigin, type RequestOrigin } from './security.js';

const OWN = 'https://somno.example.co';
const TRUSTED = new Set(['https://portal.example.co']);
const judge = (r: Partial<RequestOrigin>) =>
  judgeRequestOrigin({ origin: undefined, referer: undefined, secFetchSite: undefined, https: true, ...r }, OWN, TRUSTED);

describe('judgeRequestOrigin', () => {
  test("the site's own origin and trusted origins pass; others, null and malformed ones do not", () => {
    assert.equal(judge({ origin: OWN }), 'ok');
    assert.equal(judge({ origin: 'HTTPS://SOMNO.EXAMPLE.CO:443' }), 'ok', 'case and the default port do not matter');
    assert.equal(judge({ origin: 'https://portal.example.co', secFetchSite: 'cross-site' }), 'ok');
    assert.equal(judge({ origin: 'https://evil.example' }), 'refused');
    assert.equal(judge({ origin: 'null' }), 'refused');
    assert.equal(judge({ origin: 'http://somno.example.co' }), 'refused', 'another scheme is another origin');
    assert.equal(judge({ origin: 'https://somno.example.co.evil.example' }), 'refused');
  });
  test('without Origin the Referer decides; over HTTPS one of them is required', () => {
    assert.equal(judge({ referer: `${OWN}/patients/create/` }), 'ok');
    assert.equal(judge({ referer: 'https://evil.example/x' }), 'refused');
    assert.equal(judge({ referer: 'not a url' }), 'refused');
    assert.equal(judge({}), 'refused');
    assert.equal(judge({ https: false }), 'ok', 'plain HTTP without either header: the token alone decides');
  });
  test('Sec-Fetch-Site: cross-site is refused unless the origin is trusted', () => {
    assert.equal(judge({ https: false, secFetchSite: 'cross-site' }), 'refused');
    assert.equal(judge({ origin: OWN, secFetchSite: 'cross-site' }), 'refused');
    assert.equal(judge({ origin: OWN, secFetchSite: 'same-origin' }), 'ok');
  });
});
