// What the launcher says when the server process ends (issue 25, deployment): one JSON line, in the form of the
// server's own log lines, saying how it ended (exit code or signal) and why, as far as the launcher can tell from
// the signal and the last lines the server wrote to stderr. An out-of-memory death is named as such. Only
// built-ins: the launcher bundles this.

/** The last lines a process wrote, bounded in count and length (a crash's stack trace fits). */
export class StderrTail {
  private lines: string[] = [];
  private partial = '';

  constructor(
    private readonly maxLines = 20,
    private readonly maxLineLength = 500,
  ) {}

  push(chunk: string): void {
    const parts = (this.partial + chunk).split('\n');
    this.partial = (parts.pop() ?? '').slice(-this.maxLineLength * 4);
    for (const line of parts) this.keep(line);
  }

  /** The kept lines, the one still unfinished included; blank lines left out. */
  get(): string[] {
    return [...this.lines, this.partial.slice(0, this.maxLineLength)].filter((l) => l.trim() !== '');
  }

  private keep(line: string): void {
    if (line.trim() === '') return;
    this.lines.push(line.slice(0, this.maxLineLength));
    if (this.lines.length > this.maxLines) this.lines.shift();
  }
}

export interface ExitReport {
  level: 'fatal' | 'info';
  time: string;
  msg: 'server exited';
  code: number | null;
  signal: string | null;
  reason: string;
  /** the server's last lines on stderr, oldest first */
  stderr: string[];
}

// V8's words when the heap reaches its limit ("FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap
// out of memory"), and those of a failed allocation outside the heap.
const OUT_OF_MEMORY = /heap out of memory|Reached heap limit|Allocation failed|Cannot allocate memory|ENOMEM|out of memory/i;

/** An error's own line ("Error: …", "TypeError [ERR_X]: …", V8's "FATAL ERROR: …"), the best reason a trace gives. */
const ERROR_LINE = /^\s*(?:Uncaught )?(?:[A-Z]\w*)?(?:Error|Exception)(?: \[\w+\])?:|FATAL ERROR/;
/** Lines that say nothing of why: a stack frame, node's version, the caret under the source line. */
const NOISE = /^\s+at |^Node\.js v|^\s*\^+\s*$/;

/**
 * The report of a server that ended with `code` or `signal`. `stopRequested` is the signal the launcher passed on
 * (a stop asked for by the service manager or the operator): ending after it is not a failure.
 */
export function describeExit(
  code: number | null,
  signal: string | null,
  stopRequested: string | null,
  stderr: readonly string[],
  now: Date = new Date(),
): ExitReport {
  const newestFirst = [...stderr].reverse();
  const last = (newestFirst.find((l) => ERROR_LINE.test(l)) ?? newestFirst.find((l) => !NOISE.test(l)))?.trim() ?? '';
  const said = last === '' ? '' : `: ${last}`;
  let level: ExitReport['level'] = 'fatal';
  let reason: string;
  if (stderr.some((l) => OUT_OF_MEMORY.test(l))) {
    reason = `out of memory${said}`;
  } else if (stopRequested !== null && (code === 0 || signal === stopRequested)) {
    level = 'info';
    reason = `stopped on ${stopRequested}`;
  } else if (signal === 'SIGKILL') {
    reason = 'killed by SIGKILL, from outside: most often the system ran out of memory and its OOM killer chose the server (see `journalctl -k`)';
  } else if (signal !== null) {
    reason = `ended by ${signal}${said}`;
  } else if (code === 0) {
    level = 'info';
    reason = 'ended by itself without an error';
  } else if (code === 2) {
    reason = `configuration error${said}`;
  } else {
    reason = `failed with exit code ${code}${said}`;
  }
  return { level, time: now.toISOString(), msg: 'server exited', code, signal, reason, stderr: [...stderr] };
}
