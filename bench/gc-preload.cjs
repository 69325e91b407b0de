// Preloaded into both servers of a counted comparison (bench/compare.ts --instructions, with --expose-gc): on
// SIGUSR2 it writes the collections V8 ran since the last signal (scavenges and mark-compacts) to
// $BENCH_GC_DIR/gc-<pid>.json, then runs two full collections, so each counted window starts from the same
// compacted heap on both sides and says how many collections fell inside it. CommonJS: `--require` loads it before
// the bundle, whatever the checkout.
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
    globalThis.gc();
    globalThis.gc();
    since = performance.now();
    counts.minor = counts.major = counts.other = 0;
    signals++;
    writeFileSync(path.join(dir, `gc-${process.pid}.json`), JSON.stringify({ signals, window, heapUsed: process.memoryUsage().heapUsed }));
  });
}
