/**
 * A REST catalog in the proxy's configuration, as Doris spells its properties (`type: rest`,
 * `uri`, `warehouse`, `token.provider: bear`, `token`; the last two also inside `properties`):
 * validated at start with a message per mistake, never echoing the token; built into a
 * RestCatalog without contacting the server.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configSchema } from '../../../../src/config-schema.js';
import { buildCatalog } from '../../../../src/catalogs.js';
import { RestCatalog } from '../../../../src/paimon/catalog/rest-catalog.js';

const TOKEN = 'cfg-token-5d1a';

function issues(catalog: Record<string, unknown>): string[] {
  const r = configSchema.safeParse({ catalogs: [{ name: 'lake', ...catalog }] });
  if (r.success) return [];
  return r.error.issues.map((i) => `${i.path.slice(2).join('.')}: ${i.message}`);
}

describe('REST catalog configuration', () => {
  test('type rest with uri, warehouse, token.provider bear and token is valid, top-level or in properties', () => {
    assert.deepEqual(issues({ type: 'rest', uri: 'http://127.0.0.1:8181', warehouse: 'wh', 'token.provider': 'bear', token: TOKEN }), []);
    assert.deepEqual(issues({ type: 'rest', uri: 'https://dlf.example.com/x', warehouse: 'wh', properties: { 'token.provider': 'bear', token: TOKEN } }), []);
  });

  test('each missing or wrong option has its own message, and the token is never in one', () => {
    const all = [
      ...issues({ type: 'rest', warehouse: 'wh', 'token.provider': 'bear', token: TOKEN }),
      ...issues({ type: 'rest', uri: 'thrift://h:9083', warehouse: 'wh', 'token.provider': 'bear', token: TOKEN }),
      ...issues({ type: 'rest', uri: 'http://h', warehouse: 'wh', token: TOKEN }),
      ...issues({ type: 'rest', uri: 'http://h', warehouse: 'wh', 'token.provider': 'dlf', properties: { 'dlf.access-key-id': 'ak' } }),
      ...issues({ type: 'rest', uri: 'http://h', warehouse: 'wh', 'token.provider': 'oauth' }),
      ...issues({ type: 'rest', uri: 'http://h', warehouse: 'wh', 'token.provider': 'bear' }),
      ...issues({ type: 'rest', uri: 'http://h', warehouse: 'wh', 'token.provider': 'bear', token: TOKEN, properties: { token: 'other-token-x' } }),
      ...issues({ type: 'filesystem', warehouse: '/wh', token: TOKEN }),
    ];
    const expected = [
      /^uri: a REST catalog needs uri/,
      /^uri: uri must be an http:\/\/ or https:\/\/ URL/,
      /^token.provider: a REST catalog needs token.provider: bear/,
      /^dlf.access-key-secret: token.provider dlf needs dlf.access-key-secret \(or paimon.rest.dlf.access-key-secret/,
      /^token.provider: token.provider must be 'bear' or 'dlf', got 'oauth'/,
      /^token: token.provider bear needs token/,
      /^token: token is given both as a key and in properties/,
      /^token: token and token.provider are REST catalog options; this catalog has type filesystem/,
    ];
    assert.equal(all.length, expected.length, all.join('\n'));
    expected.forEach((re, i) => assert.match(all[i]!, re));
    for (const m of all) assert.ok(!m.includes(TOKEN) && !m.includes('other-token-x'), m);
  });

  test("Doris's spelling of a DLF catalog is accepted (paimon.rest. prefix), and what DLF cannot do here is named", () => {
    const doris = { type: 'rest', uri: 'http://cn-hangzhou-vpc.dlf.aliyuncs.com', warehouse: 'wh', properties: { 'paimon.rest.token.provider': 'dlf', 'paimon.rest.dlf.access-key-id': 'ak-1', 'paimon.rest.dlf.access-key-secret': 'sk-secret-1' } };
    assert.deepEqual(issues(doris), []);
    const c = buildCatalog(configSchema.parse({ catalogs: [{ name: 'dlf', ...doris }] }).catalogs[0]!);
    assert.ok(c instanceof RestCatalog);
    const publicEndpoint = configSchema.parse({ catalogs: [{ name: 'pub', ...doris, uri: 'https://dlfnext.cn-hangzhou.aliyuncs.com' }] }).catalogs[0]!;
    assert.throws(() => buildCatalog(publicEndpoint), (e: Error) => /dlf\.signing-algorithm 'openapi'/.test(e.message) && !e.message.includes('sk-secret-1'));
  });

  test('buildCatalog makes a RestCatalog (warehouse kept as a name, not a path) without asking the server', () => {
    const cfg = configSchema.parse({ catalogs: [{ name: 'lake', type: 'rest', uri: 'http://127.0.0.1:9', warehouse: 'wh', properties: { 'token.provider': 'bear', token: TOKEN, 's3.endpoint': 'http://s3' } }] });
    const c = buildCatalog(cfg.catalogs[0]!);
    assert.ok(c instanceof RestCatalog);
    assert.equal(c.type, 'rest');
    assert.equal(c.name, 'lake');
    assert.equal(c.warehouse, 'wh');
    assert.equal(c.supportsVersionManagement, true);
  });

});
