// The server's side of the import's worker thread (decision 0057). One thread, started by the first upload and
// ended after a while without one, runs one job at a time (the others wait their turn: imports are rare, and two
// threads would double the memory an import may take). The thread has its own heap limit: a file that costs
// more ends the thread, and that job, with a clear message; the server and the next job go on (a new thread).
// The database lookups between reading and analysing are made here, in chunks, yielding between them.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { workerFromSources } from '../shared/tsx-worker.js';
import type { AnalysisResult } from './import.analysis.js';
import { badFile, FILE_MSG } from './import.errors.js';
import type { ExistingPatient } from './import.rules.js';
import type { FromWorker, ToWorker } from './import.worker.js';

/**
 * The thread's heap: a 20,000-row file keeps ~20 MB alive while it is analysed (the thread adds ~80 MB of RSS at its
 * peak); the cap leaves room for files within the limits that are costlier, and stops what is not a patient list.
 */
export const WORKER_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 8, stackSizeMb: 4 };

export interface Lookups {
  /** The stored patients holding any of these documento keys, as [key, id] (called with chunks of keys). */
  existing(keys: string[]): Promise<[string, number][]>;
  /** The stored patients born on any of these dates (called with chunks of dates). */
  born(dates: string[]): Promise<ExistingPatient[]>;
}

export interface ImportJobs {
  /** Reads and analyses a file; throws the IMPORT_BAD_FILE domain error for a file that cannot be imported. */
  analyse(input: { fileName: string; data: Buffer; today: string; lookups: Lookups }): Promise<AnalysisResult>;
  /** Ends the thread (the server is stopping). */
  close(): Promise<void>;
}

/** Keys or dates a lookup statement carries. */
const LOOKUP_CHUNK = 500;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function startWorker(resourceLimits: ResourceLimits): Worker {
  const here = fileURLToPath(import.meta.url);
  const bundled = path.join(path.dirname(here), 'import-worker.js');
  if (!here.endsWith('.ts') && existsSync(bundled)) return new Worker(bundled, { resourceLimits });
  return workerFromSources(new URL('./import.worker.ts', import.meta.url).href, { resourceLimits });
}

export function createImportJobs(options: { idleMs?: number; timeoutMs?: number; resourceLimits?: ResourceLimits; onCrash?: (err: unknown) => void } = {}): ImportJobs {
  const idleMs = options.idleMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 120_000;
  let worker: Worker | null = null;
  let idle: NodeJS.Timeout | null = null;
  let turn: Promise<unknown> = Promise.resolve();
  let seq = 0;
  let closed = false;
  /** The current job's pending wait for the thread's next message. */
  let waiting: { job: number; resolve: (m: FromWorker) => void; reject: (err: unknown) => void } | null = null;

  const lost = (err: unknown) => {
    worker = null;
    if (err !== null) options.onCrash?.(err);
    waiting?.reject(badFile(FILE_MSG.unreadable));
    waiting = null;
  };

  const threadOf = (): Worker => {
    if (worker) return worker;
    const w = startWorker(options.resourceLimits ?? WORKER_LIMITS);
    w.on('message', (m: FromWorker) => {
      if (waiting && waiting.job === m.job) {
        const { resolve } = waiting;
        waiting = null;
        resolve(m);
      }
    });
    let failure: unknown = null;
    w.on('error', (err) => (failure = err));
    w.on('exit', () => {
      if (worker === w) lost(failure ?? (closed ? null : new Error('the import worker thread ended')));
    });
    worker = w;
    return w;
  };

  const reply = (job: number): Promise<FromWorker> =>
    new Promise((resolve, reject) => {
      waiting = { job, resolve, reject };
    });

  /** Sends and waits for the answer; a refusal becomes the domain error, a failure an error. */
  const ask = async (w: Worker, message: ToWorker, transfer: ArrayBuffer[] = []): Promise<FromWorker> => {
    // The thread ended since the job began (its heap, the deadline): nobody would answer.
    if (worker !== w) throw badFile(FILE_MSG.unreadable);
    const answer = reply(message.job);
    w.postMessage(message, transfer);
    const m = await answer;
    if (m.type === 'refused') throw badFile(m.message);
    if (m.type === 'failed') {
      // A fault of the reading, not of the file's content as far as anyone can tell: reported, and refused clearly.
      options.onCrash?.(new Error(m.error));
      throw badFile(FILE_MSG.unreadable);
    }
    return m;
  };

  const runOne = async (input: Parameters<ImportJobs['analyse']>[0]): Promise<AnalysisResult> => {
    if (closed) throw new Error('the import worker is closed');
    if (idle) clearTimeout(idle);
    const w = threadOf();
    w.ref();
    const job = ++seq;
    // A job that takes too long ends the thread: the file is refused as unreadable.
    const deadline = setTimeout(() => void w.terminate(), timeoutMs);
    try {
      const copy = new Uint8Array(input.data);
      const read = await ask(w, { type: 'read', job, fileName: input.fileName, data: copy }, [copy.buffer]);
      if (read.type !== 'read') throw new Error(`import worker: unexpected ${read.type}`);
      for (let i = 0; i < read.keys.length; i += LOOKUP_CHUNK) {
        await nextTurn();
        w.postMessage({ type: 'existing', job, entries: await input.lookups.existing(read.keys.slice(i, i + LOOKUP_CHUNK)) } satisfies ToWorker);
      }
      for (let i = 0; i < read.dates.length; i += LOOKUP_CHUNK) {
        await nextTurn();
        w.postMessage({ type: 'born', job, people: await input.lookups.born(read.dates.slice(i, i + LOOKUP_CHUNK)) } satisfies ToWorker);
      }
      const done = await ask(w, { type: 'analyse', job, today: input.today });
      if (done.type !== 'analysed') throw new Error(`import worker: unexpected ${done.type}`);
      return done.result;
    } catch (err) {
      if (worker === w) w.postMessage({ type: 'drop', job } satisfies ToWorker);
      throw err;
    } finally {
      clearTimeout(deadline);
      waiting = null;
      if (worker === w) {
        w.unref();
        idle = setTimeout(() => {
          if (worker === w) {
            worker = null;
            void w.terminate();
          }
        }, idleMs);
        idle.unref();
      }
    }
  };

  return {
    analyse(input) {
      const run = turn.then(() => runOne(input));
      turn = run.catch(() => undefined);
      return run;
    },
    async close() {
      closed = true;
      if (idle) clearTimeout(idle);
      const w = worker;
      worker = null;
      waiting?.reject(badFile(FILE_MSG.unreadable));
      waiting = null;
      await w?.terminate();
    },
  };
}
