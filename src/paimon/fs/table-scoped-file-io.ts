/**
 * A FileIO view that changes and lists only what is inside one directory (a table's): what a
 * destructive procedure is given, so that a path computed wrongly, or a name taken from a
 * manifest, a listing or a client (`..`, `//`, percent-encoded dots, a sibling table sharing
 * the prefix: `t2` next to `t`), can never delete, rename, overwrite or list anything outside
 * the table. Reads are passed through (a table may read files it does not own, e.g. Paimon's
 * external data paths), and so are the store's own semantics otherwise.
 *
 * "Inside" is decided on the path the store will act on: for a local path after `..` and `.`
 * are resolved (and after `file:` percent-decoding, as LocalFileIO decodes); for an object
 * store on the key as sent, where a `.`, `..` or empty segment, or one that is so once
 * percent-decoded, is refused outright (S3 itself treats them literally, but some compatible
 * stores and proxies normalize them). The directory prefix always ends at a `/`.
 */
import * as nodePath from 'node:path';
import type { Readable } from 'node:stream';
import { PaimonError } from '../errors.js';
import type { FileIO, FileStatus, FileStatusBatch } from './file-io.js';
import { isObjectStoreScheme, parseUri } from './path.js';

/** Where a path points, normalized for the comparison. */
interface Place {
  /** '' for local paths and file: URIs; the scheme family of object stores otherwise. */
  store: string;
  bucket: string;
  /** Local: an absolute resolved path. Object store: the key without leading or trailing '/'. */
  key: string;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** s3, s3a and s3n address the same buckets. */
function storeFamily(scheme: string): string {
  return scheme === 's3a' || scheme === 's3n' ? 's3' : scheme;
}

/** The place a path acts on, or a string saying why it is not a usable path. */
function placeOf(p: string): Place | string {
  let u;
  try {
    u = parseUri(p);
  } catch (e) {
    return (e as Error).message;
  }
  if (u.scheme === '' || u.scheme === 'file') {
    if (!nodePath.isAbsolute(u.path)) return 'not an absolute path';
    return { store: '', bucket: '', key: nodePath.resolve(u.path) };
  }
  if (!isObjectStoreScheme(u.scheme)) return `unsupported scheme ${u.scheme}://`;
  const key = u.path.replace(/\/+$/, '');
  if (key !== '') {
    for (const seg of key.split('/')) {
      const d = decodeSafe(seg);
      if (seg === '' || d === '.' || d === '..' || d === '') return `key has an empty, '.' or '..' segment`;
      if (d.includes('/')) return 'key has a segment with an encoded /';
    }
  }
  return { store: storeFamily(u.scheme), bucket: u.authority, key };
}

/** Is `p` the directory `root` itself or below it? */
function within(root: Place, p: Place): boolean {
  if (root.store !== p.store || root.bucket !== p.bucket) return false;
  if (root.store === '') {
    if (p.key === root.key) return true;
    const prefix = root.key.endsWith('/') ? root.key : `${root.key}/`;
    return p.key.startsWith(prefix);
  }
  if (root.key === '') return true;
  return p.key === root.key || p.key.startsWith(`${root.key}/`);
}

export class TableScopedFileIO implements FileIO {
  readonly isObjectStore: boolean;
  private readonly rootPlace: Place;

  /** @param root the table directory (`/wh/db.db/t`, `s3://bucket/wh/db.db/t`) */
  constructor(private readonly inner: FileIO, readonly root: string) {
    const r = placeOf(root);
    if (typeof r === 'string') throw new PaimonError('INVALID_ARGUMENT', `table directory is not a usable path (${r})`);
    this.rootPlace = r;
    this.isObjectStore = inner.isObjectStore;
  }

  /** True when `path` is inside the table directory as the store will act on it. */
  contains(path: string): boolean {
    const p = placeOf(path);
    return typeof p !== 'string' && within(this.rootPlace, p);
  }

  /** Refuse a path outside the table (or one that is not a clean path). The message names no absolute path. */
  private check(op: string, path: string): void {
    const p = placeOf(path);
    if (typeof p !== 'string' && within(this.rootPlace, p)) return;
    const why = typeof p === 'string' ? p : 'it is outside the table directory';
    const base = path.replace(/\/+$/, '').split('/').pop() ?? '';
    throw new PaimonError('INVALID_ARGUMENT', `refused to ${op} '${base.slice(0, 80)}': ${why} (a procedure changes and lists only files of its own table)`);
  }

  readFile(path: string): Promise<Buffer> {
    return this.inner.readFile(path);
  }
  readRange(path: string, start: number, length: number): Promise<Buffer> {
    return this.inner.readRange(path, start, length);
  }
  openRead(path: string): Promise<Readable> {
    return this.inner.openRead(path);
  }
  exists(path: string): Promise<boolean> {
    return this.inner.exists(path);
  }
  getStatus(path: string): Promise<FileStatus | null> {
    return this.inner.getStatus(path);
  }

  async writeFile(path: string, data: Buffer | string): Promise<void> {
    this.check('write', path);
    return this.inner.writeFile(path, data);
  }
  async tryCreateAtomic(path: string, data: Buffer | string): Promise<boolean> {
    this.check('create', path);
    return this.inner.tryCreateAtomic(path, data);
  }
  async writeStream(path: string, source: AsyncIterable<Buffer> | Readable): Promise<number> {
    this.check('write', path);
    return this.inner.writeStream(path, source);
  }
  async *list(dir: string): AsyncIterable<FileStatus> {
    this.check('list', dir);
    yield* this.inner.list(dir);
  }
  get listBatches(): ((dir: string) => AsyncIterable<FileStatusBatch>) | undefined {
    const batches = this.inner.listBatches?.bind(this.inner);
    if (!batches) return undefined;
    const check = (dir: string): void => this.check('list', dir);
    return async function* (dir: string): AsyncIterable<FileStatusBatch> {
      check(dir);
      yield* batches(dir);
    };
  }
  async *listRecursive(dir: string): AsyncIterable<FileStatus> {
    this.check('list', dir);
    yield* this.inner.listRecursive(dir);
  }
  async delete(path: string): Promise<boolean> {
    this.check('delete', path);
    return this.inner.delete(path);
  }
  async deleteMany(paths: string[]): Promise<number> {
    // All or nothing: one stray path refuses the whole batch before anything is deleted.
    for (const p of paths) this.check('delete', p);
    return this.inner.deleteMany(paths);
  }
  async deleteDirectory(dir: string): Promise<void> {
    this.check('delete', dir);
    // The table directory itself is never removed through a procedure's view.
    const p = placeOf(dir);
    if (typeof p !== 'string' && p.key === this.rootPlace.key) {
      throw new PaimonError('INVALID_ARGUMENT', 'refused to delete the table directory itself');
    }
    return this.inner.deleteDirectory(dir);
  }
  async mkdirs(dir: string): Promise<void> {
    this.check('create', dir);
    return this.inner.mkdirs(dir);
  }
  async rename(from: string, to: string): Promise<boolean> {
    this.check('rename', from);
    this.check('rename to', to);
    return this.inner.rename(from, to);
  }
  async copyFile(from: string, to: string, overwrite: boolean): Promise<boolean> {
    this.check('copy to', to);
    return this.inner.copyFile(from, to, overwrite);
  }
  /** The view does not own the store's clients: closing it leaves the inner FileIO open. */
  async close(): Promise<void> {}
}
