import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildProxyV1Header } from '../../../protocol/proxy-protocol.js';

test('PROXY v1 line for IPv4, with IPv4-mapped IPv6 addresses unmapped', () => {
  const l = buildProxyV1Header({ sourceAddress: '::ffff:192.168.1.7', sourcePort: 51234, destinationAddress: '10.0.0.2', destinationPort: 9031 });
  assert.equal(l.toString(), 'PROXY TCP4 192.168.1.7 10.0.0.2 51234 9031\r\n');
});

test('PROXY v1 line for IPv6', () => {
  assert.equal(
    buildProxyV1Header({ sourceAddress: '::1', sourcePort: 1, destinationAddress: 'fe80::1', destinationPort: 2 }).toString(),
    'PROXY TCP6 ::1 fe80::1 1 2\r\n',
  );
});

test('mixed families or unknown endpoints give PROXY UNKNOWN', () => {
  assert.equal(buildProxyV1Header(null).toString(), 'PROXY UNKNOWN\r\n');
  assert.equal(
    buildProxyV1Header({ sourceAddress: '1.2.3.4', sourcePort: 1, destinationAddress: '::1', destinationPort: 2 }).toString(),
    'PROXY UNKNOWN\r\n',
  );
  assert.equal(
    buildProxyV1Header({ sourceAddress: 'not-an-ip', sourcePort: 1, destinationAddress: '1.2.3.4', destinationPort: 2 }).toString(),
    'PROXY UNKNOWN\r\n',
  );
});
