// wrk (Debian's package) as the load generator for the scenarios that GET one fixed path, or a fixed list of paths
// in turn (the record pages over many ids): autocannon runs in Node and tops out near 7,000 requests a second on
// this kind of machine, so above that it measures itself, and on two shared cores it takes CPU from the server in
// proportion to the bytes it parses. wrk, in C, does not.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Whether `wrk` can be run here. */
export function wrkAvailable(): boolean {
  const r = spawnSync('wrk', ['--version'], { stdio: 'ignore' });
  return r.error === undefined;
}

export interface WrkRun {
  requests: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  /** connection errors and timeouts */
  errors: number;
  /** answers with the expected status */
  expected: number;
  /** answers with another status, by status */
  others: Record<string, number>;
}

// Each wrk thread counts statuses in its own Lua state; `done` adds them up and prints one line to parse. With more
// than one path, each thread requests them in turn, each from the start of its own share of the list.
// Many paths (the scenarios over the whole data: tens of thousands) are read from a file, one a line, by each
// thread: a table constructor that large exceeds what one Lua function may hold.
const script = (expect: number, paths: readonly string[], pathsFile: string, threads: number) => `
local threads = {}
${paths.length > 1 ? `local paths = {}
for line in io.lines(${JSON.stringify(pathsFile)}) do paths[#paths + 1] = line end` : ''}
function setup(thread)
  table.insert(threads, thread)
  thread:set("turn", (#threads - 1) * ${Math.floor(paths.length / threads)})
end
function init(args) expected = 0; others = {} end
${paths.length > 1 ? 'function request() turn = turn + 1; return wrk.format(nil, paths[turn % #paths + 1]) end' : ''}
function response(status, headers, body)
  if status == ${expect} then expected = expected + 1 else others[status] = (others[status] or 0) + 1 end
end
function done(summary, latency, requests)
  local e = 0
  local o = {}
  for _, t in ipairs(threads) do
    e = e + t:get("expected")
    for k, v in pairs(t:get("others")) do o[k] = (o[k] or 0) + v end
  end
  local parts = {}
  for k, v in pairs(o) do table.insert(parts, k .. "=" .. v) end
  local err = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("SOMNO-WRK %d %d %d %d %d %s\\n", summary.requests, summary.duration, err, latency:percentile(50), latency:percentile(99), table.concat(parts, ",")))
end
`;

/** GETs `paths` of `base` in turn (one path: that path) for `seconds` over `connections` connections with the given headers. */
export async function runWrk(
  base: string,
  paths: readonly string[],
  opts: { seconds: number; connections: number; threads?: number; headers: Record<string, string>; expect: number },
): Promise<WrkRun> {
  if (paths.length === 0) throw new Error('runWrk: no path to request');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'somno-wrk-'));
  try {
    const file = path.join(dir, 'count.lua');
    const pathsFile = path.join(dir, 'paths.txt');
    if (paths.length > 1) writeFileSync(pathsFile, paths.join('\n') + '\n');
    const threads = opts.threads ?? 1;
    writeFileSync(file, script(opts.expect, paths, pathsFile, threads));
    // wrk takes whole seconds only (the --quick warm-up asks 0.5). One thread by default (decision 0320).
    const args = ['-t', String(threads), '-c', String(opts.connections), '-d', `${Math.max(1, Math.round(opts.seconds))}s`, '--timeout', '10s', '-s', file];
    for (const [k, v] of Object.entries(opts.headers)) args.push('-H', `${k}: ${v}`);
    args.push(base + paths[0]);
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.stderr.on('data', (d: Buffer) => (text += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited with ${code}: ${text.trim()}`))));
    });
    const m = /SOMNO-WRK (\d+) (\d+) (\d+) (\d+) (\d+) ?(\S*)/.exec(out);
    if (!m) throw new Error(`wrk printed no summary: ${out.trim()}`);
    const others: Record<string, number> = {};
    for (const pair of (m[6] ?? '').split(',').filter(Boolean)) {
      const [k, v] = pair.split('=');
      others[k!] = Number(v);
    }
    const requests = Number(m[1]);
    return {
      requests,
      seconds: Number(m[2]) / 1e6,
      errors: Number(m[3]),
      p50Ms: Number(m[4]) / 1000,
      p99Ms: Number(m[5]) / 1000,
      expected: requests - Object.values(others).reduce((a, b) => a + b, 0),
      others,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
