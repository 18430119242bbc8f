import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, isLoopbackHost, loadConfig, parseHostPort } from '../../../src/config.js';

const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('configuration loading', () => {
  test('the embedded default: standalone, loopback 9031, one filesystem catalog paimon in ./warehouse', async () => {
    const { config, file: f } = await loadConfig({ env: {}, cwd: '/srv/x' });
    assert.equal(f, null);
    assert.equal(config.upstream, undefined);
    assert.equal(config.listen.host, '127.0.0.1');
    assert.equal(config.listen.port, 9031);
    assert.deepEqual(config.catalogs.map((c) => [c.name, c.type, c.warehouse]), [['paimon', 'filesystem', '/srv/x/warehouse']]);
  });

  test('file < environment < command line', async () => {
    const f = file('a.yaml', 'listen:\n  port: 1000\nupstream:\n  host: fe1\n  port: 9030\ncatalogs:\n  - name: lake\n    warehouse: s3://b/w\n');
    const a = await loadConfig({ file: f, env: {} });
    assert.equal(a.config.listen.port, 1000);
    assert.equal(a.config.upstream?.host, 'fe1');
    const b = await loadConfig({ file: f, env: { PPP_LISTEN_PORT: '2000', PPP_UPSTREAM: 'fe2:9131' } });
    assert.equal(b.config.listen.port, 2000);
    assert.deepEqual([b.config.upstream?.host, b.config.upstream?.port], ['fe2', 9131]);
    const c = await loadConfig({ file: f, env: { PPP_LISTEN_PORT: '2000' }, overrides: { port: '3000', upstream: 'none', warehouse: '/data/wh' } });
    assert.equal(c.config.listen.port, 3000);
    assert.equal(c.config.upstream, undefined);
    assert.deepEqual(c.config.catalogs.map((x) => [x.name, x.warehouse]), [['lake', 's3://b/w'], ['paimon', '/data/wh']]);
  });

  test('upstream TLS and PROXY protocol from the environment', async () => {
    const { config } = await loadConfig({ env: { PPP_UPSTREAM: 'fe:9030', PPP_UPSTREAM_TLS: 'true', PPP_UPSTREAM_TLS_CA: 'ca.pem', PPP_UPSTREAM_PROXY_PROTOCOL: 'on' }, cwd: '/etc/p' });
    assert.equal(config.upstream?.tls, true);
    assert.equal(config.upstream?.tls_ca, '/etc/p/ca.pem');
    assert.equal(config.upstream?.proxy_protocol, true);
    assert.equal(config.upstream?.tls_verify, true);
    await assert.rejects(loadConfig({ env: { PPP_UPSTREAM_TLS: 'true' } }), /need an upstream/);
    await assert.rejects(loadConfig({ env: { PPP_UPSTREAM: 'fe', PPP_UPSTREAM_TLS: 'maybe' } }), /PPP_UPSTREAM_TLS: expected true or false/);
  });

  test('workers: default 1, from PPP_WORKERS or --workers, and only whole numbers', async () => {
    assert.equal((await loadConfig({ env: {} })).config.listen.workers, 1);
    assert.equal((await loadConfig({ env: { PPP_WORKERS: '4' } })).config.listen.workers, 4);
    assert.equal((await loadConfig({ env: { PPP_WORKERS: '4' }, overrides: { workers: '2' } })).config.listen.workers, 2);
    await assert.rejects(loadConfig({ env: { PPP_WORKERS: '0' } }), /PPP_WORKERS: expected a whole number of at least 1/);
    await assert.rejects(loadConfig({ env: {}, overrides: { workers: 'two' } }), /--workers: expected a whole number/);
  });

  test('PPP_WAREHOUSE points the paimon catalog elsewhere; JSON files work too', async () => {
    const f = file('b.json', JSON.stringify({ catalogs: [{ name: 'paimon', warehouse: '/old' }] }));
    const { config } = await loadConfig({ file: f, env: { PPP_WAREHOUSE: 'rel/wh' }, cwd: '/home/u' });
    assert.deepEqual(config.catalogs.map((x) => x.warehouse), ['/home/u/rel/wh']);
  });

  test('every mistake is reported with its path, and values are not echoed', async () => {
    const f = file('bad.yaml', 'listen:\n  port: 70000\n  hots: x\nupstream:\n  port: 1\ncatalogs:\n  - name: 9bad\n    warehouse: /w\n    properties:\n      s3.secret-key: TOPSECRETVALUE\n    extra: 1\n');
    await assert.rejects(loadConfig({ file: f, env: {} }), (e: Error) => {
      assert.ok(e instanceof ConfigError);
      for (const path of ['listen.port', 'listen', 'upstream.host', 'catalogs.0.name', 'catalogs.0']) assert.match(e.message, new RegExp(`  ${path.replace(/\./g, '\\.')}: `), path);
      assert.doesNotMatch(e.message, /TOPSECRETVALUE/);
      return true;
    });
  });

  test('unreadable or malformed files and bad overrides give precise errors', async () => {
    await assert.rejects(loadConfig({ file: join(dir, 'missing.yaml'), env: {} }), /cannot read config file .*missing\.yaml: ENOENT/);
    await assert.rejects(loadConfig({ file: file('c.yaml', 'listen: [1,'), env: {} }), /is not valid YAML/);
    await assert.rejects(loadConfig({ file: file('d.yaml', '- 1\n'), env: {} }), /top level must be a mapping/);
    await assert.rejects(loadConfig({ env: { PPP_LISTEN_PORT: 'abc' } }), /PPP_LISTEN_PORT: port must be an integer/);
    await assert.rejects(loadConfig({ env: {}, overrides: { upstream: 'fe:99999' } }), /--upstream: port must be/);
    await assert.rejects(loadConfig({ env: { PPP_TLS_CERT: '/c' } }), /must be set together/);
    await assert.rejects(loadConfig({ file: file('e.yaml', 'catalogs:\n  - name: a\n    warehouse: /1\n  - name: A\n    warehouse: /2\n'), env: {} }), /the name A is used twice/);
  });

  test('relative users_file and TLS paths are taken from the config file directory', async () => {
    const f = file('f.yaml', 'users_file: users.yaml\nlisten:\n  tls:\n    cert: c.pem\n    key: k.pem\n');
    const { config } = await loadConfig({ file: f, env: {} });
    assert.equal(config.users_file, join(dir, 'users.yaml'));
    assert.equal(config.listen.tls?.cert, join(dir, 'c.pem'));
  });

  test('host:port parsing and loopback detection', () => {
    assert.deepEqual(parseHostPort('fe.example:9030', 'x'), { host: 'fe.example', port: 9030 });
    assert.deepEqual(parseHostPort('[::1]:9', 'x'), { host: '::1', port: 9 });
    assert.deepEqual(parseHostPort('fe', 'x'), { host: 'fe', port: 9030 });
    assert.ok(isLoopbackHost('127.0.0.1') && isLoopbackHost('::1') && isLoopbackHost('localhost') && isLoopbackHost('127.1.2.3'));
    assert.ok(!isLoopbackHost('0.0.0.0') && !isLoopbackHost('10.0.0.1') && !isLoopbackHost('::'));
  });
});
