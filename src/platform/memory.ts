import { getHeapSpaceStatistics } from 'node:v8';

/**
 * Where the server's memory is (GET /healthz/memory, for the benchmark's memory table, decision 0250): the
 * process's figures, V8's spaces, and the bytes each cache keeps by its own count. SQLite's and malloc's memory are
 * not reachable from here: they are what the RSS holds beyond the heap and the external memory.
 */
export class KeptMemory {
  private readonly sources = new Map<string, () => number>();

  /** Names a cache and how to read the bytes it keeps (one name once per application instance). */
  add(name: string, bytes: () => number): void {
    this.sources.set(name, bytes);
  }

  report(extra: Record<string, number> = {}): MemoryReport {
    const usage = process.memoryUsage();
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((s) => [s.space_name, { used: s.space_used_size, size: s.space_size }]),
    );
    const kept = { ...extra, ...Object.fromEntries([...this.sources].map(([name, bytes]) => [name, bytes()])) };
    return {
      rss: usage.rss,
      heapTotal: usage.heapTotal,
      heapUsed: usage.heapUsed,
      external: usage.external,
      arrayBuffers: usage.arrayBuffers,
      spaces,
      kept,
    };
  }
}

export interface MemoryReport {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  /** C++ objects and buffers V8 knows of (the kept pages' and histories' Buffers among them) */
  external: number;
  arrayBuffers: number;
  /** V8's heap spaces: bytes used and reserved */
  spaces: Record<string, { used: number; size: number }>;
  /** bytes each cache counts as kept, by name */
  kept: Record<string, number>;
}
