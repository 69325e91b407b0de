// The login's per-address flood guard (@fastify/rate-limit) counted by the cluster's primary for every server
// (decision 0190): with one store per process, each of N servers would let an address through N times the limit.
// A store in @fastify/rate-limit's sense (`incr`, `child`); one message to the primary and its answer per counted
// request (only the login's POST is counted).

import type { RateAnswer, RateAsk } from './cluster.js';

type Callback = (err: Error | null, result: { current: number; ttl: number }) => void;

const waiting = new Map<number, Callback>();
let nextId = 0;
let listening = false;

function ask(key: string, timeWindow: number, cb: Callback): void {
  if (!listening) {
    listening = true;
    process.on('message', (m: RateAnswer) => {
      if (m?.somno !== 'rate') return;
      const done = waiting.get(m.id);
      waiting.delete(m.id);
      done?.(null, { current: m.current, ttl: m.ttl });
    });
  }
  const id = ++nextId;
  const message: RateAsk = { somno: 'rate', id, key, timeWindow };
  if (process.send === undefined || !process.connected) {
    // No primary to ask (it is ending, and this server with it): let the attempt through; the per-name lock, in
    // the database, still counts it (decision 0060).
    cb(null, { current: 1, ttl: timeWindow });
    return;
  }
  waiting.set(id, cb);
  process.send(message, undefined, undefined, (err: Error | null) => {
    if (err === null || !waiting.has(id)) return;
    waiting.delete(id);
    cb(null, { current: 1, ttl: timeWindow });
  });
}

export class SharedRateLimitStore {
  /** `prefix`: the route's, so that two limited routes count apart. */
  constructor(
    _options?: unknown,
    private readonly prefix = '',
  ) {}

  incr(key: string, cb: Callback, timeWindow: number): void {
    ask(this.prefix + key, timeWindow, cb);
  }

  child(routeOptions: { routeInfo?: { method?: string | string[]; url?: string } }): SharedRateLimitStore {
    const info = routeOptions.routeInfo ?? {};
    return new SharedRateLimitStore(undefined, `${String(info.method ?? '')} ${info.url ?? ''} `);
  }
}
