/** Adds `value` to the list `map` keeps under `key`, starting the list when there is none (no copy per addition). */
export function appendTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
