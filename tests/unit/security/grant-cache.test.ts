import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GrantCache } from '../../../src/security/grant-cache.js';
import type { UserGrants } from '../../../src/security/privileges.js';

const grants = (n: number): UserGrants => ({ source: 'config', grants: [{ catalog: '*', database: '*', table: '*', privileges: n ? ['ALTER'] : [] }], roles: [] });

test('caches per user until the TTL passes, and shares concurrent fetches', async () => {
  let now = 1000;
  let fetches = 0;
  const cache = new GrantCache({ ttlMs: 500, now: () => now });
  const fetch = async () => { fetches++; await new Promise((r) => setTimeout(r, 5)); return grants(fetches); };
  const key = GrantCache.key('ops', '127.0.0.1');
  const [a, b] = await Promise.all([cache.get(key, fetch), cache.get(key, fetch)]);
  assert.equal(fetches, 1);
  assert.equal(a, b);
  now += 499;
  await cache.get(key, fetch);
  assert.equal(fetches, 1);
  now += 2;
  await cache.get(key, fetch);
  assert.equal(fetches, 2);
  await cache.get(GrantCache.key('other', '127.0.0.1'), fetch);
  assert.equal(fetches, 3);
});

test('a failed fetch is not cached; invalidate forces a refetch', async () => {
  const cache = new GrantCache({ ttlMs: 60_000 });
  let n = 0;
  await assert.rejects(cache.get('k', async () => { n++; throw new Error('FE down'); }));
  await cache.get('k', async () => { n++; return grants(1); });
  await cache.get('k', async () => { n++; return grants(1); });
  assert.equal(n, 2);
  cache.invalidate('k');
  await cache.get('k', async () => { n++; return grants(1); });
  assert.equal(n, 3);
});

test('bounded size drops the oldest entry', async () => {
  const cache = new GrantCache({ ttlMs: 60_000, maxEntries: 2 });
  for (const k of ['a', 'b', 'c']) await cache.get(k, async () => grants(1));
  assert.equal(cache.size, 2);
});
