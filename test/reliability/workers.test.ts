// Several server processes sharing the port (WORKERS=2, decision 0190), as the built server runs them: each client
// below keeps one connection, and the test finds which server holds it (Linux's /proc), so that a page kept by one
// server and a change made through the other are known to meet. What must hold across them: no change lost and no
// error under writes from both at once (SQLite's file lock, waited for as a promise), a change through one shown
// at once by the other's kept pages, the login's per-address limit counted once for both, and a stop or a death of
// either ending both with one report.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ENGINE } from '../helpers.js';
import { Client, FORM } from './lib/client.js';
import { createHarnessDatabase, createHarnessUser, say, startServer, type HarnessDatabase, type ServerProcess } from './lib/server.js';
import { patientForm, uniqueDocumento } from './lib/world.js';

const PASSWORD = 'una-clave-larga-de-prueba';
const LIMIT = 8;

let database: HarnessDatabase;
let server: ServerProcess;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const childrenOf = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);

/** The server process whose socket is the other end of the client's connection from `clientPort`. */
function serverHolding(clientPort: number, servers: readonly number[]): number | null {
  const hex = clientPort.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // remote address:port is the client's end
      if (cols[2]?.endsWith(`:${hex}`)) inodes.add(cols[9]!);
    }
  }
  for (const pid of servers) {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1]!)) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

/** A browser-like client over one kept-alive connection, and the port it comes from. */
function pinnedClient(baseUrl: string): { client: Client; port: () => number } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let localPort = 0;
  const client = new Client(
    (req) =>
      new Promise((resolve, reject) => {
        const r = http.request(baseUrl + req.url, { method: req.method, headers: req.headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const cookies = (res.headers['set-cookie'] ?? []).map((line) => {
              const [pair = ''] = line.split(';');
              const eq = pair.indexOf('=');
              const value = pair.slice(eq + 1).trim();
              return { name: pair.slice(0, eq).trim(), value, expired: value === '' || /max-age=0\b|expires=thu, 01 jan 1970/i.test(line) };
            });
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), cookies });
          });
        });
        r.on('socket', (s) => (s.remotePort !== undefined ? (localPort = s.localPort ?? 0) : s.once('connect', () => (localPort = s.localPort ?? 0))));
        r.on('error', reject);
        r.end(req.body);
      }),
  );
  return { client, port: () => localPort };
}

/** Clients until each of the two servers holds `perServer` of them; each has already asked for the login page. */
async function clientsOnEachServer(perServer: number): Promise<{ servers: number[]; on: Map<number, Client[]> }> {
  // The second server starts once the first listens (it may have migrated): /healthz answered before it did.
  const deadline = Date.now() + 60_000;
  let servers = childrenOf(server.child.pid!);
  for (; servers.length < 2 && Date.now() < deadline; servers = childrenOf(server.child.pid!)) await sleep(100);
  assert.equal(servers.length, 2, 'two servers under the primary');
  const on = new Map<number, Client[]>(servers.map((pid) => [pid, []]));
  while ([...on.values()].some((cs) => cs.length < perServer) && Date.now() < deadline) {
    const { client, port } = pinnedClient(server.baseUrl);
    await client.get('/users/login/');
    const pid = serverHolding(port(), servers);
    assert.ok(pid !== null, 'the connection is held by one of the servers');
    if (on.get(pid)!.length < perServer) on.get(pid)!.push(client);
    else await sleep(50);
  }
  for (const [pid, cs] of on) assert.ok(cs.length >= perServer, `server ${pid} got connections`);
  return { servers, on };
}

/** The same session and CSRF token in another client (a second tab of the same browser). */
function sameBrowser(from: Client, to: Client): void {
  for (const [k, v] of from.cookies) to.cookies.set(k, v);
  to.csrfToken = from.csrfToken;
}

before(async () => {
  database = await createHarnessDatabase(ENGINE);
  await createHarnessUser(database, 'doble', PASSWORD);
  // Behind a proxy, so that the limit's test comes from an address of its own (the other tests log in too).
  server = await startServer(database.url, { WORKERS: '2', LOGIN_ATTEMPTS_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'true' });
});
after(async () => {
  await server?.kill('SIGKILL');
  await database?.drop();
});

describe(`two server processes on one ${ENGINE} database (WORKERS=2)`, () => {
  test('a change made through one server shows at once on the pages the other keeps', async () => {
    const { servers, on } = await clientsOnEachServer(1);
    const [here, there] = [on.get(servers[0]!)![0]!, on.get(servers[1]!)![0]!];
    await here.login('doble', PASSWORD);
    sameBrowser(here, there);
    const form = patientForm({ documento: uniqueDocumento('W'), apellido: 'Doble' });
    const created = await here.post('/patients/create/', form);
    assert.equal(created.status, 302, created.body.slice(0, 300));
    const h = database.open();
    const { id } = await h.db.selectFrom('patients').select('id').where('documento', '=', form.documento!).executeTakeFirstOrThrow();
    await h.close();
    // Kept by both servers first.
    for (const c of [here, there, here, there]) assert.doesNotMatch((await c.get(`/patients/${id}/`)).body, /6071112233/);
    for (const [writer, reader, telefono] of [[here, there, '6071112233'], [there, here, '6074445566']] as const) {
      const posted = await writer.post(`/patients/${id}/`, { ...form, telefono });
      assert.equal(posted.status, 302, posted.body.slice(0, 300));
      assert.match((await reader.get(`/patients/${id}/`)).body, new RegExp(telefono), 'the other server shows the change');
      assert.match((await reader.get('/patients/?q=Doble')).body, /Doble/);
    }
    say(`workers: a change through either server showed at once on the other's kept record page (servers ${servers.join(', ')})`);
  });

  test('changes posted through both servers at once are all kept, and none is answered with an error', async () => {
    const { servers, on } = await clientsOnEachServer(4);
    const first = on.get(servers[0]!)![0]!;
    await first.login('doble', PASSWORD);
    const clients = [...on.values()].flatMap((cs) => cs.slice(0, 4));
    for (const c of clients) if (c !== first) sameBrowser(first, c);
    const apellido = `Concurrente${Date.now()}`;
    const statuses: number[] = [];
    await Promise.all(
      clients.map(async (c) => {
        for (let i = 0; i < 6; i++) statuses.push((await c.post('/patients/create/', patientForm({ documento: uniqueDocumento('C'), apellido }))).status);
      }),
    );
    assert.deepEqual(
      statuses.filter((s) => s !== 302),
      [],
      'every create answered with its redirect',
    );
    const h = database.open();
    try {
      const rows = await h.db.selectFrom('patients').select('id').where('apellido', '=', apellido).execute();
      assert.equal(rows.length, clients.length * 6, 'every create is in the database');
      const audited = await h.db
        .selectFrom('audit_log')
        .select('patient_id')
        .where('action', '=', 'patient.create')
        .where('patient_id', 'in', rows.map((r) => r.id))
        .execute();
      assert.equal(audited.length, rows.length, 'each with its audit entry');
    } finally {
      await h.close();
    }
    say(`workers: ${statuses.length} creates from ${clients.length} connections over both servers at once: all 302, all kept`);
  });

  test('the login’s per-address limit counts the attempts made through both servers together', async () => {
    const { servers, on } = await clientsOnEachServer(1);
    const [a, b] = [on.get(servers[0]!)![0]!, on.get(servers[1]!)![0]!];
    const statuses: number[] = [];
    // Unknown names: the per-name lock (in the database) never comes into it.
    for (let i = 0; i < LIMIT + 2; i++) {
      const c = i % 2 === 0 ? a : b;
      statuses.push((await c.request('POST', '/users/login/', new URLSearchParams({ username: `nadie${i}`, password: 'x', csrfmiddlewaretoken: await c.token() }).toString(), { 'content-type': FORM, 'x-forwarded-for': '10.30.0.1' })).status);
    }
    assert.deepEqual(statuses.slice(0, LIMIT).filter((s) => s === 429), [], 'within the limit, no 429');
    assert.deepEqual(statuses.slice(LIMIT), [429, 429], `past ${LIMIT} attempts in all, both servers refuse`);
    say(`workers: login attempts alternating over both servers: ${statuses.join(' ')}`);
  });

  test('SIGTERM to the launcher stops both servers cleanly, with one report', async () => {
    const servers = childrenOf(server.child.pid!);
    const ended = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    server.child.kill('SIGTERM');
    assert.equal(await ended, 0);
    for (const pid of servers) assert.throws(() => readFileSync(`/proc/${pid}/stat`), 'the server ended with the launcher');
    const reports = server.output().split('\n').filter((l) => l.includes('"msg":"server exited"'));
    assert.equal(reports.length, 1, server.output());
    assert.match(reports[0]!, /"level":"info".*"reason":"stopped on SIGTERM"/);
  });

  test('on an empty database the one first-run link printed opens on either server', async () => {
    const empty = await createHarnessDatabase(ENGINE);
    try {
      server = await startServer(empty.url, { WORKERS: '2' });
      const { servers, on } = await clientsOnEachServer(1);
      const link = /\/users\/setup\/\?token=[\w-]+/.exec(server.output())?.[0];
      assert.ok(link, server.output());
      assert.equal(server.output().match(/users\/setup\/\?token=/g)!.length, 1, 'printed once');
      for (const pid of servers) assert.equal((await on.get(pid)![0]!.get(link)).status, 200, `server ${pid}`);
      await server.kill('SIGTERM');
    } finally {
      await server.kill('SIGKILL');
      await empty.drop();
    }
  });

  test('a server killed from outside ends the other and the launcher, which says so', async () => {
    server = await startServer(database.url, { WORKERS: '2' });
    const servers = childrenOf(server.child.pid!);
    assert.equal(servers.length, 2);
    const ended = new Promise<NodeJS.Signals | null>((resolve) => server.child.once('exit', (_code, signal) => resolve(signal)));
    process.kill(servers[1]!, 'SIGKILL');
    assert.equal(await ended, 'SIGKILL', 'the launcher ends as its server did (the service manager restarts it)');
    for (const pid of servers) assert.throws(() => readFileSync(`/proc/${pid}/stat`));
    assert.match(server.output(), /"level":"fatal".*"signal":"SIGKILL".*OOM killer/);
  });
});
