import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { CsrfField, Layout } from '../../web/layout.js';
import type { Message, SessionUser } from '../../web/deps.js';
import { ContentMarker, FragmentSlot, pageContext, renderFrame, renderFragment, sendPage } from '../../web/render.js';
import { sendKeptPage } from './cached-page.js';
import type { KeptPage } from './page-cache.js';

// A kept page is put together from its fragments and the kept layout (no render of the whole): it must send the
// very bytes the layout's render sends around the same content.

const page: KeptPage<null> = {
  title: 'Paciente «José» <Peña> & "hijos"',
  fragments: renderFrame(
    <section>
      <h1>Ñandú &amp; señal ✅</h1>
      <form>
        <CsrfField />
      </form>
      <ContentMarker />
      <p>entre los huecos</p>
      <ContentMarker />
    </section>,
    2,
  ),
  meta: null,
};
const inner = renderFragment(
  <form>
    <CsrfField />
    <b>dentro</b>
  </form>,
);
const fill = () => [<em>hueco «1» & {'<b>'}</em>, <FragmentSlot fragment={inner} />];
const after = () => <aside>después</aside>;

async function bodies(user: SessionUser | null, messages: Message[]): Promise<{ assembled: string; rendered: string }> {
  const app = Fastify();
  app.decorate('deps', { config: { sessionIdleMinutes: 25 } } as never);
  app.decorateRequest('user', null);
  app.decorateRequest('restoredForm', null);
  app.decorateReply('pageCsrfToken', () => 'tok-123');
  app.decorateReply('takeFlashForm', () => null);
  app.decorateReply('takeMessages', () => [...messages]);
  app.addHook('onRequest', async (request) => {
    (request as FastifyRequest & { user: SessionUser | null }).user = user;
  });
  app.get('/patients/7/', async (request, reply: FastifyReply) => sendKeptPage(request, reply, page, { fill: fill(), after: after(), status: 201 }));
  app.get('/patients/7/rendered', async (request, reply) =>
    sendPage(
      reply,
      <Layout ctx={{ ...pageContext(request, reply), path: '/patients/7/' }} title={page.title}>
        <FragmentSlot fragment={page.fragments[0]!} />
        {fill()[0]}
        <FragmentSlot fragment={page.fragments[1]!} />
        {fill()[1]}
        <FragmentSlot fragment={page.fragments[2]!} />
        {after()}
      </Layout>,
      201,
    ),
  );
  const assembled = await app.inject('/patients/7/');
  const rendered = await app.inject('/patients/7/rendered');
  await app.close();
  assert.equal(assembled.statusCode, 201);
  assert.equal(assembled.headers['content-type'], rendered.headers['content-type']);
  return { assembled: assembled.body, rendered: rendered.body };
}

describe('a kept page sent', () => {
  for (const [who, user] of [
    ['a user', { id: 1, username: 'coord<&>"inadora"', isAdmin: false }],
    ['an administrator', { id: 2, username: 'admin', isAdmin: true }],
    ['nobody logged in', null],
  ] as const) {
    test(`is put together as the layout renders it, for ${who}`, async () => {
      const { assembled, rendered } = await bodies(user, []);
      assert.equal(assembled, rendered);
      assert.ok(assembled.startsWith('<!doctype html>'));
      assert.ok(assembled.includes('<title>Paciente «José» &lt;Peña> &amp; &quot;hijos&quot; · Somno</title>'));
      assert.ok(assembled.includes('<em>hueco «1» &amp; &lt;b></em>'));
      assert.equal(assembled.split('value="tok-123"').length - 1, user === null ? 2 : 3, 'the token in every form');
    });
  }

  test('with messages, the messages are shown and the page is the same around them', async () => {
    const { assembled, rendered } = await bodies({ id: 1, username: 'coord', isAdmin: false }, [{ level: 'success', text: 'Guardado' }]);
    assert.equal(assembled, rendered);
    assert.ok(assembled.includes('Guardado'));
  });
});
