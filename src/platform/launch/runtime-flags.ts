// The runtime settings of the server process, in one place: the node flags and the environment the server must
// start with, and the decision whether a process that was started without them must start the server again with
// them (src/platform/launch/launcher.ts, which `node dist/server.js` runs; decision 0046). No imports: the launcher loads
// this before anything else.

/**
 * The node flags of the server.
 * The old-generation cap keeps the process small under load: without it V8 lets the heap grow to ~270 MB before
 * collecting, though the live data of a request is a few MB and an export streams a page at a time.
 * Without allocation-site pretenuring: V8 saw the objects made while the kept pages fill up survive, then kept
 * allocating the same sites' per-request objects straight into the old generation, which it then collected
 * three to four times a second under load (about 10 ms each). Semi-spaces of 8 MB instead of V8's 16: the young
 * generation's two halves are resident once used, and 16 MB less of them cost no measurable speed (decision 0021).
 * No `--enable-source-maps`: it keeps the bundle's decoded map in the heap (~19 MB); logged errors are mapped when
 * they are logged (platform/launch/mapped-stack.ts, decision 0250).
 * Measured in docs/performance.md.
 */
export const SERVER_NODE_FLAGS = [
  '--max-old-space-size=128',
  '--no-allocation-site-pretenuring',
  '--max-semi-space-size=8',
] as const;

/**
 * The environment of the server. glibc gives each thread that allocates its own malloc arena; with the audit
 * writer's thread and libuv's pool, their fragmentation cost ~27 MB of resident memory under the benchmark
 * (265 → 238 MB peak, decision 0017). Two arenas are enough for a process that runs JavaScript on one thread.
 * glibc reads it when the process starts, so it cannot be set from inside.
 */
export const SERVER_ENV = { MALLOC_ARENA_MAX: '2' } as const;

/** Set in the server the launcher starts: it never starts another. */
export const LAUNCHED_ENV = 'SOMNO_LAUNCHED';

export interface Relaunch {
  /** node's arguments for the server: the missing flags first, then the process's own (which win when repeated) */
  nodeArgs: string[];
  env: Record<string, string | undefined>;
}

const flagName = (flag: string): string => flag.split('=')[0]!;

/**
 * Null when this process already runs with every flag (by name: a value the operator chose, on the command
 * line or in NODE_OPTIONS, is kept) and every variable of SERVER_ENV (idem), or was itself started by the
 * launcher; else how to start the server: the missing flags before the process's own, the missing variables
 * added to its environment.
 */
export function relaunchFor(execArgv: readonly string[], env: Readonly<Record<string, string | undefined>>): Relaunch | null {
  if (env[LAUNCHED_ENV] === '1') return null;
  const given = new Set([...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].filter(Boolean).map(flagName));
  const missingFlags = SERVER_NODE_FLAGS.filter((f) => !given.has(flagName(f)));
  const missingEnv = Object.entries(SERVER_ENV).filter(([k]) => env[k] === undefined);
  if (missingFlags.length === 0 && missingEnv.length === 0) return null;
  return { nodeArgs: [...missingFlags, ...execArgv], env: { ...Object.fromEntries(missingEnv), ...env, [LAUNCHED_ENV]: '1' } };
}

/** How many server processes share the port (issue 30, decision 0190): a number, or `auto` for one per core. */
export const WORKERS_ENV = 'WORKERS';

/** More processes than this is a typing error, not a machine: each costs its own heap, caches and connections. */
export const WORKERS_MAX = 16;

/** The message for a WORKERS that cannot be read (config.ts says the same, for the server's own check). */
export const WORKERS_MESSAGE = `debe ser un número de 1 a ${WORKERS_MAX} o auto`;

/**
 * The number of server processes WORKERS asks for: 1 when it is unset or empty (one process, as always), `cores`
 * for `auto` (at most WORKERS_MAX), or null when it is neither a number in range nor `auto`.
 */
export function workersFrom(env: Readonly<Record<string, string | undefined>>, cores: number): number | null {
  const raw = (env[WORKERS_ENV] ?? '').trim();
  if (raw === '') return 1;
  if (raw === 'auto') return Math.max(1, Math.min(cores, WORKERS_MAX));
  if (!/^\d{1,2}$/.test(raw)) return null;
  const n = Number(raw);
  return n >= 1 && n <= WORKERS_MAX ? n : null;
}
