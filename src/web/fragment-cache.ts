/**
 * Rendered fragments (and what was computed with them) for one data version, least recently used dropped first
 * past a bound in bytes. A request reads the data version before anything else, so nothing kept is older than the
 * version it is kept under; a new version empties the cache (decision 0016). Concurrent requests for a missing
 * key share one computation. One cache per application instance: tests run several databases in one process.
 */
export class FragmentCache<T extends { readonly bytes: number }> {
  private version: string | null = null;
  private readonly entries = new Map<string, Promise<T>>();
  private readonly sizes = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(version: string, key: string, compute: () => Promise<T>): Promise<T> {
    if (version !== this.version) {
      this.version = version;
      this.entries.clear();
      this.sizes.clear();
      this.bytes = 0;
    }
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Most recently used last: Map keeps insertion order.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const value = compute();
    this.entries.set(key, value);
    value.then(
      (v) => {
        if (this.entries.get(key) !== value) return;
        this.sizes.set(key, v.bytes);
        this.bytes += v.bytes;
        this.evict();
      },
      () => {
        // A failed computation is forgotten: the next request tries again.
        if (this.entries.get(key) === value) this.entries.delete(key);
      },
    );
    return value;
  }

  /** Bytes held (tests, benchmark). */
  get size(): number {
    return this.bytes;
  }

  private evict(): void {
    for (const key of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      const size = this.sizes.get(key);
      if (size === undefined) continue; // still being computed
      this.entries.delete(key);
      this.sizes.delete(key);
      this.bytes -= size;
    }
  }
}
