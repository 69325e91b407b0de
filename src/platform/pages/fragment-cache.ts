/**
 * Rendered fragments (and what was computed with them), each kept under the data version it was computed for,
 * least recently used dropped first past a bound in bytes. A request reads the version before anything else, so
 * nothing kept is older than the version it is kept under; an entry is served only to a request that read the
 * same version, and is computed again (replacing it) for any other (decisions 0016, 0049). Concurrent requests
 * for a missing key share one computation. One cache per application instance: tests run several databases in
 * one process.
 *
 * `oneVersion`: every entry depends on the same version (a page kept by table versions), so a new version
 * empties the cache at once instead of leaving the stale entries to be replaced or dropped one by one.
 */
interface Entry<T> {
  version: string;
  value: Promise<T>;
  /** undefined while it is being computed */
  bytes: number | undefined;
}

export class FragmentCache<T extends { readonly bytes: number }> {
  private readonly entries = new Map<string, Entry<T>>();
  private bytes = 0;
  private latest: string | null = null;
  /** Requests served from an entry, and requests that computed one (the benchmark's hit rate). */
  hits = 0;
  misses = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly oneVersion = false,
  ) {}

  get(version: string, key: string, compute: () => Promise<T>): Promise<T> {
    if (this.oneVersion && version !== this.latest) {
      this.latest = version;
      this.entries.clear();
      this.bytes = 0;
    }
    const hit = this.entries.get(key);
    if (hit?.version === version) {
      this.hits++;
      // Most recently used last: Map keeps insertion order.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    if (hit !== undefined) this.forget(key, hit);
    this.misses++;
    const entry: Entry<T> = { version, value: compute(), bytes: undefined };
    this.entries.set(key, entry);
    entry.value.then(
      (v) => {
        if (this.entries.get(key) !== entry) return;
        entry.bytes = v.bytes;
        this.bytes += v.bytes;
        this.evict();
      },
      () => {
        // A failed computation is forgotten: the next request tries again.
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.value;
  }

  /** Bytes held (tests, benchmark). */
  get size(): number {
    return this.bytes;
  }

  private forget(key: string, entry: Entry<T>): void {
    this.entries.delete(key);
    if (entry.bytes !== undefined) this.bytes -= entry.bytes;
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      if (entry.bytes === undefined) continue; // still being computed
      this.forget(key, entry);
    }
  }
}
