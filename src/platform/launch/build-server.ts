// Bundles the server into dist/ with esbuild. `npm start` runs the bundle with plain node: no TypeScript loader
// in the serving process (≈50 MB less memory, nothing compiled while requests wait), and does not bundle again
// while dist/ is newer than every file of src/ (`--if-stale`).
// Packages stay external (resolved from node_modules as usual); type-checking is `npm run check`'s job.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/** The project's root: the nearest folder above this file that holds package.json (wherever src/ puts this file). */
function projectRoot(from: string): string {
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const ROOT = projectRoot(fileURLToPath(import.meta.url));
// The flags and the environment the server runs with live beside its launcher; re-exported for the harnesses.
export { SERVER_ENV, SERVER_NODE_FLAGS } from './runtime-flags.js';

/** The bundle; it sits one level below the project root, as src/app.ts expects (public/ is found beside it). */
export const SERVER_BUNDLE = path.join(ROOT, 'dist', 'server.js');

export async function buildServer(): Promise<string> {
  await build({
    // The server, and the worker threads beside it: the audit writer's (src/platform/writes/writer-thread.ts finds it
    // there) and the spreadsheet import's (src/imports/import.jobs.ts).
    // dist/server.js is the launcher (it applies the runtime flags, then loads dist/serve.js: decision 0046).
    entryPoints: [
      { in: path.join(ROOT, 'src', 'platform', 'launch', 'launcher.ts'), out: 'server' },
      { in: path.join(ROOT, 'src', 'server.ts'), out: 'serve' },
      { in: path.join(ROOT, 'src', 'platform', 'writes', 'writer-thread.ts'), out: 'audit-writer' },
      { in: path.join(ROOT, 'src', 'imports', 'import.worker.ts'), out: 'import-worker' },
    ],
    outdir: path.dirname(SERVER_BUNDLE),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  return SERVER_BUNDLE;
}

/** The files the build writes (each with its source map). */
const OUTPUTS = ['server.js', 'serve.js', 'audit-writer.js', 'import-worker.js'].map((f) => path.join(path.dirname(SERVER_BUNDLE), f));

/** The latest modification of `dir` or anything under it (a file added, changed or removed). */
function latestChange(dir: string): number {
  let latest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? latestChange(full) : statSync(full).mtimeMs);
  }
  return latest;
}

/** Whether every output exists and is newer than every change under `sources` (src/ by default). */
export function bundleIsCurrent(sources = path.join(ROOT, 'src'), outputs: readonly string[] = OUTPUTS): boolean {
  if (!outputs.every((f) => existsSync(f))) return false;
  const built = Math.min(...outputs.map((f) => statSync(f).mtimeMs));
  return latestChange(sources) < built;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!(process.argv.includes('--if-stale') && bundleIsCurrent())) await buildServer();
}
