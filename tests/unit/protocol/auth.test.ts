import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  buildAuthSwitchRequest,
  cachingSha2Hash,
  cachingSha2Token,
  generateScramble,
  isClearPasswordSwitch,
  isPerformFullAuthentication,
  nativePasswordHash,
  nativePasswordToken,
  parseAuthSwitchRequest,
  verifyCachingSha2,
  verifyNativePassword,
} from '../../../protocol/auth.js';

// mysql2's own client-side implementations serve as an independent oracle (deep paths are
// outside its exports map, so load them by file).
const require = createRequire(import.meta.url);
const auth41 = require('../../../node_modules/mysql2/lib/auth_41.js') as {
  calculateToken(password: string, scramble1: Buffer, scramble2: Buffer): Buffer;
};
const sha2Plugin = require('../../../node_modules/mysql2/lib/auth_plugins/caching_sha2_password.js') as {
  calculateToken(password: string, scramble: Buffer): Buffer;
};

describe('authentication plugins', () => {
  test('a scramble is 20 printable bytes without NUL or $', () => {
    for (let i = 0; i < 200; i++) {
      const s = generateScramble();
      assert.equal(s.length, 20);
      for (const b of s) assert.ok(b > 0x20 && b < 0x7f && b !== 0x24, `byte ${b}`);
    }
  });

  test("PASSWORD('password') is the well-known *2470C0C0... hash", () => {
    assert.equal(nativePasswordHash('password'), '*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19');
  });

  test('the native token equals what the mysql2 client computes, and verifies against the stored hash only', () => {
    const scramble = generateScramble();
    const token = nativePasswordToken('s3cret!', scramble);
    assert.deepEqual(token, auth41.calculateToken('s3cret!', scramble.subarray(0, 8), scramble.subarray(8)));
    const stored = nativePasswordHash('s3cret!');
    assert.ok(verifyNativePassword(token, scramble, stored));
    assert.ok(!verifyNativePassword(nativePasswordToken('wrong', scramble), scramble, stored));
    assert.ok(!verifyNativePassword(token, generateScramble(), stored), 'a token is bound to its scramble');
    assert.ok(!verifyNativePassword(Buffer.alloc(0), scramble, stored), 'an empty answer does not pass a password');
  });

  test('a user without a password accepts only the empty answer', () => {
    const scramble = generateScramble();
    assert.ok(verifyNativePassword(Buffer.alloc(0), scramble, null));
    assert.ok(!verifyNativePassword(nativePasswordToken('x', scramble), scramble, null));
    assert.ok(verifyCachingSha2(Buffer.from([0]), scramble, null));
  });

  test('the caching_sha2 token equals what the mysql2 client computes and verifies against SHA256(SHA256(pw))', () => {
    const nonce = generateScramble();
    const token = cachingSha2Token('pässword', nonce);
    assert.deepEqual(token, sha2Plugin.calculateToken('pässword', nonce));
    const stored = cachingSha2Hash('pässword');
    assert.match(stored, /^[0-9a-f]{64}$/);
    assert.ok(verifyCachingSha2(token, nonce, stored));
    assert.ok(!verifyCachingSha2(cachingSha2Token('password', nonce), nonce, stored));
  });

  test('malformed stored hashes are reported, not silently accepted', () => {
    assert.throws(() => verifyNativePassword(Buffer.alloc(20), generateScramble(), 'plaintext'), /40 hex digits/);
    assert.throws(() => verifyCachingSha2(Buffer.alloc(32), generateScramble(), 'xyz'), /64 hex digits/);
  });

  test('caching_sha2 "perform full authentication" is exactly AuthMoreData 0x01 0x04', () => {
    // MySQL's sha2_password.h: fast_auth_success = 3, perform_full_authentication = 4
    assert.equal(isPerformFullAuthentication(Buffer.from([0x01, 0x04])), true);
    assert.equal(isPerformFullAuthentication(Buffer.from([0x01, 0x03])), false);
    // the RSA public key a server sends: AuthMoreData with a PEM body
    assert.equal(isPerformFullAuthentication(Buffer.from('\x01\x04-----BEGIN PUBLIC KEY-----', 'latin1')), false);
    assert.equal(isPerformFullAuthentication(Buffer.from([0x04])), false);
    assert.equal(isPerformFullAuthentication(Buffer.from([0x00, 0x04])), false);
  });

  test('an AuthSwitchRequest to mysql_clear_password is recognised by its exact plugin name', () => {
    assert.equal(isClearPasswordSwitch(buildAuthSwitchRequest('mysql_clear_password', Buffer.alloc(0))), true);
    // MariaDB's PAM plugin sends the name and NUL, no data
    assert.equal(isClearPasswordSwitch(Buffer.from('\xfemysql_clear_password\0', 'latin1')), true);
    assert.equal(isClearPasswordSwitch(buildAuthSwitchRequest('mysql_native_password', generateScramble())), false);
    assert.equal(isClearPasswordSwitch(Buffer.from('\xfemysql_clear_passwor\0', 'latin1')), false);
    assert.equal(isClearPasswordSwitch(Buffer.from('\xfemysql_clear_password_x\0', 'latin1')), false);
    assert.equal(isClearPasswordSwitch(Buffer.from('\x01mysql_clear_password\0', 'latin1')), false);
    // in place inside a larger buffer (the relay's packet walker)
    const buf = Buffer.concat([Buffer.from([9, 9, 9]), Buffer.from('\xfemysql_clear_password\0', 'latin1')]);
    assert.equal(isClearPasswordSwitch(buf, 3, 22), true);
  });

  test('AuthSwitchRequest carries the plugin name and the scramble with a trailing NUL', () => {
    const s = generateScramble();
    const p = buildAuthSwitchRequest('mysql_native_password', s);
    assert.equal(p[0], 0xfe);
    assert.equal(p[p.length - 1], 0);
    assert.deepEqual(parseAuthSwitchRequest(p), { pluginName: 'mysql_native_password', pluginData: s });
  });
});
