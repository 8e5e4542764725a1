// A Map used as a cache, kept to a fixed number of entries: setting a key makes it the newest, and when the map is
// full the oldest goes first. A Map iterates in insertion order, so its first key is the oldest.
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key);
  if (map.size >= limit) map.delete(map.keys().next().value as K);
  map.set(key, value);
}
