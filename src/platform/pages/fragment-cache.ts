import { LRUCache } from 'lru-cache';
import { ADMISSION_WINDOW, SecondRequest } from './second-request.js';

/**
 * Rendered fragments (and what was computed with them), each kept under the data version it was computed for,
 * least recently used dropped first past a bound in bytes (lru-cache's `maxSize`, decision 0086). A request reads
 * the version before anything else, so nothing kept is older than the version it is kept under; an entry is served
 * only to a request that read the same version, and is computed again (replacing it) for any other (decisions 0016,
 * 0049). Concurrent requests for a missing key share one computation. One cache per application instance: tests
 * run several databases in one process.
 *
 * `oneVersion`: every entry depends on the same version (a page kept by table versions), so a new version
 * empties the cache at once instead of leaving the stale entries to be replaced or dropped one by one.
 */
interface Entry<T> {
  version: string;
  value: Promise<T>;
}

export class FragmentCache<T extends { readonly bytes: number }> {
  /** Computed entries, bounded in bytes. */
  private readonly kept: LRUCache<string, Entry<T>>;
  /** Computations not finished yet: not counted, never dropped by the bound. */
  private readonly computing = new Map<string, Entry<T>>();
  private latest: string | null = null;
  /** Which keys are kept (window 0: each from its first computation, for the bound's own tests). */
  private readonly admission: SecondRequest<string>;
  /** Requests served from an entry, and requests that computed one (the benchmark's hit rate). */
  hits = 0;
  misses = 0;

  constructor(maxBytes: number, private readonly oneVersion = false, admissionWindow = ADMISSION_WINDOW) {
    this.kept = new LRUCache<string, Entry<T>>({ maxSize: maxBytes });
    this.admission = new SecondRequest(admissionWindow);
  }

  get(version: string, key: string, compute: () => Promise<T>): Promise<T> {
    if (this.oneVersion && version !== this.latest) {
      this.latest = version;
      this.kept.clear();
      this.computing.clear();
    }
    const hit = this.kept.get(key);
    if (hit?.version === version) {
      this.hits++;
      return hit.value;
    }
    const pending = this.computing.get(key);
    if (pending?.version === version) {
      this.hits++;
      return pending.value;
    }
    if (hit !== undefined) this.kept.delete(key);
    this.misses++;
    // A key kept before (under an older version) is kept again; another from its second computation in a while.
    const keep = hit !== undefined || this.admission.admits(key);
    const entry: Entry<T> = { version, value: compute() };
    this.computing.set(key, entry);
    entry.value.then(
      (v) => {
        if (this.computing.get(key) !== entry) return; // replaced by a newer version meanwhile
        this.computing.delete(key);
        if (keep) this.kept.set(key, entry, { size: Math.max(1, v.bytes) });
      },
      () => {
        // A failed computation is forgotten: the next request tries again.
        if (this.computing.get(key) === entry) this.computing.delete(key);
      },
    );
    return entry.value;
  }

  /** Bytes held (tests, benchmark). */
  get size(): number {
    return this.kept.calculatedSize;
  }
}
