// The deployment files (deploy/): the environment file lists every variable the server reads and loads as a
// production configuration; the unit restarts on failure and waits for /healthz; the health check restarts a
// server that does not answer, and only that one.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { CONFIG_VARIABLES, loadConfig } from '../src/config.js';
import { createTestContext, type TestContext } from './helpers.js';

const run = promisify(execFile);
const DEPLOY = path.resolve('deploy');
const read = (file: string) => readFileSync(path.join(DEPLOY, file), 'utf8');

/** KEY=VALUE lines of an environment file (comments and blank lines left out). */
function parseEnvFile(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1]!, m[2]!);
  }
  return out;
}

/** A unit file's `Key=value` settings (the last one of a key wins, as in systemd). */
function unitSettings(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1]!, m[2]!);
  }
  return out;
}

describe('deploy/somno.env.example', () => {
  test('lists every variable src/config.ts reads, and no other', () => {
    const listed = [...parseEnvFile(read('somno.env.example')).keys()].sort();
    assert.deepEqual(listed, [...CONFIG_VARIABLES].sort());
  });

  test('with a signing secret filled in, it is a valid production configuration', () => {
    const env = Object.fromEntries(parseEnvFile(read('somno.env.example')));
    assert.throws(() => loadConfig(env, '/nonexistent'), /SIGNING_SECRET/, 'the empty secret stops the start, naming it');
    const config = loadConfig({ ...env, SIGNING_SECRET: 'a'.repeat(64) }, '/nonexistent');
    assert.equal(config.isProduction, true);
    assert.equal(config.databaseUrl, 'sqlite:/var/lib/somno/somno.sqlite');
    assert.deepEqual(config.allowedHosts, ['somno.example.co']);
  });
});

describe('deploy/somno.service and the health check units', () => {
  test('restarts on failure, reads /etc/somno/somno.env, runs the launcher, and starts only once /healthz answers', () => {
    const unit = unitSettings(read('somno.service'));
    assert.equal(unit.get('Restart'), 'on-failure');
    assert.equal(unit.get('EnvironmentFile'), '/etc/somno/somno.env');
    assert.match(unit.get('ExecStart') ?? '', /^\/usr\/bin\/node \/opt\/somno\/dist\/server\.js$/);
    assert.equal(unit.get('ExecStartPost'), '/opt/somno/deploy/somno-healthcheck.sh wait 120');
    assert.equal(unit.get('KillSignal'), 'SIGTERM');
    const check = unitSettings(read('somno-healthcheck.service'));
    assert.equal(check.get('ExecStart'), '/opt/somno/deploy/somno-healthcheck.sh check');
    assert.equal(check.get('EnvironmentFile'), '/etc/somno/somno.env');
    assert.equal(unitSettings(read('somno-healthcheck.timer')).get('OnUnitActiveSec'), '1min');
  });
});

describe('deploy/somno-healthcheck.sh', () => {
  let ctx: TestContext;
  let somnoPort: number;
  const servers: Server[] = [];

  /** A stand-in server: 503 on every request, or one that accepts and never answers. */
  async function standIn(kind: '503' | 'silent'): Promise<number> {
    const server = createServer((_req, res) => {
      if (kind === '503') res.writeHead(503).end('unavailable');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  before(async () => {
    ctx = await createTestContext();
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    somnoPort = (ctx.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await ctx.close();
  });

  /** Runs the script with PORT and the overrides; its exit code and output. */
  async function healthcheck(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
    const fullEnv = { ...process.env, SOMNO_RESTART: 'echo RESTARTED', SOMNO_IS_ACTIVE: 'true', ...env };
    try {
      const { stdout, stderr } = await run('sh', [path.join(DEPLOY, 'somno-healthcheck.sh'), ...args], { env: fullEnv, timeout: 30_000 });
      return { code: 0, out: stdout + stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
    }
  }

  test('wait: 0 once the real server answers 200; 1, with a message, when nothing answers in time', async () => {
    assert.deepEqual(await healthcheck(['wait', '10'], { PORT: String(somnoPort) }), { code: 0, out: '' });
    const closed = await standIn('503');
    const refused = await healthcheck(['wait', '2'], { PORT: String(closed) });
    assert.equal(refused.code, 1);
    assert.match(refused.out, /did not answer 200 within 2 s \(last: 503\)/);
  });

  test('check: a healthy server is left alone; a 503 (database down) is only logged; no answer restarts it', async () => {
    const healthy = await healthcheck(['check'], { PORT: String(somnoPort) });
    assert.deepEqual(healthy, { code: 0, out: '' });
    const degraded = await healthcheck(['check'], { PORT: String(await standIn('503')) });
    assert.equal(degraded.code, 0);
    assert.match(degraded.out, /answered 503 \(the database may be down\); not restarting/);
    assert.doesNotMatch(degraded.out, /RESTARTED/);
    const hung = await healthcheck(['check'], { PORT: String(await standIn('silent')), SOMNO_HEALTH_TIMEOUT: '1' });
    assert.equal(hung.code, 1);
    assert.match(hung.out, /did not answer within 1 s; restarting/);
    assert.match(hung.out, /RESTARTED/);
  });

  test('check: a service stopped on purpose is not started again', async () => {
    const stopped = await healthcheck(['check'], { PORT: '1', SOMNO_IS_ACTIVE: 'false' });
    assert.deepEqual(stopped, { code: 0, out: '' });
  });
});
