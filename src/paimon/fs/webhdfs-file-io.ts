/**
 * FileIO on HDFS through WebHDFS, the name node's REST interface over HTTP (Hadoop's
 * `WebHdfsFileSystem` speaks the same operations). Paths are `hdfs://namenode:rpcPort/path`
 * (the authority is the RPC address Paimon Java and Doris use; the HTTP address comes from
 * `dfs.namenode.http-address`, default the same host on 9870) or `webhdfs://namenode:httpPort/path`
 * (the authority is the HTTP address itself, as in Hadoop). `hdfs:///path` means the default file
 * system: the authority of `fs.defaultFS`.
 *
 * Commit semantics follow Paimon's HadoopFileIO: every file is written to a hidden temp file next
 * to its target (CREATE with overwrite=false) and then renamed into place, so a reader never sees
 * a half-written file. Create-if-absent is the rename without overwrite (WebHDFS RENAME with
 * `renameoptions=NONE`, the name node's `rename2`), which the name node refuses atomically when
 * the target exists; Paimon's RenamingSnapshotCommit relies on the same refusal. The plain RENAME
 * is never used: it would move a file *into* an existing directory of the target's name.
 *
 * Authentication is Hadoop's "simple" scheme (`user.name` on every request). Kerberos (SPNEGO)
 * and HA name services are not supported here.
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import { userInfo } from 'node:os';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { PaimonError } from '../errors.js';
import type { FileIO, FileStatus, FileStatusBatch } from './file-io.js';
import { join, parent, stripTrailingSlash, tempPathFor } from './path.js';

export interface WebHdfsFileIOOptions {
  /** The name node's HTTP address (`host:port` or `http://host:port`) for `hdfs://` paths. */
  httpAddress?: string;
  /** `fs.defaultFS`, for `hdfs:///path` (no authority). */
  defaultFS?: string;
  /** Hadoop user (`user.name`); default HADOOP_USER_NAME, then the process user. */
  user?: string;
  /** Parallel requests of deleteMany. */
  deleteConcurrency?: number;
}

/** Hadoop 3's default name node HTTP port (`dfs.namenode.http-address`). */
const DEFAULT_HTTP_PORT = 9870;

interface RemoteException {
  exception: string;
  message: string;
}

interface HdfsFileStatus {
  pathSuffix: string;
  type: 'FILE' | 'DIRECTORY' | 'SYMLINK';
  length: number;
  modificationTime: number;
}

interface DirectoryListing {
  entries: HdfsFileStatus[];
  remaining: number;
}

const URI_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/]*)(\/.*)?$/s;

function hostOf(authority: string): string {
  const m = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(authority);
  return m ? m[1] : authority;
}

function httpBase(address: string): string {
  return /^https?:\/\//i.test(address) ? stripTrailingSlash(address) : `http://${address}`;
}

export class WebHdfsFileIO implements FileIO {
  readonly isObjectStore = false;
  private readonly user: string;
  private readonly deleteConcurrency: number;
  /** False once the server turned LISTSTATUS_BATCH down (Hadoop before 2.8). */
  private batchSupported = true;

  constructor(private readonly opts: WebHdfsFileIOOptions = {}) {
    this.user = opts.user ?? process.env.HADOOP_USER_NAME ?? userInfo().username;
    this.deleteConcurrency = Math.max(1, opts.deleteConcurrency ?? 16);
  }

  /** The WebHDFS base URL (`http://host:port/webhdfs/v1`) and the absolute HDFS path of a URI. */
  private locate(p: string): { base: string; path: string } {
    const m = URI_RE.exec(p);
    const scheme = m?.[1].toLowerCase();
    if (!m || (scheme !== 'hdfs' && scheme !== 'webhdfs')) {
      throw new PaimonError('INVALID_ARGUMENT', `WebHdfsFileIO needs an hdfs:// or webhdfs:// path, not ${p.split(':')[0]}:...`);
    }
    const path = m[3] === undefined || m[3] === '' ? '/' : m[3];
    if (scheme === 'webhdfs' && m[2] !== '') {
      // As in Hadoop, a webhdfs:// authority is the HTTP address itself.
      return { base: `${httpBase(/:\d+$/.test(m[2]) ? m[2] : `${m[2]}:${DEFAULT_HTTP_PORT}`)}/webhdfs/v1`, path };
    }
    let authority = m[2];
    if (authority === '') {
      const fs = this.opts.defaultFS === undefined ? null : URI_RE.exec(this.opts.defaultFS);
      if (!fs || fs[2] === '') {
        throw new PaimonError('INVALID_ARGUMENT', `${p} names no name node: set fs.defaultFS (hdfs://namenode:port) in the catalog properties`);
      }
      authority = fs[2];
    }
    const address = this.opts.httpAddress ?? `${hostOf(authority)}:${DEFAULT_HTTP_PORT}`;
    return { base: `${httpBase(address)}/webhdfs/v1`, path };
  }

  private url(p: string, op: string, params: Record<string, string | number | boolean> = {}): string {
    const { base, path } = this.locate(p);
    const encoded = path.split('/').map(encodeURIComponent).join('/');
    const q = new URLSearchParams({ op, 'user.name': this.user });
    for (const [k, v] of Object.entries(params)) q.set(k, String(v));
    return `${base}${encoded}?${q.toString()}`;
  }

  /** One request to the name node; an answer other than 2xx (or 307 when `manual`) becomes a PaimonError. */
  private async request(method: string, url: string, op: string, p: string, manualRedirect = false): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(url, { method, redirect: manualRedirect ? 'manual' : 'follow' });
    } catch (e) {
      throw unreachable(e, op, p);
    }
    if (res.ok || (manualRedirect && res.status === 307)) return res;
    throw this.failure(res.status, await res.text(), op, p);
  }

  /**
   * The data node half of CREATE. Through node:http rather than fetch: the data node answers
   * `100 Continue` before its status whether or not it was asked to, and fetch (undici) takes an
   * unrequested 1xx for a broken response.
   */
  private async upload(location: string, body: Buffer | AsyncIterable<Buffer>, p: string): Promise<void> {
    const target = new URL(location);
    const client = target.protocol === 'https:' ? https : http;
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = client.request(target, {
        method: 'PUT',
        headers: {
          'content-type': 'application/octet-stream',
          ...(Buffer.isBuffer(body) ? { 'content-length': body.length } : { 'transfer-encoding': 'chunked' }),
        },
      });
      req.once('error', reject);
      req.once('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('error', reject);
        res.once('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      });
      if (Buffer.isBuffer(body)) req.end(body);
      else pipeline(Readable.from(body), req).catch(reject);
    });
    let r: { status: number; text: string };
    try {
      r = await answer;
    } catch (e) {
      throw e instanceof PaimonError ? e : unreachable(e, 'create', p);
    }
    if (r.status < 200 || r.status >= 300) throw this.failure(r.status, r.text, 'create', p);
  }

  private failure(status: number, text: string, op: string, p: string): PaimonError {
    const remote = remoteException(text);
    const name = remote?.exception ?? '';
    if (name === 'FileNotFoundException') return new PaimonError('FILE_NOT_FOUND', `file not found: ${p}`);
    if (name === 'FileAlreadyExistsException') return new PaimonError('FILE_ALREADY_EXISTS', `file already exists: ${p}`);
    if (name === 'AccessControlException' || name === 'SecurityException') {
      return new PaimonError('STORAGE_ERROR', `${op} failed for ${p}: permission denied for HDFS user ${this.user} (${remote?.message ?? ''})`);
    }
    const detail = remote ? `${name}: ${remote.message}` : `HTTP ${status}`;
    return new PaimonError('STORAGE_ERROR', `${op} failed for ${p}: ${detail}`);
  }

  private async json<T>(method: string, p: string, op: string, params: Record<string, string | number | boolean> = {}): Promise<T> {
    const res = await this.request(method, this.url(p, op, params), op, p);
    return (await res.json()) as T;
  }

  /** OPEN, following the name node's redirect to a data node. */
  private async open(p: string, params: Record<string, number> = {}): Promise<Response> {
    return this.request('GET', this.url(p, 'OPEN', params), 'read', p);
  }

  /**
   * CREATE in WebHDFS's two steps: the name node answers with the data node to send the bytes to
   * (as JSON with `noredirect`, or as a 307 from servers older than that parameter); the data node
   * creates the file, refusing an existing one when overwrite=false.
   */
  private async create(p: string, body: Buffer | AsyncIterable<Buffer>, overwrite: boolean): Promise<void> {
    const step1 = await this.request('PUT', this.url(p, 'CREATE', { overwrite, noredirect: true }), 'create', p, true);
    const location = step1.status === 307 ? step1.headers.get('location') : ((await step1.json()) as { Location?: string }).Location;
    if (!location) throw new PaimonError('STORAGE_ERROR', `create failed for ${p}: the name node named no data node`);
    await this.upload(location, body, p);
  }

  /**
   * `rename2`: never replaces the target unless `overwrite`; false when the target exists.
   * The name node words that refusal differently for files and directories, so a failed rename
   * is judged by whether the target is there.
   */
  private async rename2(from: string, to: string, overwrite: boolean): Promise<boolean> {
    const { path: dest } = this.locate(to);
    try {
      const res = await this.request('PUT', this.url(from, 'RENAME', { destination: dest, renameoptions: overwrite ? 'OVERWRITE' : 'NONE' }), 'rename', from);
      await res.body?.cancel();
      return true;
    } catch (e) {
      if (!overwrite && !(e instanceof PaimonError && e.code === 'FILE_NOT_FOUND') && (await this.exists(to))) return false;
      throw e;
    }
  }

  /** Writes `body` to a temp file beside `p`, then renames it over (or, without overwrite, onto) `p`. */
  private async writeViaTemp(p: string, body: Buffer | AsyncIterable<Buffer>, overwrite: boolean): Promise<boolean> {
    const tmp = tempPathFor(p, randomUUID());
    let placed = false;
    try {
      await this.create(tmp, body, false);
      placed = await this.rename2(tmp, p, overwrite);
      return placed;
    } finally {
      if (!placed) await this.delete(tmp).catch(() => false);
    }
  }

  async readFile(path: string): Promise<Buffer> {
    const res = await this.open(path);
    return Buffer.from(await res.arrayBuffer());
  }

  async readRange(path: string, start: number, length: number): Promise<Buffer> {
    if (start < 0 || length < 0) throw new PaimonError('INVALID_ARGUMENT', `bad range ${start}+${length} for ${path}`);
    if (length === 0) return Buffer.alloc(0);
    let buf: Buffer;
    try {
      buf = Buffer.from(await (await this.open(path, { offset: start, length })).arrayBuffer());
    } catch (e) {
      // The data node refuses an offset at or past the end ("Offset=... out of the range").
      if (e instanceof PaimonError && e.code === 'STORAGE_ERROR' && /out of the range/.test(e.message)) buf = Buffer.alloc(0);
      else throw e;
    }
    if (buf.length !== length) {
      throw new PaimonError('CORRUPT_METADATA', `short read: wanted ${length} bytes at offset ${start} of ${path}, got ${buf.length}`);
    }
    return buf;
  }

  async openRead(path: string): Promise<Readable> {
    const res = await this.open(path);
    return res.body ? Readable.fromWeb(res.body as WebReadableStream<Uint8Array>) : Readable.from([]);
  }

  async writeFile(path: string, data: Buffer | string): Promise<void> {
    await this.writeViaTemp(path, toBuffer(data), true);
  }

  async tryCreateAtomic(path: string, data: Buffer | string): Promise<boolean> {
    return this.writeViaTemp(path, toBuffer(data), false);
  }

  async writeStream(path: string, source: AsyncIterable<Buffer> | Readable): Promise<number> {
    let total = 0;
    async function* counted(): AsyncIterable<Buffer> {
      for await (const chunk of source) {
        const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        total += b.length;
        yield b;
      }
    }
    await this.writeViaTemp(path, counted(), true);
    return total;
  }

  async exists(path: string): Promise<boolean> {
    return (await this.getStatus(path)) !== null;
  }

  async getStatus(path: string): Promise<FileStatus | null> {
    try {
      const r = await this.json<{ FileStatus: HdfsFileStatus }>('GET', path, 'GETFILESTATUS');
      return toStatus(stripTrailingSlash(path), r.FileStatus);
    } catch (e) {
      if (e instanceof PaimonError && e.code === 'FILE_NOT_FOUND') return null;
      throw e;
    }
  }

  /**
   * The pages of a directory listing: LISTSTATUS_BATCH (`dfs.ls.limit` entries a page, 1000 by
   * default) resumed with `startAfter`; LISTSTATUS in one answer where the server predates it.
   */
  private async *pages(dir: string): AsyncIterable<HdfsFileStatus[]> {
    let startAfter: string | undefined;
    for (;;) {
      let listing: DirectoryListing;
      try {
        listing = await this.listPage(dir, startAfter);
      } catch (e) {
        if (e instanceof PaimonError && e.code === 'FILE_NOT_FOUND') return;
        throw e;
      }
      // A file lists as itself with an empty suffix; a directory's children never do.
      const entries = listing.entries.filter((s) => s.pathSuffix !== '');
      if (entries.length > 0) yield entries;
      if (listing.remaining <= 0 || listing.entries.length === 0) return;
      startAfter = listing.entries[listing.entries.length - 1].pathSuffix;
    }
  }

  private async listPage(dir: string, startAfter: string | undefined): Promise<DirectoryListing> {
    if (this.batchSupported) {
      try {
        const r = await this.json<{ DirectoryListing: { partialListing: { FileStatuses: { FileStatus: HdfsFileStatus[] } }; remainingEntries: number } }>(
          'GET',
          dir,
          'LISTSTATUS_BATCH',
          startAfter === undefined ? {} : { startAfter },
        );
        return { entries: r.DirectoryListing.partialListing.FileStatuses.FileStatus, remaining: r.DirectoryListing.remainingEntries };
      } catch (e) {
        // Servers before Hadoop 2.8 reject the operation name itself.
        if (!(e instanceof PaimonError && /IllegalArgumentException: .*op/.test(e.message)) || startAfter !== undefined) throw e;
        this.batchSupported = false;
      }
    }
    const r = await this.json<{ FileStatuses: { FileStatus: HdfsFileStatus[] } }>('GET', dir, 'LISTSTATUS');
    return { entries: r.FileStatuses.FileStatus, remaining: 0 };
  }

  async *list(dir: string): AsyncIterable<FileStatus> {
    const base = stripTrailingSlash(dir);
    for await (const page of this.pages(dir)) {
      for (const s of page) yield toStatus(join(base, s.pathSuffix), s);
    }
  }

  async *listBatches(dir: string): AsyncIterable<FileStatusBatch> {
    for await (const page of this.pages(dir)) {
      yield {
        names: page.map((s) => s.pathSuffix),
        sizes: Float64Array.from(page, (s) => (s.type === 'DIRECTORY' ? 0 : s.length)),
        modificationTimes: Float64Array.from(page, (s) => s.modificationTime),
        isDir: Uint8Array.from(page, (s) => (s.type === 'DIRECTORY' ? 1 : 0)),
        isLink: Uint8Array.from(page, (s) => (s.type === 'SYMLINK' ? 1 : 0)),
      };
    }
  }

  async *listRecursive(dir: string): AsyncIterable<FileStatus> {
    const pending = [stripTrailingSlash(dir)];
    while (pending.length > 0) {
      const d = pending.pop() as string;
      for await (const s of this.list(d)) {
        if (s.isDir) pending.push(s.path);
        else if (!s.isSymlink) yield s;
      }
    }
  }

  async delete(path: string): Promise<boolean> {
    const r = await this.json<{ boolean: boolean }>('DELETE', path, 'DELETE', { recursive: false });
    return r.boolean;
  }

  async deleteMany(paths: string[]): Promise<number> {
    let next = 0;
    let deleted = 0;
    const worker = async (): Promise<void> => {
      while (next < paths.length) {
        const p = paths[next++];
        if (await this.delete(p)) deleted++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.deleteConcurrency, paths.length) }, worker));
    return deleted;
  }

  async deleteDirectory(dir: string): Promise<void> {
    await this.json<{ boolean: boolean }>('DELETE', dir, 'DELETE', { recursive: true });
  }

  async deleteEmptyDirectory(dir: string): Promise<boolean> {
    try {
      // The name node refuses a non-recursive delete of a directory that is not empty.
      return (await this.json<{ boolean: boolean }>('DELETE', dir, 'DELETE', { recursive: false })).boolean;
    } catch {
      return false;
    }
  }

  async mkdirs(dir: string): Promise<void> {
    const r = await this.json<{ boolean: boolean }>('PUT', dir, 'MKDIRS');
    if (!r.boolean) throw new PaimonError('STORAGE_ERROR', `mkdirs failed for ${dir}`);
  }

  async rename(from: string, to: string): Promise<boolean> {
    if ((await this.getStatus(from)) === null) throw new PaimonError('FILE_NOT_FOUND', `file not found: ${from}`);
    const dir = parent(to);
    if (dir !== null) await this.mkdirs(dir);
    return this.rename2(from, to, false);
  }

  async copyFile(from: string, to: string, overwrite: boolean): Promise<boolean> {
    if (!overwrite && (await this.exists(to))) return false;
    const res = await this.open(from);
    const body = res.body ? (Readable.fromWeb(res.body as WebReadableStream<Uint8Array>) as AsyncIterable<Buffer>) : Readable.from([]);
    return this.writeViaTemp(to, body, overwrite);
  }

  async close(): Promise<void> {
    // Requests go through Node's shared fetch dispatcher; nothing of our own to release.
  }
}

function toStatus(path: string, s: HdfsFileStatus): FileStatus {
  const isDir = s.type === 'DIRECTORY';
  return {
    path,
    size: isDir ? 0 : s.length,
    modificationTime: s.modificationTime,
    isDir,
    ...(s.type === 'SYMLINK' ? { isSymlink: true } : {}),
  };
}

function remoteException(text: string): RemoteException | null {
  try {
    const body = JSON.parse(text) as { RemoteException?: RemoteException };
    return body.RemoteException ?? null;
  } catch {
    return null;
  }
}

/** A request that got no HTTP answer. The URL is left out: it carries the user (and, with tokens, more). */
function unreachable(e: unknown, op: string, p: string): PaimonError {
  const err = e as { code?: string; cause?: { code?: string }; message?: string };
  const cause = err.cause?.code ?? err.code ?? err.message ?? 'no answer';
  return new PaimonError('STORAGE_ERROR', `${op} failed for ${p}: WebHDFS did not answer (${cause}); check dfs.namenode.http-address`);
}

function toBuffer(data: Buffer | string): Buffer {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}
