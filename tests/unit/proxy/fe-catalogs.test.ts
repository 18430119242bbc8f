import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catalogFromFe, FeCatalogDiscovery, isRefreshCatalog, paimonCatalogNames, parseCreateCatalog } from '../../../src/fe-catalogs.js';
import { CatalogSet } from '../../../src/catalogs.js';
import type { ProcedureCatalog } from '../../../procedures/framework/catalog.js';

// Shaped as Doris prints them (doris-website sql-manual SHOW-CREATE-CATALOG: "key" = "value" lines,
// sensitive values as *XXX; SHOW CATALOGS columns CatalogId, CatalogName, Type, ...).
const CREATE = '\nCREATE CATALOG `pm` COMMENT "lake"\n PROPERTIES (\n"type" = "paimon",\n"paimon.catalog.type" = "filesystem",\n"warehouse" = "s3://bucket/wh",\n"s3.endpoint" = "http://127.0.0.1:9000",\n"s3.access_key" = "AKIA1234",\n"s3.secret_key" = "*XXX",\n"note" = "say "hi", ok"\n);';

test('SHOW CATALOGS: only paimon catalogs are taken', () => {
  const rows = [
    { CatalogId: 0, CatalogName: 'internal', Type: 'internal', IsCurrent: 'Yes' },
    { CatalogId: 11, CatalogName: 'pm', Type: 'paimon', IsCurrent: '' },
    { CatalogId: 12, CatalogName: 'hv', Type: 'hms', IsCurrent: '' },
  ];
  assert.deepEqual(paimonCatalogNames(rows), ['pm']);
});

test('SHOW CREATE CATALOG properties are parsed, quotes unescaped', () => {
  const p = parseCreateCatalog(CREATE);
  assert.equal(p.warehouse, 's3://bucket/wh');
  assert.equal(p['s3.secret_key'], '*XXX');
  assert.equal(p.note, 'say "hi", ok');
  assert.equal(Object.keys(p).length, 7);
  assert.throws(() => parseCreateCatalog('CREATE TABLE t (a int)'), /PROPERTIES/);
});

test('a hidden secret names the catalog and key; an override supplies it', () => {
  const props = parseCreateCatalog(CREATE);
  const missing = catalogFromFe('pm', props);
  assert.equal(missing.ok, false);
  assert.match(!missing.ok ? missing.error : '', /catalog 'pm'.*s3\.secret_key.*catalogs_from_fe\.overrides\.pm/);
  const ok = catalogFromFe('pm', props, { properties: { 's3.secret_key': 'sekret-value-1' } });
  assert.ok(ok.ok);
  if (ok.ok) {
    assert.equal(ok.catalog.type, 'filesystem');
    assert.equal(ok.catalog.warehouse, 's3://bucket/wh');
    assert.equal(ok.catalog.properties['s3.secret_key'], 'sekret-value-1');
    assert.equal(ok.catalog.properties.type, undefined);
  }
  const rest = catalogFromFe('r', { type: 'paimon', 'paimon.catalog.type': 'rest', uri: 'http://h:1', warehouse: 'w', 'paimon.rest.token.provider': 'bear', 'paimon.rest.token': 'tok-123456' });
  assert.ok(rest.ok);
  const dlf = catalogFromFe('d', { 'paimon.catalog.type': 'dlf', warehouse: 'w' });
  assert.match(!dlf.ok ? dlf.error : '', /dlf.*not supported/);
  assert.ok(isRefreshCatalog('  refresh catalog pm'));
  assert.ok(!isRefreshCatalog('REFRESH TABLE pm.a.b'));
});

/**
 * The discovery's lifecycle over a scripted FE connection (the answers are shaped as above; what a
 * real FE is asked is checked against MariaDB in tests/integration/ops-from-fe.test.ts).
 */
test('discovery rounds never overlap, keep unchanged catalogs, close replaced ones and stop on close', async () => {
  let warehouse = '/tmp/wh-a';
  let inFlight = 0;
  let maxInFlight = 0;
  let rounds = 0;
  const closed: string[] = [];
  const built: string[] = [];
  const d = new FeCatalogDiscovery(new CatalogSet([]), {
    host: '127.0.0.1', port: 1, user: 'svc', overrides: {}, staticNames: new Set(), warn: () => undefined,
    build: (c) => {
      built.push(c.warehouse);
      const w = c.warehouse;
      return { name: c.name, type: 'filesystem', warehouse: w, close: async () => void closed.push(w) } as unknown as ProcedureCatalog;
    },
    connect: async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      rounds++;
      const create = `CREATE CATALOG \`pm\` PROPERTIES (\n"type" = "paimon",\n"paimon.catalog.type" = "filesystem",\n"warehouse" = "${warehouse}"\n);`;
      return {
        query: async (sql: string) => {
          await new Promise((r) => setTimeout(r, 20));
          return [sql === 'SHOW CATALOGS' ? [{ CatalogId: 1, CatalogName: 'pm', Type: 'paimon' }] : [{ CreateCatalog: create }]];
        },
        end: async () => void inFlight--,
      };
    },
  });
  assert.equal(await d.refresh(), true);
  const first = d.get('pm');
  // Three calls during one round: one more round after it, shared by the later two.
  const calls = [d.refresh(), d.refresh(), d.refresh()];
  assert.deepEqual(await Promise.all(calls), [true, true, true]);
  assert.equal(rounds, 3);
  assert.equal(maxInFlight, 1, 'rounds never overlap');
  assert.equal(d.get('pm'), first, 'an unchanged definition keeps its catalog');
  assert.deepEqual(built, ['/tmp/wh-a']);
  warehouse = '/tmp/wh-b';
  assert.equal(await d.refresh(), true);
  assert.notEqual(d.get('pm'), first, 'a changed definition is rebuilt');
  assert.deepEqual(built, ['/tmp/wh-a', '/tmp/wh-b']);
  d.start(10);
  await d.close();
  const after = rounds;
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(rounds, after, 'no round after close');
  assert.equal(await d.refresh(), false);
  assert.deepEqual(closed.sort(), ['/tmp/wh-a', '/tmp/wh-b'], 'close closes the discovered catalogs and the replaced one');
  assert.equal(d.get('pm'), undefined);
});
