// The mixed scenario (issue 14, item 7): every read page under load while another client writes at a steady
// rate (patients created, Ingresos suspended and reactivated, monitoring records added), so a write's effect on
// the readers shows: a write that made the next reader pay for a whole table would show in their p99.

import type { Fixtures, Request, Scenario, Target } from './scenarios.js';
import { createPatientBody } from './scenarios.js';
import type { Session } from './server.js';

/** The write rates of the scenario (changes a second) and the p99 each read page must keep under them. */
export const MIXED_RATES = [5, 20] as const;

/** At 5 writes a second the read-only targets; at 20 no page's p99 above 100 ms. */
export function mixedTarget(rate: number, readOnly: Target): Target {
  return rate <= 5 ? (readOnly.p99 !== undefined ? { p99: readOnly.p99 } : {}) : { p99: 100 };
}

export interface WriteTally {
  rate: number;
  sent: number;
  ok: number;
  /** answered other than the redirect of a saved change */
  failed: number;
  /** ticks at which 8 writes were still unanswered, so none was sent */
  skipped: number;
  byKind: Record<string, number>;
  failures: string[];
}

/** Never more unanswered writes than this: a stalled server shows as skipped ticks, not as a pile of requests. */
const MAX_IN_FLIGHT = 8;

/**
 * A client writing `rate` changes a second, in turn: a patient created, a status change (an ACTIVO Ingreso of
 * the pool suspended, then a suspended one reactivated), a MONITOREO record on a patient of the read
 * scenarios. The pool is taken from the end of `f.terminable`, which the terminate scenario uses from the start.
 */
export class MixedWriter {
  private timer: NodeJS.Timeout | null = null;
  private inFlight = new Set<Promise<void>>();
  private tick = 0;
  private suspended: number[] = [];
  private tally: WriteTally;
  private examAt = 0;

  constructor(
    private readonly session: Session,
    private readonly f: Fixtures,
    rate: number,
  ) {
    this.tally = { rate, sent: 0, ok: 0, failed: 0, skipped: 0, byKind: {}, failures: [] };
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.fire(), 1000 / this.tally.rate);
  }

  /** The tally so far, a copy. */
  current(): WriteTally {
    return { ...this.tally, byKind: { ...this.tally.byKind }, failures: [...this.tally.failures] };
  }

  /** Stops and waits for the writes still unanswered; returns the tally so far (it keeps counting across runs). */
  async stop(): Promise<WriteTally> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.inFlight);
    return this.tally;
  }

  private next(): { kind: string; request: Request } | null {
    const csrf = this.session.csrfToken;
    const kind = ['create', 'status', 'exam'][this.tick++ % 3]!;
    if (kind === 'create') return { kind, request: { method: 'POST', path: '/patients/create/', body: createPatientBody(this.f, csrf) } };
    if (kind === 'status') {
      const reactivate = this.suspended.length > 0 && this.tick % 2 === 0;
      const ingresoId = reactivate ? this.suspended.shift() : this.f.terminable.pop()?.ingresoId;
      if (ingresoId === undefined) return null;
      if (!reactivate) this.suspended.push(ingresoId);
      const to = reactivate ? 'ACTIVO' : 'SUSPENDIDO';
      const form: Record<string, string> = reactivate ? { csrfmiddlewaretoken: csrf } : { csrfmiddlewaretoken: csrf, motivo_estado: 'Suspensión (benchmark mixto)' };
      return { kind: `status-${to}`, request: { method: 'POST', path: `/patients/ingreso/estado/${ingresoId}/${to}/`, body: new URLSearchParams(form).toString() } };
    }
    const pacienteId = this.f.activeIds[this.examAt++ % this.f.activeIds.length]!;
    const body = new URLSearchParams({ csrfmiddlewaretoken: csrf, fecha: this.f.today, tipo: 'POLIGRAFIA', iah: '12,5', observaciones: 'Benchmark mixto' });
    return { kind, request: { method: 'POST', path: `/exams/${pacienteId}/monitoreo/`, body: body.toString() } };
  }

  private fire(): void {
    if (this.inFlight.size >= MAX_IN_FLIGHT) {
      this.tally.skipped++;
      return;
    }
    const w = this.next();
    if (w === null) return;
    this.tally.sent++;
    this.tally.byKind[w.kind] = (this.tally.byKind[w.kind] ?? 0) + 1;
    const form = w.request.body === undefined ? undefined : Object.fromEntries(new URLSearchParams(w.request.body));
    const p: Promise<void> = this.session.request(w.request.method, w.request.path, form).then(
      (res) => {
        if (res.status === 302) this.tally.ok++;
        else this.fail(`${w.kind} ${w.request.path}: ${res.status}`);
      },
      (err: unknown) => this.fail(`${w.kind} ${w.request.path}: ${err instanceof Error ? err.message : String(err)}`),
    );
    const tracked = p.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private fail(what: string): void {
    this.tally.failed++;
    if (this.tally.failures.length < 5) this.tally.failures.push(what);
  }
}

/** The read scenarios, each with the target it must keep under `rate` writes a second. */
export function mixedReads(all: Scenario[], rate: number): Scenario[] {
  return all
    .filter((s) => s.expect === 200 && !s.uncached && s.next().method === 'GET')
    .map((s) => ({ ...s, key: `mixed${rate}-${s.key}`, target: mixedTarget(rate, s.target) }));
}

/** What a writer's tally counted from `start` to `end` (its numbers; its rate; the failures noted meanwhile). */
export function tallyBetween<T extends { failures: string[] }>(start: T, end: T): T {
  const out: Record<string, unknown> = { ...end };
  for (const [k, v] of Object.entries(end) as [string, unknown][]) {
    const before = (start as unknown as Record<string, unknown>)[k];
    if (k === 'rate') continue;
    if (typeof v === 'number' && typeof before === 'number') out[k] = v - before;
    else if (k === 'byKind') out[k] = Object.fromEntries(Object.entries(v as Record<string, number>).map(([kind, n]) => [kind, n - ((before as Record<string, number>)[kind] ?? 0)]));
  }
  out.failures = end.failures.slice(start.failures.length);
  return out as T;
}
