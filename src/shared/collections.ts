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
