import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dlfAuthorization, dlfCanonicalRequest, dlfCredentials, dlfDateTime, dlfHeaders, dlfSignHeaders, regionFromUri } from '../../../../src/paimon/catalog/rest/dlf-signer.js';

// Paimon's own expected value (paimon-core DLFAuthSignatureTest, 1.4.2 and 2.0.0): the body is
// RESTApi.toJson(MockRESTMessage.createDatabaseRequest("database")).
test("the default signer's Authorization equals Paimon's test vector", () => {
  const body = '{"name":"database","options":{"a":"b"}}';
  const req = { method: 'POST', resourcePath: '/v1/paimon/databases', query: { k1: 'v1', k2: 'v2' }, body };
  const c = { accessKeyId: 'access-key-id', accessKeySecret: 'access-key-secret', securityToken: 'securityToken', region: 'cn-hangzhou' };
  const headers = dlfSignHeaders(body, new Date('2023-12-03T12:12:12Z'), c.securityToken);
  assert.equal(headers['x-dlf-date'], '20231203T121212Z');
  assert.equal(
    dlfAuthorization(req, c, headers),
    'DLF4-HMAC-SHA256 Credential=access-key-id/20231203/cn-hangzhou/DlfNext/aliyun_v4_request,Signature=c72caf1d40b55b1905d891ee3e3de48a2f8bebefa7e39e4f277acc93c269c5e3',
  );
});

test('the canonical request: sorted query (a key without value alone), signed headers by lower-case name, the content hash', () => {
  const headers = dlfSignHeaders(null, new Date('2024-01-02T03:04:05Z'), null);
  assert.deepEqual(Object.keys(headers).sort(), ['x-dlf-content-sha256', 'x-dlf-date', 'x-dlf-version']);
  assert.equal(
    dlfCanonicalRequest({ method: 'GET', resourcePath: '/v1/p/databases', query: { pageToken: 'x', maxResults: '', B: '2' }, body: null }, { ...headers, 'X-Other': 'ignored' }),
    ['GET', '/v1/p/databases', 'B=2&maxResults&pageToken=x', 'x-dlf-content-sha256:UNSIGNED-PAYLOAD', 'x-dlf-date:20240102T030405Z', 'x-dlf-version:v1', 'UNSIGNED-PAYLOAD'].join('\n'),
  );
  assert.equal(dlfDateTime(new Date('2024-01-02T03:04:05.678Z')), '20240102T030405Z');
  const all = dlfHeaders({ method: 'GET', resourcePath: '/v1/config', query: {}, body: null }, { accessKeyId: 'ak', accessKeySecret: 'sk', securityToken: null, region: 'cn-beijing' }, new Date());
  assert.match(all.Authorization!, /^DLF4-HMAC-SHA256 Credential=ak\/\d{8}\/cn-beijing\/DlfNext\/aliyun_v4_request,Signature=[0-9a-f]{64}$/);
});

test('credentials and region from the options or the uri; what is not supported is named', () => {
  assert.equal(regionFromUri('http://cn-hangzhou-vpc.dlf.aliyuncs.com'), 'cn-hangzhou');
  assert.equal(regionFromUri('http://127.0.0.1:8080'), null);
  const ok = dlfCredentials({ 'dlf.access-key-id': 'ak', 'dlf.access-key-secret': 'sk', 'dlf.region': 'cn-shanghai' }, 'http://127.0.0.1:1', 'c');
  assert.deepEqual(ok, { accessKeyId: 'ak', accessKeySecret: 'sk', securityToken: null, region: 'cn-shanghai' });
  assert.throws(() => dlfCredentials({ 'dlf.access-key-id': 'ak' }, 'http://cn-hangzhou-vpc.dlf.aliyuncs.com', 'c'), /set dlf\.access-key-id and dlf\.access-key-secret/);
  assert.throws(() => dlfCredentials({ 'dlf.access-key-id': 'ak', 'dlf.access-key-secret': 'sk' }, 'http://127.0.0.1:1', 'c'), /set dlf\.region/);
  assert.throws(() => dlfCredentials({ 'dlf.access-key-id': 'ak', 'dlf.access-key-secret': 'sk' }, 'https://dlfnext.cn-beijing.aliyuncs.com', 'c'), (e: Error & { code?: string }) => e.code === 'NOT_SUPPORTED' && /openapi/.test(e.message));
  assert.throws(() => dlfCredentials({ 'dlf.token-path': '/x', 'dlf.region': 'cn-beijing' }, 'http://x', 'c'), (e: Error & { code?: string }) => e.code === 'NOT_SUPPORTED');
});
