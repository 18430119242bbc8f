/**
 * FileIO on S3-compatible object stores through the AWS SDK v3. Paths are `s3://bucket/key`
 * (also `s3a://`, `s3n://`, `oss://` pointed at an S3-compatible endpoint); listings answer in
 * the scheme of the directory they were asked for.
 *
 * Directories are key prefixes. `mkdirs` writes a zero-byte `dir/` marker (as Hadoop S3A does)
 * so an empty database directory exists; listings hide markers.
 *
 * Create-if-absent is a conditional PUT (`If-None-Match: *`): the store answers 412
 * PreconditionFailed (or 409 ConditionalRequestConflict while another conditional write to the
 * key is in flight) when the key exists, which we report as `false`. Rename and copy without
 * overwrite are check-then-act (HEAD, then COPY) and not atomic; Paimon never relies on them for
 * commits, only on create-if-absent.
 */
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { PaimonError } from '../errors.js';
import type { FileIO, FileStatus } from './file-io.js';
import { isObjectStoreScheme, parseUri, schemeOf, stripTrailingSlash } from './path.js';

export interface S3FileIOOptions {
  /** Endpoint URL (`http://127.0.0.1:9000`); absent means AWS itself. */
  endpoint?: string;
  region?: string;
  /** Static credentials; when absent the SDK's default chain (AWS_* env vars, profiles, ...) is used. */
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /** Path-style addressing (`endpoint/bucket/key`), needed by most S3-compatible servers. */
  forcePathStyle?: boolean;
  /** Multipart part size for streaming writes, bytes (min 5 MiB; default 8 MiB). */
  partSize?: number;
  maxAttempts?: number;
}

const DELETE_BATCH = 1000; // the DeleteObjects limit

interface Location {
  scheme: string;
  bucket: string;
  key: string;
}

function statusOf(e: unknown): number | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const meta = (e as { $metadata?: { httpStatusCode?: number } }).$metadata;
  return meta?.httpStatusCode;
}

function nameOf(e: unknown): string {
  return typeof e === 'object' && e !== null && 'name' in e ? String((e as { name: unknown }).name) : '';
}

function isNotFound(e: unknown): boolean {
  const n = nameOf(e);
  if (n === 'NoSuchBucket') return false; // a configuration problem, not a missing file
  return statusOf(e) === 404 || n === 'NoSuchKey' || n === 'NotFound';
}

const URL_RE = /\b([a-zA-Z][a-zA-Z0-9+.-]*):\/\/[^\s'"<>()]+/g;
const LOCAL_PATH_RE = /(^|[\s'"(=])(\/[^\s'"():]+)/g;

/** A storage message with `secrets` masked, endpoint URLs and local absolute paths replaced (S3FileIO.scrub). */
export function scrubStorageMessage(message: string, secrets: readonly string[] = []): string {
  let out = message;
  for (const secret of secrets) out = out.split(secret).join('***');
  out = out.replace(URL_RE, (url: string, scheme: string) => (isObjectStoreScheme(scheme.toLowerCase()) ? url.replace(/^([^:]+:\/\/)[^@/]*@/, '$1') : '<endpoint>'));
  return out.replace(LOCAL_PATH_RE, (_m, lead: string, path: string) => `${lead}<local path>/${path.split('/').pop() ?? ''}`);
}

export class S3FileIO implements FileIO {
  readonly isObjectStore = true;
  private readonly client: S3Client;
  private readonly partSize: number;
  /** Secret values scrubbed from every error message we build. */
  private readonly secrets: string[];

  constructor(opts: S3FileIOOptions = {}) {
    const config: S3ClientConfig = {
      region: opts.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
      forcePathStyle: opts.forcePathStyle ?? false,
      maxAttempts: opts.maxAttempts ?? 3,
      // S3-compatible stores differ in checksum-trailer support; only send checksums when required.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
    if (opts.endpoint) config.endpoint = opts.endpoint;
    if (opts.accessKeyId && opts.secretAccessKey) {
      config.credentials = {
        accessKeyId: opts.accessKeyId,
        secretAccessKey: opts.secretAccessKey,
        ...(opts.sessionToken ? { sessionToken: opts.sessionToken } : {}),
      };
    }
    this.client = new S3Client(config);
    this.partSize = Math.max(5 * 1024 * 1024, opts.partSize ?? 8 * 1024 * 1024);
    this.secrets = [opts.secretAccessKey, opts.accessKeyId, opts.sessionToken].filter(
      (s): s is string => typeof s === 'string' && s.length > 0,
    );
  }

  private loc(p: string): Location {
    const scheme = schemeOf(p);
    if (!isObjectStoreScheme(scheme)) {
      // A local path here is a server path: only its last component is named.
      const shown = scheme === '' || scheme === 'file' ? `<local path>/${p.replace(/\/+$/, '').split('/').pop() ?? ''}` : `${scheme}://...`;
      throw new PaimonError('INVALID_ARGUMENT', `S3FileIO needs an s3://, s3a:// or oss:// path, not ${shown}`);
    }
    const u = parseUri(p);
    return { scheme, bucket: u.authority, key: u.path.replace(/\/+$/, '') };
  }

  private uri(l: Location, key: string): string {
    return `${l.scheme}://${l.bucket}/${key}`;
  }

  /**
   * What of a store's or the SDK's own message may reach a client: configured secrets masked,
   * URLs other than the object's own (the endpoint, which may carry `user:password@`) and
   * absolute local paths (a credentials file the SDK tried) replaced by what they are.
   */
  private scrub(s: string): string {
    return scrubStorageMessage(s, this.secrets);
  }

  private wrap(e: unknown, op: string, p: string): PaimonError {
    if (e instanceof PaimonError) return e;
    if (isNotFound(e)) return new PaimonError('FILE_NOT_FOUND', `file not found: ${p}`);
    if (nameOf(e) === 'NoSuchBucket') {
      return new PaimonError('STORAGE_ERROR', `${op} failed for ${p}: the bucket does not exist (check the warehouse URI and s3.endpoint)`);
    }
    const status = statusOf(e);
    const detail = this.scrub(`${nameOf(e) || 'Error'}${status ? ` (HTTP ${status})` : ''}: ${(e as Error)?.message ?? ''}`);
    // The SDK error object may carry request details; keep only our scrubbed summary.
    return new PaimonError('STORAGE_ERROR', `${op} failed for ${p}: ${detail}`);
  }

  async readFile(path: string): Promise<Buffer> {
    const l = this.loc(path);
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: l.bucket, Key: l.key }));
      if (!r.Body) return Buffer.alloc(0);
      return Buffer.from(await r.Body.transformToByteArray());
    } catch (e) {
      throw this.wrap(e, 'read', path);
    }
  }

  async readRange(path: string, start: number, length: number): Promise<Buffer> {
    if (start < 0 || length < 0) throw new PaimonError('INVALID_ARGUMENT', `bad range ${start}+${length} for ${path}`);
    if (length === 0) return Buffer.alloc(0);
    const l = this.loc(path);
    let buf: Buffer;
    try {
      const r = await this.client.send(
        new GetObjectCommand({ Bucket: l.bucket, Key: l.key, Range: `bytes=${start}-${start + length - 1}` }),
      );
      buf = r.Body ? Buffer.from(await r.Body.transformToByteArray()) : Buffer.alloc(0);
    } catch (e) {
      throw this.wrap(e, 'read', path);
    }
    if (buf.length !== length) {
      throw new PaimonError(
        'CORRUPT_METADATA',
        `short read: wanted ${length} bytes at offset ${start} of ${path}, got ${buf.length}`,
      );
    }
    return buf;
  }

  async openRead(path: string): Promise<Readable> {
    const l = this.loc(path);
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: l.bucket, Key: l.key }));
      const body = r.Body;
      if (body instanceof Readable) return body;
      if (!body) return Readable.from([]);
      return Readable.from([Buffer.from(await body.transformToByteArray())]);
    } catch (e) {
      throw this.wrap(e, 'open', path);
    }
  }

  async writeFile(path: string, data: Buffer | string): Promise<void> {
    const l = this.loc(path);
    try {
      await this.client.send(new PutObjectCommand({ Bucket: l.bucket, Key: l.key, Body: toBuffer(data) }));
    } catch (e) {
      throw this.wrap(e, 'write', path);
    }
  }

  async tryCreateAtomic(path: string, data: Buffer | string): Promise<boolean> {
    const l = this.loc(path);
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: l.bucket, Key: l.key, Body: toBuffer(data), IfNoneMatch: '*' }),
      );
      return true;
    } catch (e) {
      const status = statusOf(e);
      const n = nameOf(e);
      if (status === 412 || n === 'PreconditionFailed') return false;
      if (status === 409 || n === 'ConditionalRequestConflict') return false;
      throw this.wrap(e, 'create', path);
    }
  }

  async writeStream(path: string, source: AsyncIterable<Buffer> | Readable): Promise<number> {
    const l = this.loc(path);
    const partSize = this.partSize;
    let pending: Buffer[] = [];
    let pendingLen = 0;
    let total = 0;
    let uploadId: string | undefined;
    const parts: Array<{ ETag: string | undefined; PartNumber: number }> = [];
    const flushPart = async (final: boolean): Promise<void> => {
      while (pendingLen >= partSize || (final && pendingLen > 0)) {
        const all = Buffer.concat(pending, pendingLen);
        const body = all.subarray(0, Math.min(partSize, all.length));
        const rest = all.subarray(body.length);
        pending = rest.length > 0 ? [rest] : [];
        pendingLen = rest.length;
        if (uploadId === undefined) {
          const c = await this.client.send(new CreateMultipartUploadCommand({ Bucket: l.bucket, Key: l.key }));
          uploadId = c.UploadId;
          if (!uploadId) throw new PaimonError('STORAGE_ERROR', `no upload id for ${path}`);
        }
        const partNumber = parts.length + 1;
        const r = await this.client.send(
          new UploadPartCommand({ Bucket: l.bucket, Key: l.key, UploadId: uploadId, PartNumber: partNumber, Body: body }),
        );
        parts.push({ ETag: r.ETag, PartNumber: partNumber });
      }
    };
    try {
      for await (const chunk of source) {
        const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        pending.push(b);
        pendingLen += b.length;
        total += b.length;
        if (pendingLen >= partSize) await flushPart(false);
      }
      if (uploadId === undefined) {
        // Small object: one PUT.
        await this.client.send(
          new PutObjectCommand({ Bucket: l.bucket, Key: l.key, Body: Buffer.concat(pending, pendingLen) }),
        );
        return total;
      }
      await flushPart(true);
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: l.bucket,
          Key: l.key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
      return total;
    } catch (e) {
      if (uploadId !== undefined) {
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket: l.bucket, Key: l.key, UploadId: uploadId }))
          .catch(() => undefined);
      }
      throw this.wrap(e, 'write', path);
    }
  }

  async exists(path: string): Promise<boolean> {
    return (await this.getStatus(path)) !== null;
  }

  async getStatus(path: string): Promise<FileStatus | null> {
    const l = this.loc(path);
    if (l.key === '') return { path: stripTrailingSlash(path), size: 0, modificationTime: 0, isDir: true };
    try {
      const h = await this.client.send(new HeadObjectCommand({ Bucket: l.bucket, Key: l.key }));
      return {
        path: stripTrailingSlash(path),
        size: Number(h.ContentLength ?? 0),
        modificationTime: h.LastModified ? h.LastModified.getTime() : 0,
        isDir: false,
      };
    } catch (e) {
      if (!isNotFound(e)) throw this.wrap(e, 'stat', path);
    }
    try {
      const r = await this.client.send(
        new ListObjectsV2Command({ Bucket: l.bucket, Prefix: l.key + '/', MaxKeys: 1 }),
      );
      if ((r.KeyCount ?? r.Contents?.length ?? 0) > 0) {
        return { path: stripTrailingSlash(path), size: 0, modificationTime: 0, isDir: true };
      }
      return null;
    } catch (e) {
      throw this.wrap(e, 'stat', path);
    }
  }

  async *list(dir: string): AsyncIterable<FileStatus> {
    const l = this.loc(dir);
    const prefix = l.key === '' ? '' : l.key + '/';
    for await (const r of this.listPages(dir, prefix, '/')) {
      for (const o of r.Contents ?? []) {
        if (!o.Key || o.Key === prefix || o.Key.endsWith('/')) continue;
        yield {
          path: this.uri(l, o.Key),
          size: Number(o.Size ?? 0),
          modificationTime: o.LastModified ? o.LastModified.getTime() : 0,
          isDir: false,
        };
      }
      for (const cp of r.CommonPrefixes ?? []) {
        if (!cp.Prefix) continue;
        yield { path: this.uri(l, cp.Prefix.replace(/\/+$/, '')), size: 0, modificationTime: 0, isDir: true };
      }
    }
  }

  /** Every object under a prefix, markers included when `withMarkers`. */
  private async *listKeys(dir: string, withMarkers: boolean): AsyncIterable<{ key: string; size: number; mtime: number }> {
    const l = this.loc(dir);
    for await (const r of this.listPages(dir, l.key === '' ? '' : l.key + '/')) {
      for (const o of r.Contents ?? []) {
        if (!o.Key) continue;
        if (!withMarkers && o.Key.endsWith('/')) continue;
        yield { key: o.Key, size: Number(o.Size ?? 0), mtime: o.LastModified ? o.LastModified.getTime() : 0 };
      }
    }
  }

  /** The ListObjectsV2 pages of a prefix, following continuation tokens. */
  private async *listPages(dir: string, prefix: string, delimiter?: string): AsyncIterable<ListObjectsV2CommandOutput> {
    const l = this.loc(dir);
    let token: string | undefined;
    do {
      let r: ListObjectsV2CommandOutput;
      try {
        r = await this.client.send(
          new ListObjectsV2Command({ Bucket: l.bucket, Prefix: prefix, Delimiter: delimiter, ContinuationToken: token }),
        );
      } catch (e) {
        throw this.wrap(e, 'list', dir);
      }
      yield r;
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
  }

  async *listRecursive(dir: string): AsyncIterable<FileStatus> {
    const l = this.loc(dir);
    for await (const o of this.listKeys(dir, false)) {
      yield { path: this.uri(l, o.key), size: o.size, modificationTime: o.mtime, isDir: false };
    }
  }

  async delete(path: string): Promise<boolean> {
    const l = this.loc(path);
    const st = await this.getStatus(path);
    if (st === null) return false;
    if (st.isDir) {
      throw new PaimonError('STORAGE_ERROR', `delete of a non-empty directory needs deleteDirectory: ${path}`);
    }
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: l.bucket, Key: l.key }));
      return true;
    } catch (e) {
      throw this.wrap(e, 'delete', path);
    }
  }

  private async deleteKeys(bucket: string, keys: string[], what: string): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      let r;
      try {
        r = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
        );
      } catch (e) {
        throw this.wrap(e, 'delete', what);
      }
      const errors = r.Errors ?? [];
      if (errors.length > 0) {
        const first = errors[0];
        throw new PaimonError(
          'STORAGE_ERROR',
          this.scrub(`delete failed for ${errors.length} of ${batch.length} objects under ${what}; first: ${first.Key} ${first.Code ?? ''} ${first.Message ?? ''}`),
        );
      }
      deleted += batch.length;
    }
    return deleted;
  }

  /** Deletes in DeleteObjects batches of 1000. S3 does not say which keys existed; the count is of keys sent. */
  async deleteMany(paths: string[]): Promise<number> {
    const byBucket = new Map<string, string[]>();
    for (const p of paths) {
      const l = this.loc(p);
      const list = byBucket.get(l.bucket) ?? [];
      list.push(l.key);
      byBucket.set(l.bucket, list);
    }
    let n = 0;
    for (const [bucket, keys] of byBucket) n += await this.deleteKeys(bucket, keys, `s3 bucket ${bucket}`);
    return n;
  }

  async deleteDirectory(dir: string): Promise<void> {
    const l = this.loc(dir);
    let batch: string[] = [];
    for await (const o of this.listKeys(dir, true)) {
      batch.push(o.key);
      if (batch.length >= DELETE_BATCH) {
        await this.deleteKeys(l.bucket, batch, dir);
        batch = [];
      }
    }
    if (l.key !== '') batch.push(l.key + '/');
    if (batch.length > 0) await this.deleteKeys(l.bucket, batch, dir);
  }

  async mkdirs(dir: string): Promise<void> {
    const l = this.loc(dir);
    if (l.key === '') return;
    try {
      await this.client.send(new PutObjectCommand({ Bucket: l.bucket, Key: l.key + '/', Body: Buffer.alloc(0) }));
    } catch (e) {
      throw this.wrap(e, 'mkdirs', dir);
    }
  }

  private async copyKey(bucket: string, fromKey: string, toBucket: string, toKey: string): Promise<void> {
    const source = `${bucket}/${encodeURIComponent(fromKey).replace(/%2F/g, '/')}`;
    await this.client.send(new CopyObjectCommand({ Bucket: toBucket, Key: toKey, CopySource: source }));
  }

  async rename(from: string, to: string): Promise<boolean> {
    const src = this.loc(from);
    const dst = this.loc(to);
    const st = await this.getStatus(from);
    if (st === null) throw new PaimonError('FILE_NOT_FOUND', `file not found: ${from}`);
    if (await this.exists(to)) return false;
    try {
      if (!st.isDir) {
        await this.copyKey(src.bucket, src.key, dst.bucket, dst.key);
        await this.client.send(new DeleteObjectCommand({ Bucket: src.bucket, Key: src.key }));
        return true;
      }
      const moved: string[] = [];
      for await (const o of this.listKeys(from, true)) {
        const rel = o.key.slice(src.key.length + 1);
        await this.copyKey(src.bucket, o.key, dst.bucket, dst.key + '/' + rel);
        moved.push(o.key);
      }
      await this.deleteKeys(src.bucket, moved, from);
      return true;
    } catch (e) {
      throw this.wrap(e, 'rename', `${from} -> ${to}`);
    }
  }

  async copyFile(from: string, to: string, overwrite: boolean): Promise<boolean> {
    const src = this.loc(from);
    const dst = this.loc(to);
    if (!overwrite && (await this.exists(to))) return false;
    try {
      await this.copyKey(src.bucket, src.key, dst.bucket, dst.key);
      return true;
    } catch (e) {
      throw this.wrap(e, 'copy', `${from} -> ${to}`);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

function toBuffer(data: Buffer | string): Buffer {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}
