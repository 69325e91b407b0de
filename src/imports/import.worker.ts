// The import's worker thread (decision 0057): reads an uploaded spreadsheet and analyses its rows, off the
// server's thread and within its own heap limit, so that a file that costs too much ends this thread, not the
// server. The server's side (import.jobs.ts) starts it; the build bundles it as dist/import-worker.js.
//
// A job: 'read' (the file) → the keys and dates to look up; the server sends the stored patients it found
// ('existing', 'born', in chunks) and 'analyse' → the result. The thread holds a job's rows in between.

import { isMainThread, parentPort } from 'node:worker_threads';
import { isDomainError } from '../shared/domain-error.js';
import { analyseFile, readForAnalysis, type AnalysisResult, type ReadFile } from './import.analysis.js';
import { IMPORT_BAD_FILE } from './import.errors.js';
import type { ExistingPatient } from './import.rules.js';

export type ToWorker =
  | { type: 'read'; job: number; fileName: string; data: Uint8Array }
  | { type: 'existing'; job: number; entries: [string, number][] }
  | { type: 'born'; job: number; people: ExistingPatient[] }
  | { type: 'analyse'; job: number; today: string }
  | { type: 'drop'; job: number };

export type FromWorker =
  | { type: 'read'; job: number; keys: string[]; dates: string[] }
  | { type: 'analysed'; job: number; result: AnalysisResult }
  | { type: 'refused'; job: number; message: string }
  | { type: 'failed'; job: number; error: string };

/**
 * A fault of the reading or the analysis, for the log: the error's name and code and where it was thrown, never
 * its message (it may quote a cell of the file, and the log holds no patient data).
 */
function whereItFailed(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  const code = (err as { code?: unknown }).code;
  const frames = (err.stack ?? '').split('\n').filter((l) => l.trimStart().startsWith('at ')).slice(0, 6).map((l) => l.trim());
  return [`${err.name}${typeof code === 'string' ? ` ${code}` : ''}`, ...frames].join(' | ');
}

interface Job {
  file: ReadFile;
  existing: Map<string, { id: number }>;
  born: ExistingPatient[];
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  const jobs = new Map<number, Job>();
  const fail = (job: number, err: unknown) => {
    jobs.delete(job);
    if (isDomainError<{ message: string }>(err, IMPORT_BAD_FILE)) port.postMessage({ type: 'refused', job, message: err.details.message } satisfies FromWorker);
    else port.postMessage({ type: 'failed', job, error: whereItFailed(err) } satisfies FromWorker);
  };
  port.on('message', (m: ToWorker) => {
    switch (m.type) {
      case 'read':
        readForAnalysis(m.fileName, Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength)).then(
          (file) => {
            jobs.set(m.job, { file, existing: new Map(), born: [] });
            port.postMessage({ type: 'read', job: m.job, keys: file.keys, dates: file.dates } satisfies FromWorker);
          },
          (err: unknown) => fail(m.job, err),
        );
        return;
      case 'existing':
        for (const [key, id] of m.entries) jobs.get(m.job)?.existing.set(key, { id });
        return;
      case 'born': {
        const born = jobs.get(m.job)?.born;
        if (born) for (const p of m.people) born.push(p);
        return;
      }
      case 'analyse': {
        const job = jobs.get(m.job);
        jobs.delete(m.job);
        if (!job) return fail(m.job, new Error('unknown job'));
        try {
          port.postMessage({ type: 'analysed', job: m.job, result: analyseFile(job.file, m.today, job.existing, job.born) } satisfies FromWorker);
        } catch (err) {
          fail(m.job, err);
        }
        return;
      }
      case 'drop':
        jobs.delete(m.job);
    }
  });
}
