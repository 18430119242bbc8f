/**
 * A FileIO view that changes and lists only what is inside the directories one table owns:
 * its root (branches live below it) and the roots of its `data-file.external-paths`. It is what
 * every procedure gets for its table (procedures/framework/catalog.ts), so that a path computed
 * wrongly, or a name taken from a manifest, a listing or a client (`..`, `//`, percent-encoded
 * dots, a sibling table sharing the prefix: `t2` next to `t`, a directory symlink planted in
 * the table), can never delete, rename, overwrite or list anything outside the table. Reads
 * are passed through (a table may read files it does not own), and so are the store's own
 * semantics otherwise.
 *
 * "Inside" is decided on the path the store will act on: for a local path after `..` and `.`
 * are resolved (and after `file:` percent-decoding, as LocalFileIO decodes), and then once more
 * physically: the directory the operation acts in (the path itself for listings, which follow
 * it) is resolved through its symbolic links (realpath of its deepest existing ancestor) and
 * must still lie below the owned directories resolved the same way; the entry itself is not
 * followed, so a link inside the table can be unlinked but nothing behind it is reached. For an
 * object store "inside" is decided on the key as sent, where a `.`, `..` or empty segment, or
 * one that is so once percent-decoded, is refused outright (S3 itself treats them literally,
 * but some compatible stores and proxies normalize them). The directory prefix always ends at
 * a `/`.
 *
 * A refusal is an UnsafePathError (UNSAFE_PATH to a client) naming the path relative to the
 * table, never an absolute server path.
 */
import { promises as fsp } from 'node:fs';
import * as nodePath from 'node:path';
import type { Readable } from 'node:stream';
import { PaimonError } from '../errors.js';
import type { FileIO, FileStatus, FileStatusBatch } from './file-io.js';
import { isObjectStoreScheme, parseUri, schemeOf, type ParsedUri } from './path.js';

/** Where a path points, normalized for the comparison. */
interface Place {
  /** '' for local paths and file: URIs; the scheme (its family for s3/s3a/s3n) otherwise. */
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
  let u: ParsedUri;
  try {
    u = parseUri(p);
  } catch (e) {
    // Other hierarchical stores (a FileIO a catalog brings for its own scheme) may leave the
    // authority empty, as Hadoop's `hdfs:///path` means the default name node.
    const scheme = schemeOf(p);
    const m = scheme !== '' && !isObjectStoreScheme(scheme) && scheme !== 'file' ? /^[^:]+:\/\/\/(.*)$/s.exec(p) : null;
    if (m) return keyPlace(scheme, '', m[1] ?? '');
    // The parser's message quotes the whole path: keep only what it says before the path.
    return (e as Error).message.replace(`: ${p}`, '');
  }
  if (u.scheme === '' || u.scheme === 'file') {
    if (!nodePath.isAbsolute(u.path)) return 'not an absolute path';
    return { store: '', bucket: '', key: nodePath.resolve(u.path) };
  }
  return keyPlace(u.scheme, u.authority, u.path);
}

/**
 * The place of a key in a store where segments are taken as written: `.`, `..` and empty
 * segments (also once percent-decoded) are refused rather than interpreted.
 */
function keyPlace(scheme: string, bucket: string, path: string): Place | string {
  const key = path.replace(/\/+$/, '');
  if (key !== '') {
    for (const seg of key.split('/')) {
      const d = decodeSafe(seg);
      if (seg === '' || d === '.' || d === '..' || d === '') return `key has an empty, '.' or '..' segment`;
      if (d.includes('/')) return 'key has a segment with an encoded /';
    }
  }
  return { store: storeFamily(scheme), bucket, key };
}

/** Is `p` the directory `root` itself or below it? */
function within(root: Place, p: Place): boolean {
  if (root.store !== p.store || root.bucket !== p.bucket) return false;
  return keyWithin(root.store, root.key, p.key);
}

function keyWithin(store: string, root: string, key: string): boolean {
  if (store === '') {
    if (key === root) return true;
    const prefix = root.endsWith('/') ? root : `${root}/`;
    return key.startsWith(prefix);
  }
  if (root === '') return true;
  return key === root || key.startsWith(`${root}/`);
}

function errCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}

/**
 * The local path with every symbolic link on the way resolved: realpath(2) of its deepest
 * existing ancestor, with the components that do not exist yet appended as written.
 */
async function physicalPath(local: string): Promise<string> {
  const tail: string[] = [];
  let p = local;
  for (;;) {
    try {
      const real = await fsp.realpath(p);
      return tail.length === 0 ? real : nodePath.join(real, ...tail.reverse());
    } catch (e) {
      const code = errCode(e);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
      const up = nodePath.dirname(p);
      if (up === p) return local;
      tail.push(nodePath.basename(p));
      p = up;
    }
  }
}

/** Raised for a change or listing outside the table's directories (the procedure layer answers UNSAFE_PATH). */
export class UnsafePathError extends PaimonError {
  constructor(message: string) {
    super('INVALID_ARGUMENT', message);
    this.name = 'UnsafePathError';
  }
}

export function isUnsafePathError(e: unknown): e is UnsafePathError {
  return e instanceof UnsafePathError;
}

export interface TableScopeOptions {
  /** More directories the table owns: the roots of `data-file.external-paths` (CoreOptions.dataFileExternalPaths). */
  externalPaths?: readonly string[];
}

/** Directories whose physical check passed, at most this many remembered per view. */
const CHECKED_DIRS_MAX = 4096;

export class TableScopedFileIO implements FileIO {
  readonly isObjectStore: boolean;
  /** The table root first, then the external roots; null for a view that owns nothing (every change refused). */
  private readonly places: Place[];
  private physicalRoots: Promise<string[]> | null = null;
  private readonly checkedDirs = new Set<string>();

  /** @param root the table directory (`/wh/db.db/t`, `s3://bucket/wh/db.db/t`), or null for a read-only view */
  constructor(
    private readonly inner: FileIO,
    readonly root: string | null,
    opts: TableScopeOptions = {},
  ) {
    this.isObjectStore = inner.isObjectStore;
    this.places = [];
    const owned = root === null ? [] : [root, ...(opts.externalPaths ?? [])];
    owned.forEach((r, i) => {
      const p = placeOf(r);
      if (typeof p === 'string') {
        throw new PaimonError('INVALID_ARGUMENT', i === 0 ? `table directory is not a usable path (${p})` : `data-file.external-paths entry ${i} is not a usable path (${p})`);
      }
      this.places.push(p);
    });
  }

  /** True when `path` is inside the table's directories as written (the lexical check; see check for the physical one). */
  contains(path: string): boolean {
    const p = placeOf(path);
    return typeof p !== 'string' && this.places.some((r) => within(r, p));
  }

  /** How a refusal names a path: relative to the table root, or to an external root, else only its last component. */
  private show(path: string, p: Place | string): string {
    const base = (path.replace(/\/+$/, '').split('/').pop() ?? '').slice(0, 80);
    if (typeof p === 'string') return base;
    const root = this.places[0];
    if (root !== undefined && within(root, p)) {
      const rel = root.store === '' ? nodePath.relative(root.key, p.key) : p.key.slice(root.key.length).replace(/^\/+/, '');
      return rel === '' ? '.' : rel.slice(-200);
    }
    const ext = this.places.findIndex((r, i) => i > 0 && within(r, p));
    if (ext > 0) {
      const r = this.places[ext]!;
      const rel = r.store === '' ? nodePath.relative(r.key, p.key) : p.key.slice(r.key.length).replace(/^\/+/, '');
      return `<external path ${ext}>/${rel.slice(-200)}`;
    }
    return `<outside the table>/${base}`;
  }

  private refuse(op: string, path: string, p: Place | string, why: string): never {
    throw new UnsafePathError(`refused to ${op} '${this.show(path, p)}': ${why} (a procedure changes and lists only files of its own table and its data-file.external-paths)`);
  }

  private rootsResolved(): Promise<string[]> {
    this.physicalRoots ??= Promise.all(this.places.filter((r) => r.store === '').map((r) => physicalPath(r.key)));
    return this.physicalRoots;
  }

  /**
   * Refuse a path outside the table's directories (or one that is not a clean path). `follow`:
   * the operation follows the path itself (a listing), so it is resolved whole; otherwise only
   * the directory it acts in is.
   */
  private async check(op: string, path: string, follow = false): Promise<void> {
    const p = placeOf(path);
    if (typeof p === 'string') this.refuse(op, path, p, p);
    if (!this.places.some((r) => within(r, p))) {
      this.refuse(op, path, p, this.places.length === 0 ? 'this view of the warehouse changes nothing; a procedure changes files only through its table' : 'it is outside the table directory');
    }
    if (p.store !== '') return;
    // An owned directory itself (mkdirs of the table root) is checked whole: its parent is not owned.
    const dir = follow || this.places.some((r) => r.store === '' && r.key === p.key) ? p.key : nodePath.dirname(p.key);
    if (this.checkedDirs.has(dir)) return;
    const [real, roots] = await Promise.all([physicalPath(dir), this.rootsResolved()]);
    if (!roots.some((r) => keyWithin('', r, real))) {
      this.refuse(op, path, p, 'a directory on the way is a symbolic link (or mount) that leads outside the table directory');
    }
    if (this.checkedDirs.size >= CHECKED_DIRS_MAX) this.checkedDirs.clear();
    this.checkedDirs.add(dir);
  }

  /** Check a whole batch before any of it is changed (all or nothing). */
  async assertChangeable(op: string, paths: readonly string[]): Promise<void> {
    for (const p of paths) await this.check(op, p);
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
    await this.check('write', path);
    return this.inner.writeFile(path, data);
  }
  async tryCreateAtomic(path: string, data: Buffer | string): Promise<boolean> {
    await this.check('create', path);
    return this.inner.tryCreateAtomic(path, data);
  }
  async writeStream(path: string, source: AsyncIterable<Buffer> | Readable): Promise<number> {
    await this.check('write', path);
    return this.inner.writeStream(path, source);
  }
  async *list(dir: string): AsyncIterable<FileStatus> {
    await this.check('list', dir, true);
    yield* this.inner.list(dir);
  }
  get listBatches(): ((dir: string) => AsyncIterable<FileStatusBatch>) | undefined {
    const batches = this.inner.listBatches?.bind(this.inner);
    if (!batches) return undefined;
    const check = (dir: string): Promise<void> => this.check('list', dir, true);
    return async function* (dir: string): AsyncIterable<FileStatusBatch> {
      await check(dir);
      yield* batches(dir);
    };
  }
  async *listRecursive(dir: string): AsyncIterable<FileStatus> {
    await this.check('list', dir, true);
    yield* this.inner.listRecursive(dir);
  }
  async delete(path: string): Promise<boolean> {
    await this.check('delete', path);
    return this.inner.delete(path);
  }
  async deleteMany(paths: string[]): Promise<number> {
    // All or nothing: one stray path refuses the whole batch before anything is deleted.
    await this.assertChangeable('delete', paths);
    return this.inner.deleteMany(paths);
  }
  async deleteDirectory(dir: string): Promise<void> {
    // The table directory (and an external root) itself is never removed through a procedure's view.
    if (this.isScopeRoot(dir)) throw new UnsafePathError('refused to delete the table directory itself');
    await this.check('delete', dir);
    return this.inner.deleteDirectory(dir);
  }
  /** The table directory or an external root itself (never removed through a procedure's view). */
  private isScopeRoot(dir: string): boolean {
    const p = placeOf(dir);
    return typeof p !== 'string' && this.places.some((r) => r.store === p.store && r.bucket === p.bucket && r.key === p.key);
  }
  async deleteEmptyDirectory(dir: string): Promise<boolean> {
    if (this.inner.deleteEmptyDirectory === undefined) return false;
    if (this.isScopeRoot(dir)) return false;
    await this.check('delete', dir);
    return this.inner.deleteEmptyDirectory(dir);
  }
  async mkdirs(dir: string): Promise<void> {
    await this.check('create', dir);
    return this.inner.mkdirs(dir);
  }
  async rename(from: string, to: string): Promise<boolean> {
    await this.check('rename', from);
    await this.check('rename to', to);
    return this.inner.rename(from, to);
  }
  async copyFile(from: string, to: string, overwrite: boolean): Promise<boolean> {
    await this.check('copy to', to);
    return this.inner.copyFile(from, to, overwrite);
  }
  /** The view does not own the store's clients: closing it leaves the inner FileIO open. */
  async close(): Promise<void> {}
}
