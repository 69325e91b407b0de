// Preloaded into both servers of a counted comparison (bench/compare.ts --instructions, with --expose-gc): on
// SIGUSR2 it writes the collections V8 ran since the last signal (scavenges and mark-compacts) to
// $BENCH_GC_DIR/gc-<pid>.json, so each counted window says how many collections fell inside it; with
// BENCH_GC_COLLECT=1 it first runs two full collections, so each window starts from a compacted heap (which costs
// the windows recompilation: decision 0220). CommonJS: `--require` loads it before the bundle, whatever the checkout.
'use strict';
const { writeFileSync } = require('node:fs');
const path = require('node:path');
const { PerformanceObserver, performance, constants } = require('node:perf_hooks');

const dir = process.env.BENCH_GC_DIR;
if (dir && typeof globalThis.gc === 'function') {
  let since = 0;
  let signals = 0;
  const counts = { minor: 0, major: 0, other: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.startTime < since) continue; // the forced collections themselves
      const kind = entry.detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) counts.minor++;
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) counts.major++;
      else counts.other++;
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('SIGUSR2', () => {
    const window = { ...counts };
    if (process.env.BENCH_GC_COLLECT === '1') {
      globalThis.gc();
      globalThis.gc();
    }
    since = performance.now();
    counts.minor = counts.major = counts.other = 0;
    signals++;
    writeFileSync(path.join(dir, `gc-${process.pid}.json`), JSON.stringify({ signals, window, heapUsed: process.memoryUsage().heapUsed }));
  });
}
