// npx tsx bench/callgrind-kinds.ts REQUESTS PROFILE...
//
// The instructions a request of each counted window (`npm run bench:compare -- --instructions --profile`, one
// profile a window) split by kind: V8's garbage collector, V8's compilers (TurboFan, Maglev, Sparkplug, the parser
// and deoptimizer), and the rest, which is the request's own work (JavaScript, builtins, SQLite, libc). The
// compiler still runs thousands of requests after the start and moves a window's total by ±30 % from round to
// round of one side; the own work holds within a few per cent (decision 0220). Functions are classed by name.

import { execFileSync } from 'node:child_process';

const GC = /v8::internal::.*(Heap|Scaveng|Mark|Sweep|Evacuat|Compactor|RememberedSet|SlotSet|MemoryAllocator|GCTracer|MinorMC|Visitor|WeakObjects|PagedSpace|NewSpace|LargeObjectSpace|MemoryChunk|Page::|FreeList|IterateObjectCache|StubCache|Marker|Collector)/;
const COMPILER = /v8::internal::(compiler::|maglev::|baseline::|interpreter::|Parser|Scanner|Deoptimizer|Compiler|Zone|PreParser|Assembler)/;

const [requests, ...files] = process.argv.slice(2);
if (!requests || files.length === 0) throw new Error('Uso: npx tsx bench/callgrind-kinds.ts REQUESTS PROFILE...');
const n = Number(requests);
const f = (x: number) => Math.round(x / n).toLocaleString('en-US').padStart(10);
for (const file of files) {
  const out = execFileSync('callgrind_annotate', ['--threshold=100', '--inclusive=no', file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  let total = 0;
  let gc = 0;
  let compiler = 0;
  for (const line of out.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (!m) continue;
    const count = Number(m[1]!.replace(/,/g, ''));
    const name = m[2]!;
    if (name.includes('PROGRAM TOTALS')) total = count;
    else if (GC.test(name)) gc += count;
    else if (COMPILER.test(name)) compiler += count;
  }
  console.log(`${file.split('/').pop()!.padEnd(30)} total ${f(total)}  gc ${f(gc)}  compiler ${f(compiler)}  own ${f(total - gc - compiler)}`);
}
