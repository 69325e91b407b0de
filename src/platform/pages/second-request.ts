/** Distinct keys a cache remembers as computed once (decision 0375): a page asked again among as many others is kept. */
export const ADMISSION_WINDOW = 8192;

/**
 * Which keys a cache keeps: those computed a second time within a while (decision 0375). Most pages of one record are
 * asked for once (a patient's record opened by one person, once); keeping them filled the bounds with entries dropped
 * unused, and holding them cost the collector more than their render. A key is admitted when it was computed before
 * among the last `window` to `2 × window` distinct keys seen (two generations of a set: the older one dropped whole
 * when the newer fills), so a page opened again (after a save, by a colleague, in the same visit) is kept from then on.
 * A window of 0 admits every key at once (tests of what a cache does with what it keeps).
 */
export class SecondRequest<K> {
  private recent = new Set<K>();
  private older = new Set<K>();

  constructor(private readonly window: number) {}

  /** Whether `key` was seen lately; it is noted as seen either way. */
  admits(key: K): boolean {
    if (this.window === 0) return true;
    if (this.recent.has(key)) return true;
    const seen = this.older.has(key);
    this.recent.add(key);
    if (this.recent.size >= this.window) {
      this.older = this.recent;
      this.recent = new Set();
    }
    return seen;
  }
}
