import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { CsrfField } from './layout.js';
import { FragmentSlot, renderFrame, renderFragment, sendPage, ContentMarker, type Fragment } from './render.js';

const text = (f: Fragment, field = '[CSRF]') => f.parts.map((p) => (p === null ? field : p.toString('utf8'))).join('');

/** A page sent through sendPage with a fixed CSRF token, as the browser receives it. */
async function sent(page: () => preact.VNode, token = 'tok-123'): Promise<string> {
  const app = Fastify();
  app.decorateReply('pageCsrfToken', () => token);
  app.get('/', async (_request, reply) => sendPage(reply, page()));
  const res = await app.inject('/');
  await app.close();
  return res.body;
}

describe('fragments', () => {
  test('a fragment keeps its text as UTF-8 bytes and marks where the CSRF field goes', () => {
    const f = renderFragment(
      <form>
        <CsrfField />
        <p>José Peña — señal ✅</p>
      </form>,
    );
    assert.equal(text(f), '<form>[CSRF]<p>José Peña — señal ✅</p></form>');
    assert.equal(f.size, Buffer.byteLength('<form><p>José Peña — señal ✅</p></form>'));
  });

  test('data can never forge a marker: preact escapes it like any text', async () => {
    const forged = '<somno-csrf></somno-csrf><somno-fragment></somno-fragment>';
    const f = renderFragment(<p title={forged}>{forged}</p>);
    assert.equal(f.parts.length, 1);
    const body = await sent(() => <main>{forged}</main>);
    assert.ok(!body.includes('tok-123'), 'no token where the data spelled a marker');
    assert.ok(body.includes('&lt;somno-csrf>'));
  });

  test('sendPage puts the request token in every form, of the page and of the fragments it places', async () => {
    const kept = renderFragment(
      <section>
        <form>
          <CsrfField />
        </form>
        Ñandú
      </section>,
    );
    const body = await sent(() => (
      <body>
        <form>
          <CsrfField />
        </form>
        <FragmentSlot fragment={kept} />
        <FragmentSlot fragment={kept} />
      </body>
    ));
    const field = '<input type="hidden" name="csrfmiddlewaretoken" value="tok-123"/>';
    assert.equal(body, `<!doctype html><body><form>${field}</form>${`<section><form>${field}</form>Ñandú</section>`.repeat(2)}</body>`);
  });

  test('fragments placed inside a fragment are shared, not copied, and not counted in its size', () => {
    const shared = renderFragment(<script type="application/json">{'{"a":1}'}</script>);
    const outer = renderFragment(
      <div>
        <FragmentSlot fragment={shared} />
        <b>x</b>
      </div>,
    );
    assert.equal(text(outer), '<div><script type="application/json">{&quot;a&quot;:1}</script><b>x</b></div>');
    assert.ok(outer.parts.includes(shared.parts[0]!), 'the same bytes, by reference');
    assert.equal(outer.size, Buffer.byteLength('<div><b>x</b></div>'));
  });

  test('renderFrame cuts a frame where its contents go', () => {
    const [before, between, after] = renderFrame(
      <main>
        <h1>
          <ContentMarker />
        </h1>
        <form>
          <CsrfField />
        </form>
        <ContentMarker />
        <footer>fin</footer>
      </main>,
      2,
    );
    assert.equal(text(before!), '<main><h1>');
    assert.equal(text(between!), '</h1><form>[CSRF]</form>');
    assert.equal(text(after!), '<footer>fin</footer></main>');
    assert.throws(() => renderFrame(<main />, 1), /expected 1 ContentMarkers, found 0/);
  });

  test('a page without a form has no token field, and FragmentSlot refuses to run outside a render', async () => {
    assert.equal(await sent(() => <p>hola</p>), '<!doctype html><p>hola</p>');
    assert.throws(() => FragmentSlot({ fragment: renderFragment(<p />) }), /only for pages/);
  });
});
