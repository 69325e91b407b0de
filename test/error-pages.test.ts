import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { createTestDatabase, createUser, login, TestClient, TestClock, testConfig, type TestDatabase } from './helpers.js';

// decisions §10: errors are HTML pages in the site's layout, without stack traces outside development; a 500 is
// logged with a request id that the page shows.
describe('500 page', () => {
  const open: { app: FastifyInstance; database: TestDatabase }[] = [];
  after(async () => {
    for (const { app, database } of open) {
      await app.close();
      await database.drop();
    }
  });

  async function appThatFails(appEnv: 'test' | 'development') {
    const database = await createTestDatabase();
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = await buildApp({
      config: testConfig({ APP_ENV: appEnv }),
      db: database.handle.db,
      engine: database.handle.engine,
      clock: new TestClock(),
      logger: { level: 'error', stream },
      loginAttemptsPerMinute: 100_000,
    });
    app.get('/patients/falla-de-prueba/', async () => {
      throw new Error('fallo interno secreto');
    });
    await app.ready();
    open.push({ app, database });
    const user = await createUser(database.handle.db);
    const client = new TestClient(app);
    await login(client, user.username, user.password);
    return { client, lines };
  }

  test('outside development: the layout, the request id, no stack or error text; the log has the same id', async () => {
    const { client, lines } = await appThatFails('test');
    const res = await client.get('/patients/falla-de-prueba/');
    assert.equal(res.status, 500);
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.match(res.body, /<nav aria-label="Principal">/);
    assert.match(res.body, /Error interno/);
    const id = /Código de la solicitud: <code>([^<]+)<\/code>/.exec(res.body)?.[1];
    assert.ok(id, 'the page shows the request id');
    assert.doesNotMatch(res.body, /fallo interno secreto|at .*\.ts:\d+/);
    const logged = lines.map((l) => JSON.parse(l) as { msg?: string; reqId?: string }).find((l) => l.msg === 'request failed');
    assert.ok(logged, 'the failure is logged');
    assert.equal(logged.reqId, id);
  });

  test('in development the page also shows the stack', async () => {
    const { client } = await appThatFails('development');
    const res = await client.get('/patients/falla-de-prueba/');
    assert.equal(res.status, 500);
    assert.match(res.body, /<pre class="debug">Error: fallo interno secreto/);
  });
});
