// Bundles the server into dist/server.js with esbuild. `npm start` runs the bundle with plain node: no
// TypeScript loader in the serving process (≈50 MB less memory, nothing compiled while requests wait).
// Packages stay external (resolved from node_modules as usual); type-checking is `npm run check`'s job.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * The node flags `npm start` runs the bundle with (package.json repeats them; a test keeps the two equal).
 * The old-generation cap keeps the process small under load: without it V8 lets the heap grow to ~270 MB before
 * collecting, though the live data of a request is a few MB and an export streams a page at a time.
 * Without allocation-site pretenuring: V8 saw the objects made while the kept pages fill up survive, then kept
 * allocating the same sites' per-request objects straight into the old generation, which it then collected
 * three to four times a second under load (about 10 ms each). Semi-spaces of 8 MB instead of V8's 16: the young
 * generation's two halves are resident once used, and 16 MB less of them cost no measurable speed (decision 0021).
 * Measured in docs/performance.md.
 */
export const SERVER_NODE_FLAGS = [
  '--enable-source-maps',
  '--max-old-space-size=128',
  '--no-allocation-site-pretenuring',
  '--max-semi-space-size=8',
] as const;

/**
 * The environment `npm start` adds. glibc gives each thread that allocates its own malloc arena; with the
 * audit writer's thread and libuv's pool, their fragmentation cost ~27 MB of resident memory under the benchmark
 * (265 → 238 MB peak, decision 0017). Two arenas are enough for a process that runs JavaScript on one thread.
 */
export const SERVER_ENV = { MALLOC_ARENA_MAX: '2' } as const;

/** The bundle; it sits one level below the project root, as src/app.ts expects (public/ is found beside it). */
export const SERVER_BUNDLE = path.join(ROOT, 'dist', 'server.js');

export async function buildServer(): Promise<string> {
  await build({
    // The server, and the audit writer's worker thread beside it (src/audit/audit.writer.ts finds it there).
    entryPoints: [
      { in: path.join(ROOT, 'src', 'server.ts'), out: 'server' },
      { in: path.join(ROOT, 'src', 'audit', 'audit.writer.ts'), out: 'audit-writer' },
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

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await buildServer();
}
