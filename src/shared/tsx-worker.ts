import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running a TypeScript module from the sources (tests, tsx): on Node 20 a loader registered in the
 * main thread does not reach worker threads, so the thread registers tsx's loader itself, then imports the module.
 */
export function workerFromSources(moduleUrl: string, options: WorkerOptions = {}): Worker {
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(moduleUrl)}); })`;
  return new Worker(boot, { ...options, eval: true });
}
