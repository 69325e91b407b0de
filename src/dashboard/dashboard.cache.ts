/**
 * The last value computed, kept while its key is asked for. Concurrent callers with the key of a computation
 * in flight share it (one computation, not one per request); a failed computation is forgotten, so the next
 * caller tries again. A new key replaces the old entry: the dashboard only ever needs the latest
 * (today, data version).
 */
export class LatestValueCache<T> {
  private entry: { key: string; value: Promise<T> } | null = null;

  get(key: string, compute: () => Promise<T>): Promise<T> {
    if (this.entry !== null && this.entry.key === key) return this.entry.value;
    const entry = { key, value: compute() };
    this.entry = entry;
    entry.value.catch(() => {
      if (this.entry === entry) this.entry = null;
    });
    return entry.value;
  }
}
