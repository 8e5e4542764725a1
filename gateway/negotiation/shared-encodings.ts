// Encodings of the objects storage shares, per serializer, kept as long as the object itself lives. Storage hands
// out deep-frozen objects (backends/storage.ts), so an object's bytes cannot change: encoded once when it is
// written or first read, they serve every later GET of it and every list page that contains it, which is how a
// page of 500 objects becomes a copy of bytes instead of 500 object walks. Each entry is a private Buffer rather
// than a slice of Node's shared pool, which would keep a whole 8 KiB pool block alive per entry.
import type { Serializer } from './serializer.js';

const bySerializer = new WeakMap<Serializer, WeakMap<object, Buffer>>();

function cacheOf(serializer: Serializer): WeakMap<object, Buffer> {
  let cache = bySerializer.get(serializer);
  if (!cache) {
    cache = new WeakMap();
    bySerializer.set(serializer, cache);
  }
  return cache;
}

/** Whether `value` may be cached: only storage's frozen objects are known never to change under their bytes. */
export function isShareable(value: unknown): value is object {
  return typeof value === 'object' && value !== null && Object.isFrozen(value);
}

/** The encoding of a shareable object, made on first use and kept with the object. */
export function encodeShared(serializer: Serializer, value: object): Buffer {
  const cache = cacheOf(serializer);
  let encoded = cache.get(value);
  if (!encoded) {
    const fresh = serializer.encode(value);
    encoded = Buffer.allocUnsafeSlow(fresh.length);
    fresh.copy(encoded);
    cache.set(value, encoded);
  }
  return encoded;
}

/** The encoding already made of `value`, without making one (a full list must not fill the cache by itself). */
export function sharedEncoding(serializer: Serializer, value: unknown): Buffer | undefined {
  return typeof value === 'object' && value !== null ? bySerializer.get(serializer)?.get(value) : undefined;
}
