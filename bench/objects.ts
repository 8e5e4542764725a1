// The objects the bench writes: ConfigMap-like, with `data` values adding up to a given size, serialized once per
// size so that the load generator spends its CPU on requests, not on JSON.stringify.

const dataCache = new Map<number, string>();

/** A `data` map of 128-byte values totalling about `bytes` (keys k00, k01, ...). */
export function dataJson(bytes: number): string {
  let cached = dataCache.get(bytes);
  if (cached === undefined) {
    const data: Record<string, string> = {};
    const count = Math.max(1, Math.round(bytes / 128));
    for (let i = 0; i < count; i++)
      data[`k${String(i).padStart(2, '0')}`] = String.fromCharCode(97 + (i % 26)).repeat(128);
    cached = JSON.stringify(data);
    dataCache.set(bytes, cached);
  }
  return cached;
}

export function configMapJson(name: string, bytes: number, namespace?: string): string {
  const ns = namespace === undefined ? '' : `,"namespace":"${namespace}"`;
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"${ns}},"data":${dataJson(bytes)}}`;
}

/** What the gateway answers for a GET of a 1 KiB ConfigMap, for the bare server to answer byte for byte alike. */
export function storedConfigMapJson(): string {
  return (
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bench-0","namespace":"bench","uid":"53cab917-0d70-4e8d-bc35-f25d2e858c24",` +
    `"creationTimestamp":"2026-01-01T00:00:00Z","resourceVersion":"12345"},"data":${dataJson(1024)}}`
  );
}

export function namespaceJson(name: string): string {
  return `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${name}"}}`;
}
