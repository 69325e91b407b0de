// Possible duplicate people among thousands (decision 0043's rule, found in linear time: decision 0057).
//
// Two names are similar (similarNames in patients/patient.rules.ts) when their words, joined, are equal or one edit
// apart (optimal string alignment), or are the same words in another order. Comparing each row with every earlier
// row born the same day was quadratic: 20,000 rows of one birth date took 875 s. Here each name gets a few keys
// such that two similar names born the same day always share one, and only rows that share a key are compared:
//
// - the sorted words (the same words in another order);
// - for a pair whose shorter joined name has m characters, with k = ⌊m/2⌋: its first k characters, or its last
//   m − k − 1. One edit at position p leaves the first k alike when p ≥ k, and the last m − k − 1 when p < k (a
//   swap touches p and p + 1; an insertion shifts the rest by one). A name of length L may meet partners of length
//   L − 1, L or L + 1, so it takes the keys for m = L and m = L − 1.
//
// A group (the rows that share one key) holds at most MAX_SIMILAR_GROUP rows of the file: a file with more rows of
// one birth date and nearly the same name is not a list of different people, and comparing them would be
// quadratic again. It is refused with a message that names the date and a line.

import { nameWords } from '../patients/patient.rules.js';

/** Rows of the file that may share a key (a birth date and nearly the same name) before the file is refused. */
export const MAX_SIMILAR_GROUP = 50;

/** A name ready to be compared: its words joined, and sorted then joined. */
export interface NameKey {
  joined: string;
  sorted: string;
}

export function nameKeyOf(nombre: string, apellido: string): NameKey | null {
  const words = nameWords(nombre, apellido);
  if (words.length === 0) return null;
  return { joined: words.join(' '), sorted: [...words].sort().join(' ') };
}

/** The keys of a name born on `date`: any two similar names born the same day share at least one. */
export function blockingKeys(date: string, name: NameKey): string[] {
  const s = name.joined;
  const keys = [`${date}|w|${name.sorted}`];
  for (const m of s.length > 1 ? [s.length, s.length - 1] : [s.length]) {
    const k = Math.floor(m / 2);
    keys.push(`${date}|${m}|p|${s.slice(0, k)}`, `${date}|${m}|s|${s.slice(s.length - (m - k - 1))}`);
  }
  return keys;
}

/**
 * Whether the optimal string alignment distance of a and b is at most 1 (what editDistance(a, b, 1) <= 1 says), in
 * one pass and without allocating a table.
 */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const la = a.length;
  const lb = b.length;
  if (la - lb > 1 || lb - la > 1) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (la > lb) return a.slice(i + 1) === b.slice(i);
  if (lb > la) return a.slice(i) === b.slice(i + 1);
  if (a.slice(i + 1) === b.slice(i + 1)) return true;
  return i + 1 < la && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

/** similarNames on prepared keys. */
export function similarKeys(a: NameKey, b: NameKey): boolean {
  return a.joined === b.joined || a.sorted === b.sorted || withinOneEdit(a.joined, b.joined);
}

/** The refusal of a file with too many rows of one birth date and nearly the same name. */
export class SimilarGroupTooLarge extends Error {
  constructor(
    readonly date: string,
    readonly line: number,
  ) {
    super(`more than ${MAX_SIMILAR_GROUP} rows born ${date} with nearly the same name`);
  }
}

/**
 * A key as a small integer (FNV-1a, 30 bits): an index of 20,000 rows keeps 100,000 numbers, not 100,000 strings.
 * Two keys that meet by chance only put two names side by side; similarKeys still decides.
 */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h & 0x3fffffff;
}

interface Entry<T> {
  item: T;
  name: NameKey;
}

/**
 * People indexed by their keys; `find` returns those similar to a name born on a date, each once. Most groups hold
 * one person: a group is that person's entry until a second one joins it. With the keys hashed, 20,000 rows' index
 * takes ~8 MB of the worker's heap, not ~45 (strings, and an array per group).
 */
export class SimilarIndex<T> {
  private readonly groups = new Map<number, Entry<T> | Entry<T>[]>();

  /** Adds a person; with `bound`, throws SimilarGroupTooLarge when one of its groups would pass `maxGroup`. */
  add(date: string, name: NameKey, item: T, bound?: { maxGroup: number; line: number }): void {
    const entry: Entry<T> = { item, name };
    for (const key of new Set(blockingKeys(date, name).map(hashOf))) {
      const group = this.groups.get(key);
      if (group === undefined) this.groups.set(key, entry);
      else if (!Array.isArray(group)) this.groups.set(key, [group, entry]);
      else {
        if (bound && group.length >= bound.maxGroup) throw new SimilarGroupTooLarge(date, bound.line);
        group.push(entry);
      }
    }
  }

  find(date: string, name: NameKey): T[] {
    const found = new Set<T>();
    for (const key of blockingKeys(date, name)) {
      const group = this.groups.get(hashOf(key));
      if (group === undefined) continue;
      for (const entry of Array.isArray(group) ? group : [group]) {
        if (!found.has(entry.item) && similarKeys(name, entry.name)) found.add(entry.item);
      }
    }
    return [...found];
  }
}
