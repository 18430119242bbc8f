/**
 * The order in which Java's `HashMap<String, ?>` iterates keys put into it one by one: by
 * bucket (`hash ^ (hash >>> 16)` masked by the table size, which doubles from 16 whenever the
 * map holds more than three quarters of it), then by insertion within a bucket (a resize keeps
 * that order). Paimon reads a schema's options into a HashMap, so its `$options` and
 * `$schemas.options` list them in this order. Bins long enough to become trees (eight keys
 * in one bucket of a table of 64 or more) are not modelled: their order is by hash instead.
 */

/** `String.hashCode()`: over UTF-16 code units, in 32-bit arithmetic. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

export function javaHashMapOrder(keys: readonly string[]): string[] {
  let capacity = 16;
  while (keys.length > capacity * 0.75) capacity *= 2;
  const bucketOf = (k: string): number => {
    const h = javaStringHash(k);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  return keys
    .map((k, i) => ({ k, i, b: bucketOf(k) }))
    .sort((x, y) => x.b - y.b || x.i - y.i)
    .map((x) => x.k);
}
