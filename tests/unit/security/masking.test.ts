import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MASK, isSecretKey, mask, maskText, maskRows, registerSecret, registerSecretsFrom, clearRegisteredSecrets } from '../../../src/security/masking.js';

describe('isSecretKey', () => {
  test('recognises the secret key names used by Paimon, S3, OSS and SQL', () => {
    for (const k of ['s3.secret-key', 's3.access-key', 'S3.ACCESS_KEY', 'fs.oss.accessKeySecret', 'password', 'refresh_password',
      'token', 'session-token', 's3.session.token', 'credential', 'dlf.access-key-id', 'private_key', 'apiKey', 'Authorization']) {
      assert.equal(isSecretKey(k), true, k);
    }
  });
  test('leaves ordinary keys alone', () => {
    for (const k of ['s3.endpoint', 'table', 'retain_max', 'warehouse', 'user', 'host', 'older_than', 'bucket']) {
      assert.equal(isSecretKey(k), false, k);
    }
  });
});

describe('maskText', () => {
  test('masks quoted SQL property pairs and keeps the others', () => {
    const out = maskText(`CREATE CATALOG c PROPERTIES ('s3.secret-key'='S3CRET-1', "s3.access_key" = "AKIAXYZ", 's3.endpoint'='http://h:9000')`);
    assert.ok(!out.includes('S3CRET-1') && !out.includes('AKIAXYZ'), out);
    assert.ok(out.includes(`'s3.secret-key'='${MASK}'`), out);
    assert.ok(out.includes(`'s3.endpoint'='http://h:9000'`), out);
  });
  test('masks named CALL arguments and key=value option lists', () => {
    const out = maskText(`CALL paimon.sys.x(table => 'db.t', password => 'it''s', options => 's3.secret-key=abc123,bucket=4')`);
    assert.ok(!out.includes("it''s") && !out.includes('abc123'), out);
    assert.ok(out.includes("'db.t'") && out.includes('bucket=4'), out);
  });
  test('masks JSON, URL user-info and SQL password clauses', () => {
    assert.equal(maskText('{"password":"hunter22","user":"bob"}'), `{"password":"${MASK}","user":"bob"}`);
    assert.equal(maskText('mysql://root:pw12@127.0.0.1:3306/x'), `mysql://root:${MASK}@127.0.0.1:3306/x`);
    const sql = maskText(`CREATE USER 'a'@'%' IDENTIFIED BY 'pw-one'; SET PASSWORD FOR 'a'@'%' = 'pw-two'; SET PASSWORD = PASSWORD('pw-three')`);
    for (const s of ['pw-one', 'pw-two', 'pw-three']) assert.ok(!sql.includes(s), sql);
  });
  test('does not mangle a parser message about an unexpected token', () => {
    assert.equal(maskText('unexpected token: ) at position 12'), 'unexpected token: ) at position 12');
  });
  test('registered secrets are masked wherever they appear', () => {
    registerSecret('the-configured-key-42');
    assert.equal(maskText('S3 said: InvalidAccessKeyId the-configured-key-42 is unknown'), `S3 said: InvalidAccessKeyId ${MASK} is unknown`);
  });
  afterEach(() => clearRegisteredSecrets());
});

describe('mask', () => {
  test('masks nested config values whose key names a secret, and leaves the input untouched', () => {
    const cfg = { catalogs: [{ name: 'p', properties: { 's3.secret-key': 'k1k1', 's3.endpoint': 'e' } }], upstream: { refresh_password: 'rp', host: 'h' } };
    const out = mask(cfg);
    assert.equal(out.catalogs[0]!.properties['s3.secret-key'], MASK);
    assert.equal(out.catalogs[0]!.properties['s3.endpoint'], 'e');
    assert.equal(out.upstream.refresh_password, MASK);
    assert.equal(cfg.catalogs[0]!.properties['s3.secret-key'], 'k1k1');
  });
  test('masks argument pairs by their name', () => {
    const out = mask([{ name: 'token', value: 'tok-1' }, { name: 'table', value: 'db.t' }]);
    assert.deepEqual(out, [{ name: 'token', value: MASK }, { name: 'table', value: 'db.t' }]);
  });
  test('masks error messages and stacks, keeps codes', () => {
    const e = Object.assign(new Error("connect failed: password='zz9zz'"), { code: 'X' });
    const out = mask(e) as unknown as { message: string; stack: string; code: string };
    assert.ok(!out.message.includes('zz9zz') && !out.stack.includes('zz9zz'));
    assert.equal(out.code, 'X');
  });
  test('a whole sub-object under a secret key is masked', () => {
    assert.deepEqual(mask({ credentials: { id: 'a', key: 'b' } }), { credentials: MASK });
  });
  test('handles cycles', () => {
    const a: Record<string, unknown> = { password: 'p123' };
    a.self = a;
    const out = mask(a);
    assert.equal(out.password, MASK);
    assert.equal(out.self, '[circular]');
  });
  test('registerSecretsFrom registers values under secret keys only', () => {
    registerSecretsFrom({ properties: { 's3.secret-key': 'abcd-secret-value', 's3.endpoint': 'http://endpoint-host' } });
    assert.equal(maskText('abcd-secret-value at http://endpoint-host'), `${MASK} at http://endpoint-host`);
    clearRegisteredSecrets();
  });
  test('property: a secret value under any secret-named key never survives in object or text form', () => {
    const secretKeys = fc.constantFrom('password', 's3.secret-key', 'token', 'access_key', 'session-token', 'credential');
    const secretValue = fc.stringMatching(/^[A-Za-z0-9]{6,20}$/).map((s) => `Zq${s}`);
    fc.assert(
      fc.property(secretKeys, secretValue, (k, v) => {
        assert.ok(!JSON.stringify(mask({ [k]: v })).includes(v));
        assert.ok(!maskText(`'${k}'='${v}'`).includes(v));
        assert.ok(!maskText(`${k}=${v}`).includes(v));
        assert.ok(!maskText(`${k} => "${v}"`).includes(v));
        assert.ok(!maskText(JSON.stringify({ [k]: v })).includes(v));
      }),
    );
  });
});

test('maskRows masks the value column of secret keys in SHOW-style rows', () => {
  const rows = maskRows([['s3.secret-key', 'abc'], ['s3.endpoint', 'http://x']], 0, 1);
  assert.deepEqual(rows, [['s3.secret-key', MASK], ['s3.endpoint', 'http://x']]);
});

test('large and pathological inputs are masked correctly (scanner, not a backtracking regex)', () => {
  const big = 'a.b-c_'.repeat(300_000) + " password='pw-tail-1'";
  assert.ok(maskText(big).endsWith(`password='${MASK}'`));
  const frag = 'secret'.repeat(200_000) + '=v1';
  assert.equal(maskText(frag), 'secret'.repeat(200_000) + `=${MASK}`);
  const urls = 'x://a:b@c '.repeat(100_000);
  assert.ok(!maskText(urls).includes(':b@'));
});
