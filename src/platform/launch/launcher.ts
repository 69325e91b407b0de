// dist/server.js: the server's own launcher (decision 0046). Started with the flags and the environment of
// runtime-flags.ts (as the benchmark and the harnesses do), it loads the server into this process. Started
// without them (`node dist/server.js` in a container or a service unit), it starts the server again as its child
// with them, hands SIGTERM, SIGINT and SIGHUP on to it and ends as the child ends (same exit code, or the same
// signal). When the child ends, it writes one JSON line saying how and why (exit-report.ts, decision 0062): the
// child's stderr passes through the launcher, which keeps its last lines for that. With WORKERS > 1 it is the
// primary of several servers sharing the port instead (cluster.ts, decision 0190). Only node: built-ins here, so
// the waiting parent stays small.

import { spawn } from 'node:child_process';
import cluster from 'node:cluster';
import { writeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { runPrimary } from './cluster.js';
import { describeExit, StderrTail } from './exit-report.js';
import { relaunchFor, WORKERS_ENV, WORKERS_MESSAGE, workersFrom } from './runtime-flags.js';

/** The server's bundle beside this one (src/platform/launch/build-server.ts builds src/server.ts as dist/serve.js). */
const SERVER = new URL('./serve.js', import.meta.url);

const relaunch = relaunchFor(process.execArgv, process.env);
const workers = workersFrom(process.env, availableParallelism());
if (cluster.isWorker) {
  await import(SERVER.href);
} else if (workers === null) {
  // As the server says of any other variable it cannot read (exit 2: a configuration error).
  console.error(`Configuración no válida: ${WORKERS_ENV}: ${WORKERS_MESSAGE}`);
  process.exit(2);
} else if (workers > 1) {
  // The servers get the runtime flags and variables from here; this process only waits, as the parent below does.
  runPrimary(workers, {
    exec: fileURLToPath(import.meta.url),
    args: process.argv.slice(2),
    execArgv: relaunch?.nodeArgs ?? process.execArgv,
    env: relaunch?.env ?? {},
  });
} else if (relaunch === null) {
  await import(SERVER.href);
} else {
  const child = spawn(process.execPath, [...relaunch.nodeArgs, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: ['inherit', 'inherit', 'pipe'],
    env: relaunch.env,
  });
  const tail = new StderrTail();
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    tail.push(chunk);
    process.stderr.write(chunk);
  });
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
  let stopRequested: NodeJS.Signals | null = null;
  for (const signal of signals) {
    process.on(signal, () => {
      stopRequested = signal;
      child.kill(signal);
    });
  }
  child.once('error', (err) => {
    console.error('Somno no pudo arrancar el servidor:', err.message);
    process.exit(1);
  });
  // 'close', not 'exit': by then the child's last words on stderr have been read.
  child.once('close', (code, signal) => {
    // Written at once (the process may end by a signal right after), as the server writes its log: on stdout.
    writeSync(1, `${JSON.stringify(describeExit(code, signal, stopRequested, tail.get()))}\n`);
    if (signal === null) process.exit(code ?? 1);
    for (const s of signals) process.removeAllListeners(s);
    process.kill(process.pid, signal);
  });
}
