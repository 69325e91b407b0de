// The built server (`node dist/server.js`, as a container or a service unit runs it) applies its own runtime
// flags and MALLOC_ARENA_MAX (decision 0046): seen from outside, in the command line and the environment of the
// process that serves (Linux's /proc), with nothing added to the server for the test.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../../../test/reliability/lib/server.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers.js';
import { buildServer } from './build-server.js';
import { LAUNCHED_ENV, SERVER_ENV, SERVER_NODE_FLAGS } from './runtime-flags.js';

let database: TestDatabase;
let bundle: string;

before(async () => {
  database = await createTestDatabase();
  bundle = await buildServer();
});
after(async () => database.drop());

interface Started {
  launcher: ChildProcess;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `node [nodeArgs] dist/server.js` with an environment free of the server's settings; resolves once /healthz answers. */
async function start(nodeArgs: string[], extraEnv: Record<string, string> = {}): Promise<Started> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of [...Object.keys(SERVER_ENV), 'NODE_OPTIONS', LAUNCHED_ENV]) delete env[k];
  const port = await freePort();
  const launcher = spawn(process.execPath, [...nodeArgs, bundle], {
    env: { ...env, ...extraEnv, DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', SIGNING_SECRET: 'x'.repeat(40), APP_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  launcher.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
  launcher.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => launcher.once('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + 30_000;
  for (;;) {
    assert.equal(launcher.exitCode, null, `the server stopped while starting:\n${output}`);
    assert.ok(Date.now() < deadline, `no answer on /healthz:\n${output}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.status === 200, () => false);
    if (ok) return { launcher, exit };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const childrenOf = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
const commandLine = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
const environment = (pid: number): string[] => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && existsSync(`/proc/${pid}`); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return !existsSync(`/proc/${pid}`);
}

describe('the launcher of the built server', () => {
  test('plain `node dist/server.js` serves from a process with every flag and MALLOC_ARENA_MAX=2; SIGTERM ends both cleanly', async () => {
    const { launcher, exit } = await start([]);
    const children = childrenOf(launcher.pid!);
    assert.equal(children.length, 1, 'the launcher started the server as its child');
    const server = children[0]!;
    const args = commandLine(server);
    for (const flag of SERVER_NODE_FLAGS) assert.ok(args.includes(flag), `${flag} in ${args.join(' ')}`);
    assert.ok(args.at(-1)!.endsWith('server.js'));
    assert.ok(environment(server).includes('MALLOC_ARENA_MAX=2'));
    launcher.kill('SIGTERM');
    assert.deepEqual(await exit, { code: 0, signal: null }, 'the server shut down gracefully and the launcher passed on its exit code');
    assert.ok(await gone(server), 'the server ended with the launcher');
  });

  test('started with the flags and the environment (as the harnesses do), the server runs in that one process', async () => {
    const { launcher, exit } = await start([...SERVER_NODE_FLAGS], { ...SERVER_ENV });
    assert.deepEqual(childrenOf(launcher.pid!), [], 'no second process');
    launcher.kill('SIGTERM');
    assert.deepEqual(await exit, { code: 0, signal: null });
  });

  test('with WORKERS=2 the plain launcher starts two servers, each with every flag and MALLOC_ARENA_MAX; SIGTERM ends all', async () => {
    const { launcher, exit } = await start([], { WORKERS: '2' });
    let servers = childrenOf(launcher.pid!);
    // The second server starts once the first listens.
    for (let i = 0; i < 600 && servers.length < 2; i++, servers = childrenOf(launcher.pid!)) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(servers.length, 2, 'two servers under the launcher');
    for (const server of servers) {
      const args = commandLine(server);
      for (const flag of SERVER_NODE_FLAGS) assert.ok(args.includes(flag), `${flag} in ${args.join(' ')}`);
      assert.ok(environment(server).includes('MALLOC_ARENA_MAX=2'));
      assert.deepEqual(childrenOf(server), [], 'a server starts no other');
    }
    launcher.kill('SIGTERM');
    assert.deepEqual(await exit, { code: 0, signal: null });
    for (const server of servers) assert.ok(await gone(server), 'each server ended with the launcher');
  });

  test('a WORKERS that is not a number from 1 to 16 nor auto stops the start with a configuration error', async () => {
    const env: Record<string, string | undefined> = { ...process.env, WORKERS: 'dos' };
    for (const k of [...Object.keys(SERVER_ENV), 'NODE_OPTIONS', LAUNCHED_ENV]) delete env[k];
    const launcher = spawn(process.execPath, [bundle], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    launcher.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => launcher.once('close', (c) => resolve(c)));
    assert.equal(code, 2);
    assert.match(stderr, /WORKERS: debe ser un número de 1 a 16 o auto/);
  });

  test('a value the operator chose is kept', async () => {
    const { launcher, exit } = await start(['--max-old-space-size=200'], { MALLOC_ARENA_MAX: '3' });
    const server = childrenOf(launcher.pid!)[0]!;
    const args = commandLine(server);
    assert.ok(args.includes('--max-old-space-size=200') && !args.includes('--max-old-space-size=128'), args.join(' '));
    assert.ok(environment(server).includes('MALLOC_ARENA_MAX=3'));
    launcher.kill('SIGTERM');
    assert.equal((await exit).code, 0);
  });
});
