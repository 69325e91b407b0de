/** Items grouped by a key (an id, a documento key), each group in the items' order, groups in first-seen order. */
export function groupBy<T, K extends string | number = number>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const item of items) {
    const list = map.get(key(item));
    if (list) list.push(item);
    else map.set(key(item), [item]);
  }
  return map;
}

/**
 * `build` remembered for its latest key only: for what depends on the day (a form's schema on `today`), so it is
 * built once a day rather than on every request, and a key that changes builds it again.
 */
export function onePerKey<K, V>(build: (key: K) => V): (key: K) => V {
  let last: { key: K; value: V } | null = null;
  return (key) => {
    if (last === null || last.key !== key) last = { key, value: build(key) };
    return last.value;
  };
}
