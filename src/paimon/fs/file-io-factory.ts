/**
 * Chooses the FileIO for a warehouse URI: local files for bare paths and `file:`, the S3 client
 * for `s3://`, `s3a://`, `s3n://` and `oss://` (an S3-compatible endpoint).
 *
 * Properties use Paimon's keys (`s3.endpoint`, `s3.region`, `s3.access-key`, `s3.secret-key`,
 * `s3.path.style.access`), with the Hadoop S3A spellings (`fs.s3a.*`), pypaimon's
 * (`s3.path-style-access`, `s3.access-key-id`...) and OSS's (`fs.oss.*`) accepted as aliases.
 * Without keys in the properties the SDK's default chain applies (AWS_ACCESS_KEY_ID, ...).
 * `hdfs://` and `webhdfs://` go to HDFS over WebHDFS (webhdfs-file-io.ts: `dfs.namenode.http-address`,
 * `fs.defaultFS`, `hadoop.username`).
 */
import { PaimonError } from '../errors.js';
import type { FileIO } from './file-io.js';
import { LocalFileIO } from './local-file-io.js';
import { isObjectStoreScheme, schemeOf } from './path.js';
import { S3FileIO, type S3FileIOOptions } from './s3-file-io.js';
import { WebHdfsFileIO, type WebHdfsFileIOOptions } from './webhdfs-file-io.js';

function pick(props: Record<string, string>, keys: string[]): string | undefined {
  for (const k of keys) {
    const v = props[k];
    if (v !== undefined && v !== '') return v;
  }
  return undefined;
}

function parseBool(v: string | undefined, key: string): boolean | undefined {
  if (v === undefined) return undefined;
  const s = v.trim().toLowerCase();
  if (s === 'true') return true;
  if (s === 'false') return false;
  throw new PaimonError('INVALID_ARGUMENT', `property ${key} must be true or false`);
}

/** The S3 client options a warehouse's properties ask for (credentials included, never logged). */
export function s3OptionsFromProperties(props: Record<string, string>, scheme = 's3'): S3FileIOOptions {
  const oss = scheme === 'oss';
  let endpoint = pick(props, ['s3.endpoint', 'fs.s3a.endpoint', ...(oss ? ['fs.oss.endpoint', 'oss.endpoint'] : [])]);
  const ssl = parseBool(pick(props, ['s3.connection.ssl.enabled', 'fs.s3a.connection.ssl.enabled']), 's3.connection.ssl.enabled');
  if (endpoint !== undefined && !/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(endpoint)) {
    endpoint = `${ssl === false ? 'http' : 'https'}://${endpoint}`;
  }
  const pathStyleRaw = pick(props, ['s3.path.style.access', 'fs.s3a.path.style.access', 's3.path-style-access']);
  const opts: S3FileIOOptions = {
    endpoint,
    region: pick(props, ['s3.region', 'fs.s3a.endpoint.region', 'fs.s3a.region', 'client.region', ...(oss ? ['oss.region'] : [])]),
    accessKeyId: pick(props, [
      's3.access-key',
      's3.access_key',
      's3.access-key-id',
      'fs.s3a.access.key',
      ...(oss ? ['fs.oss.accessKeyId', 'oss.access-key'] : []),
    ]),
    secretAccessKey: pick(props, [
      's3.secret-key',
      's3.secret_key',
      's3.access-key-secret',
      'fs.s3a.secret.key',
      ...(oss ? ['fs.oss.accessKeySecret', 'oss.secret-key'] : []),
    ]),
    sessionToken: pick(props, ['s3.session-token', 's3.session.token', 'fs.s3a.session.token', ...(oss ? ['fs.oss.securityToken'] : [])]),
    // Non-AWS endpoints almost always need path-style; AWS itself defaults to virtual-host style.
    forcePathStyle: parseBool(pathStyleRaw, 's3.path.style.access') ?? (endpoint !== undefined && !oss),
  };
  if ((opts.accessKeyId === undefined) !== (opts.secretAccessKey === undefined)) {
    throw new PaimonError('INVALID_ARGUMENT', 'set both s3.access-key and s3.secret-key, or neither');
  }
  return opts;
}

/**
 * The WebHDFS options a catalog's properties ask for: Hadoop's own keys, also with Doris's
 * `hadoop.` prefix, and Doris's `hadoop.username` for the user.
 */
export function webHdfsOptionsFromProperties(props: Record<string, string>): WebHdfsFileIOOptions {
  const withDoris = (k: string): string[] => [k, `hadoop.${k}`];
  return {
    httpAddress: pick(props, withDoris('dfs.namenode.http-address')),
    defaultFS: pick(props, [...withDoris('fs.defaultFS'), 'fs.default.name']),
    user: pick(props, ['hadoop.username', 'hadoop.user.name', 'hdfs.user.name']),
  };
}

/** FileIO for a warehouse URI and its catalog properties. Local messages name paths relative to the warehouse. */
export function createFileIO(warehouseUri: string, properties: Record<string, string> = {}): FileIO {
  const scheme = schemeOf(warehouseUri);
  if (scheme === '' || scheme === 'file') return new LocalFileIO({ root: warehouseUri });
  if (isObjectStoreScheme(scheme)) return new S3FileIO(s3OptionsFromProperties(properties, scheme));
  if (scheme === 'hdfs' || scheme === 'webhdfs') return new WebHdfsFileIO(webHdfsOptionsFromProperties(properties));
  throw new PaimonError(
    'INVALID_ARGUMENT',
    `unsupported warehouse scheme "${scheme}://" (supported: local paths, file://, s3://, s3a://, oss://, hdfs://, webhdfs://)`,
  );
}
