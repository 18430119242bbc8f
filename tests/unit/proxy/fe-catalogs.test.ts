import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catalogFromFe, isRefreshCatalog, paimonCatalogNames, parseCreateCatalog } from '../../../src/fe-catalogs.js';

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
