import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cachingSha2Hash, cachingSha2Token, generateScramble, nativePasswordHash, nativePasswordToken } from '../../../protocol/auth.js';
import { resolveLocalUsers } from '../../../src/users-file.js';
import { LocalAuthenticator } from '../../../src/session/local-auth.js';
import type { HandshakeResponse41 } from '../../../protocol/handshake.js';

const dir = mkdtempSync(join(tmpdir(), 'users-'));
function file(text: string): string {
  const p = join(dir, `u${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(p, text);
  return p;
}

function response(user: string, plugin: string, token: Buffer): HandshakeResponse41 {
  return { capabilities: 0, maxPacketSize: 0, characterSet: 33, mariadbCapabilities: 0, user, authResponse: token, database: null, authPluginName: plugin, attributes: new Map() };
}

describe('standalone users', () => {
  test('without a users file: the passwordless root, on loopback only', async () => {
    const u = await resolveLocalUsers(undefined, '127.0.0.1');
    assert.ok(u.builtin);
    assert.deepEqual([...u.users.keys()], ['root']);
    await assert.rejects(resolveLocalUsers(undefined, '0.0.0.0'), /refusing to listen on 0\.0\.0\.0/);
  });

  test('a users file with a passwordless user is refused on a non-loopback address', async () => {
    const f = file(`users:\n  - name: a\n    native_hash: '${nativePasswordHash('x')}'\n  - name: open\n`);
    await assert.rejects(resolveLocalUsers(f, '10.1.2.3'), /users that have no password: open/);
    assert.equal((await resolveLocalUsers(f, '::1')).users.size, 2);
  });

  test('malformed files: bad hashes (MySQL $A$005$ included), duplicates, plaintext passwords', async () => {
    await assert.rejects(resolveLocalUsers(file(`users:\n  - name: a\n    sha2_hash: '$A$005$abc'\n`), '127.0.0.1'), /sha2_hash must be hex\(SHA256\(SHA256\(password\)\)\)/);
    await assert.rejects(resolveLocalUsers(file(`users:\n  - name: a\n  - name: a\n`), '127.0.0.1'), /listed twice/);
    await assert.rejects(resolveLocalUsers(file(`users:\n  - name: a\n    password: secret\n`), '127.0.0.1'), (e: Error) => /users\.0/.test(e.message) && !e.message.includes('secret'));
    await assert.rejects(resolveLocalUsers(file(`users:\n  - name: a\n    native_hash: 'nothex'\n`), '127.0.0.1'), /users\.0\.native_hash/);
  });

  test('the authenticator: native check, switch to caching_sha2 for a SHA-256-only user, fast-auth success, denial', async () => {
    const f = file(`users:\n  - name: n\n    native_hash: '${nativePasswordHash('pw')}'\n  - name: s\n    sha2_hash: '${cachingSha2Hash('pw')}'\n`);
    const users = await resolveLocalUsers(f, '127.0.0.1');
    const scramble = generateScramble();
    const a = new LocalAuthenticator(users, scramble).start(response('n', 'mysql_native_password', nativePasswordToken('pw', scramble)));
    assert.equal(a.kind, 'ok');
    const s = new LocalAuthenticator(users, scramble);
    const step1 = s.start(response('s', 'mysql_native_password', nativePasswordToken('pw', scramble)));
    assert.equal(step1.kind, 'continue');
    assert.equal(step1.kind === 'continue' && step1.send[0].subarray(1, 22).toString(), 'caching_sha2_password');
    const step2 = s.next(cachingSha2Token('pw', scramble));
    assert.equal(step2.kind, 'ok');
    assert.deepEqual(step2.kind === 'ok' && [...step2.send[0]], [0x01, 0x03]);
    const bad = new LocalAuthenticator(users, scramble).start(response('n', 'mysql_native_password', nativePasswordToken('nope', scramble)));
    assert.deepEqual(bad, { kind: 'denied', user: 'n', usingPassword: true });
    const unknown = new LocalAuthenticator(users, scramble).start(response('who', 'mysql_native_password', Buffer.alloc(0)));
    assert.deepEqual(unknown, { kind: 'denied', user: 'who', usingPassword: false });
  });
});
