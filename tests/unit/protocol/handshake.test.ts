import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildHandshakeResponse41,
  buildHandshakeV10,
  buildSslRequest,
  editGreetingCapabilities,
  editHandshakeResponse,
  isSslRequest,
  parseChangeUser,
  parseHandshakeResponse41,
  parseHandshakeV10,
} from '../../../protocol/handshake.js';
import {
  CLIENT_COMPRESS,
  CLIENT_CONNECT_ATTRS,
  CLIENT_CONNECT_WITH_DB,
  CLIENT_DEPRECATE_EOF,
  CLIENT_LONG_PASSWORD,
  CLIENT_MYSQL,
  CLIENT_PLUGIN_AUTH,
  CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
  CLIENT_PROTOCOL_41,
  CLIENT_SECURE_CONNECTION,
  CLIENT_SSL,
  CLIENT_TRANSACTIONS,
} from '../../../protocol/constants.js';

// Greeting payload captured from Debian's MariaDB 10.11.19 (tests/setup/mariadb.sh).
const MARIADB_GREETING = Buffer.from(
  '0a352e352e352d31302e31312e31392d4d6172696144422d302b646562313275312d6c6f6700060000007a307e4e4a66435c00fef7080200ff81150000000000001d00000026466c6e642940457a582963006d7973716c5f6e61746976655f70617373776f726400',
  'hex',
);

describe('HandshakeV10', () => {
  test('parses a real MariaDB greeting: version, connection id, 20-byte scramble, extended capabilities', () => {
    const h = parseHandshakeV10(MARIADB_GREETING);
    assert.equal(h.serverVersion, '5.5.5-10.11.19-MariaDB-0+deb12u1-log');
    assert.equal(h.connectionId, 6);
    assert.equal(h.authPluginData.length, 20);
    assert.equal(h.authPluginData.toString('latin1'), 'z0~NJfC\\&Flnd)@EzX)c');
    assert.equal(h.authPluginName, 'mysql_native_password');
    assert.equal(h.capabilities & CLIENT_MYSQL, 0, 'MariaDB clears bit 0');
    assert.equal(h.mariadbCapabilities, 0x1d);
    assert.equal(h.characterSet, 8);
    assert.equal(h.statusFlags, 2);
  });

  test('re-encoding the parsed MariaDB greeting reproduces its bytes', () => {
    assert.deepEqual(buildHandshakeV10(parseHandshakeV10(MARIADB_GREETING)), MARIADB_GREETING);
  });

  test('editing the capabilities changes only the capability words and the extended bytes', () => {
    const h = parseHandshakeV10(MARIADB_GREETING);
    const caps = (h.capabilities & ~CLIENT_COMPRESS) | CLIENT_SSL;
    const edited = editGreetingCapabilities(MARIADB_GREETING, caps, true);
    const e = parseHandshakeV10(edited);
    assert.equal(e.capabilities, caps >>> 0);
    assert.equal(e.mariadbCapabilities, 0);
    assert.deepEqual(e.authPluginData, h.authPluginData);
    assert.equal(e.connectionId, h.connectionId);
    let diff = 0;
    for (let i = 0; i < edited.length; i++) if (edited[i] !== MARIADB_GREETING[i]) diff++;
    assert.ok(diff <= 4, `${diff} bytes changed`);
  });

  test('a proxy-built greeting (MySQL style, plugin auth) parses back', () => {
    const caps = CLIENT_LONG_PASSWORD | CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_DEPRECATE_EOF;
    const built = buildHandshakeV10({
      protocolVersion: 10, serverVersion: '5.7.99-paimon-proxy', connectionId: 77, authPluginData: Buffer.from('abcdefghijklmnopqrst'),
      capabilities: caps, characterSet: 33, statusFlags: 2, authPluginName: 'caching_sha2_password', mariadbCapabilities: 0,
    });
    const h = parseHandshakeV10(built);
    assert.equal(h.authPluginData.toString(), 'abcdefghijklmnopqrst');
    assert.equal(h.capabilities, caps);
    assert.equal(h.authPluginName, 'caching_sha2_password');
    // auth_plugin_data_len = 21 and part 2 = 12 bytes + NUL, per the spec
    const nul = built.indexOf(0, 1);
    assert.equal(built[nul + 1 + 4 + 8 + 1 + 2 + 1 + 2 + 2], 21);
  });
});

describe('SSLRequest and HandshakeResponse41', () => {
  const base = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_TRANSACTIONS | CLIENT_LONG_PASSWORD;

  test('an SSLRequest is the 32-byte prefix with CLIENT_SSL', () => {
    const r = buildSslRequest({ capabilities: base, maxPacketSize: 1 << 24, characterSet: 45 });
    assert.equal(r.length, 32);
    assert.ok(isSslRequest(r));
    assert.ok(!isSslRequest(Buffer.alloc(32)));
  });

  test('parses user, auth response, database, plugin and attributes in each auth-data encoding', () => {
    for (const extra of [0, CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA]) {
      const caps = base | extra | CLIENT_CONNECT_WITH_DB | CLIENT_CONNECT_ATTRS;
      const msg = {
        capabilities: caps, maxPacketSize: 16777216, characterSet: 33, mariadbCapabilities: 0, user: 'alice',
        authResponse: Buffer.alloc(20, 7), database: 'paimon.sales', authPluginName: 'mysql_native_password',
        attributes: new Map([['_client_name', 'test'], ['program_name', 'x']]),
      };
      assert.deepEqual(parseHandshakeResponse41(buildHandshakeResponse41(msg)), msg);
    }
  });

  test('a response from a client without protocol 4.1 is refused with a clear error', () => {
    assert.throws(() => parseHandshakeResponse41(Buffer.alloc(40)), /CLIENT_PROTOCOL_41/);
  });

  test('editing a response sets the capability word and clears MariaDB extended client capabilities', () => {
    const p = buildHandshakeResponse41({
      capabilities: base & ~CLIENT_MYSQL, maxPacketSize: 1, characterSet: 33, mariadbCapabilities: 0x1d, user: 'u',
      authResponse: Buffer.alloc(0), database: null, authPluginName: 'mysql_native_password', attributes: new Map(),
    });
    assert.equal(parseHandshakeResponse41(p).mariadbCapabilities, 0x1d);
    const e = parseHandshakeResponse41(editHandshakeResponse(p, (base & ~CLIENT_MYSQL & ~CLIENT_SSL) >>> 0));
    assert.equal(e.mariadbCapabilities, 0);
    assert.equal(e.user, 'u');
  });

  test('COM_CHANGE_USER carries user, auth data, database, charset and plugin', () => {
    const payload = Buffer.concat([
      Buffer.from([0x11]), Buffer.from('bob\0'), Buffer.from([3, 1, 2, 3]), Buffer.from('db1\0'), Buffer.from([33, 0]), Buffer.from('mysql_native_password\0'),
    ]);
    const c = parseChangeUser(payload, base);
    assert.equal(c.user, 'bob');
    assert.deepEqual([...c.authResponse], [1, 2, 3]);
    assert.equal(c.database, 'db1');
    assert.equal(c.characterSet, 33);
    assert.equal(c.authPluginName, 'mysql_native_password');
  });
});
