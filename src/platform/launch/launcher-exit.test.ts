// When the server process dies, the launcher's log says why (issue 25, deployment; decision 0062): one JSON line
// with the exit code or the signal and a reason, an out-of-memory death named as such. The launcher is built as
// `npm run build` builds it, beside stand-in servers (a dist/serve.js that runs out of memory, fails, or waits to
// be killed), and started as a service unit starts it: `node server.js`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { build } from 'esbuild';
import { describeExit, StderrTail, type ExitReport } from './exit-report.js';
import { LAUNCHED_ENV, SERVER_ENV } from './runtime-flags.js';

let dir: string;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'somno-launcher-'));
  await build({
    entryPoints: [path.join(path.dirname(fileURLToPath(import.meta.url)), 'launcher.ts')],
    outfile: path.join(dir, 'server.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
});
after(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  report: ExitReport;
}

/**
 * Starts `node server.js` beside the stand-in `serve` (as dist/serve.js); `whileRunning` gets the launcher's pid
 * once the stand-in has written "listo" (those that do).
 */
async function launch(serve: string, whileRunning?: (launcherPid: number) => Promise<void>): Promise<Run> {
  writeFileSync(path.join(dir, 'serve.js'), serve);
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of [...Object.keys(SERVER_ENV), 'NODE_OPTIONS', LAUNCHED_ENV]) delete env[k];
  const launcher = spawn(process.execPath, [path.join(dir, 'server.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  launcher.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  launcher.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    launcher.once('close', (code, signal) => resolve({ code, signal })),
  );
  if (whileRunning) {
    for (let i = 0; i < 400 && !stdout.includes('listo'); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.match(stdout, /listo/, `the stand-in server did not start:\n${stderr}`);
    await whileRunning(launcher.pid!);
  }
  const { code, signal } = await ended;
  const lines = stdout.split('\n').filter((l) => l.includes('"server exited"'));
  assert.equal(lines.length, 1, `one exit line on stdout:\n${stdout}\n--- stderr:\n${stderr}`);
  return { code, signal, stdout, stderr, report: JSON.parse(lines[0]!) as ExitReport };
}

/** The server the launcher started. */
async function childOf(launcherPid: number): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const children = existsSync(`/proc/${launcherPid}`) ? readFileSync(`/proc/${launcherPid}/task/${launcherPid}/children`, 'utf8').trim() : '';
    if (children !== '') return Number(children.split(' ')[0]);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the launcher started no server');
}

describe('the launcher says why the server ended', () => {
  test('out of memory: the JavaScript heap reaches the cap the launcher set, and the log says "out of memory"', async () => {
    const run = await launch('const kept = []; for (;;) kept.push(new Array(1e6).fill(1.5));\n');
    assert.equal(run.report.level, 'fatal');
    assert.equal(run.report.msg, 'server exited');
    assert.match(run.report.reason, /^out of memory/);
    assert.ok(run.report.stderr.some((l) => /heap out of memory/.test(l)), run.report.stderr.join('\n'));
    assert.ok(run.report.signal !== null || run.report.code !== 0, 'a death, not a clean exit');
    assert.match(run.stderr, /heap out of memory/, "the server's own words still reach stderr");
    assert.deepEqual({ code: run.code, signal: run.signal }, { code: run.report.code, signal: run.report.signal }, 'the launcher ends as the server did');
  });

  test('an exit code: the code and the last line the server wrote', async () => {
    const run = await launch("process.stderr.write('Somno no pudo arrancar: la base de datos no responde\\n'); process.exit(3);\n");
    assert.equal(run.code, 3);
    assert.equal(run.report.level, 'fatal');
    assert.equal(run.report.code, 3);
    assert.equal(run.report.signal, null);
    assert.equal(run.report.reason, 'failed with exit code 3: Somno no pudo arrancar: la base de datos no responde');
  });

  test('an uncaught exception: its message, not a line of its stack', async () => {
    const run = await launch("setTimeout(() => { throw new Error('se acabó el disco'); }, 10);\n");
    assert.equal(run.report.code, 1);
    assert.match(run.report.reason, /^failed with exit code 1: .*se acabó el disco/);
  });

  test('killed from outside (SIGKILL, as the OOM killer does): the signal, and where to look', async () => {
    const run = await launch("console.log('listo'); setInterval(() => {}, 1000);\n", async (pid) => {
      process.kill(await childOf(pid), 'SIGKILL');
    });
    assert.equal(run.report.level, 'fatal');
    assert.equal(run.report.signal, 'SIGKILL');
    assert.equal(run.report.code, null);
    assert.match(run.report.reason, /SIGKILL.*out of memory.*journalctl -k/);
    assert.equal(run.signal, 'SIGKILL', 'the launcher ends by the same signal (systemd sees the failure)');
  });

  test('a stop asked for (SIGTERM to the launcher) that the server honours is logged as info, not fatal', async () => {
    // The handler is in place before "listo": a SIGTERM between the two would kill a busy machine's stand-in.
    const serve = "process.on('SIGTERM', () => process.exit(0)); console.log('listo'); setInterval(() => {}, 1000);\n";
    const run = await launch(serve, async (pid) => {
      process.kill(pid, 'SIGTERM');
    });
    assert.equal(run.code, 0);
    assert.deepEqual({ level: run.report.level, code: run.report.code, reason: run.report.reason }, { level: 'info', code: 0, reason: 'stopped on SIGTERM' });
  });
});

describe('describeExit and StderrTail', () => {
  test('reasons', () => {
    const at = new Date('2026-11-26T12:00:00.000Z');
    assert.equal(describeExit(2, null, null, ['Configuración no válida: PORT: debe ser un número de puerto (0 a 65535)'], at).reason, 'configuration error: Configuración no válida: PORT: debe ser un número de puerto (0 a 65535)');
    assert.equal(describeExit(null, 'SIGSEGV', null, [], at).reason, 'ended by SIGSEGV');
    assert.equal(describeExit(null, 'SIGTERM', 'SIGTERM', [], at).level, 'info');
    assert.equal(describeExit(null, 'SIGTERM', null, [], at).level, 'fatal', 'a SIGTERM the launcher did not pass on');
    assert.match(describeExit(null, 'SIGABRT', 'SIGTERM', ['FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory'], at).reason, /^out of memory/, 'out of memory while stopping is still out of memory');
  });

  test('the tail keeps the last lines, bounded, across chunks', () => {
    const tail = new StderrTail(3, 10);
    tail.push('uno\ndos\ntr');
    tail.push('es\ncuatro\n\ncinco-muy-largo-de-verdad');
    assert.deepEqual(tail.get(), ['dos', 'tres', 'cuatro', 'cinco-muy-']);
  });
});
