/**
 * The storage of a REST catalog's tables. A REST catalog's warehouse is a name, not a place:
 * each table's location comes from the server and may be local, `s3://...` or `oss://...`, so
 * this FileIO picks the store per path's scheme (Java's RESTCatalog opens a FileIO per table path
 * with the catalog's merged options, `fileIOFromOptions`) and keeps one client per scheme.
 * Storage options (`s3.*`) are read when a store is first used: after `GET /v1/config` merged
 * the server's defaults and overrides into them. A table whose storage credentials come from the
 * server (data tokens, data-token.ts) has a FileIO of its own; it is routed here for every path
 * under the table's location, so the catalog-wide view reaches such a table with its token too.
 */
import type { Readable } from 'node:stream';
import type { FileIO, FileStatus } from '../../fs/file-io.js';
import { createFileIO } from '../../fs/file-io-factory.js';
import { LocalFileIO } from '../../fs/local-file-io.js';
import { schemeOf } from '../../fs/path.js';

export class SchemeFileIO implements FileIO {
  private readonly stores = new Map<string, FileIO>();
  /** Table roots (with a trailing slash) whose paths go to the table's own FileIO. */
  private readonly tableRoots = new Map<string, FileIO>();
  /**
   * Tables are handed the store of their own location (`storeFor`), which knows whether it is an
   * object store; this catalog-wide view is used for reads only.
   */
  readonly isObjectStore = false;

  constructor(private readonly properties: () => Readonly<Record<string, string>>) {}

  /** Sends every path under `location` to `io` (a table's own FileIO). */
  route(location: string, io: FileIO): void {
    this.tableRoots.set(location.replace(/\/+$/, '') + '/', io);
  }

  /** The store of a path: a routed table's own, else one per scheme (bare paths and file: share the local one). */
  storeFor(path: string): FileIO {
    if (this.tableRoots.size > 0) {
      const withSlash = path.endsWith('/') ? path : `${path}/`;
      for (const [root, io] of this.tableRoots) if (withSlash.startsWith(root)) return io;
    }
    return this.schemeStore(path);
  }

  private schemeStore(path: string): FileIO {
    const s = schemeOf(path);
    const key = s === '' || s === 'file' ? 'file' : s;
    let io = this.stores.get(key);
    if (io === undefined) {
      io = key === 'file' ? new LocalFileIO() : createFileIO(path, { ...this.properties() });
      this.stores.set(key, io);
    }
    return io;
  }

  readFile(path: string): Promise<Buffer> {
    return this.storeFor(path).readFile(path);
  }
  readRange(path: string, start: number, length: number): Promise<Buffer> {
    return this.storeFor(path).readRange(path, start, length);
  }
  openRead(path: string): Promise<Readable> {
    return this.storeFor(path).openRead(path);
  }
  writeFile(path: string, data: Buffer | string): Promise<void> {
    return this.storeFor(path).writeFile(path, data);
  }
  tryCreateAtomic(path: string, data: Buffer | string): Promise<boolean> {
    return this.storeFor(path).tryCreateAtomic(path, data);
  }
  writeStream(path: string, source: AsyncIterable<Buffer> | Readable): Promise<number> {
    return this.storeFor(path).writeStream(path, source);
  }
  exists(path: string): Promise<boolean> {
    return this.storeFor(path).exists(path);
  }
  getStatus(path: string): Promise<FileStatus | null> {
    return this.storeFor(path).getStatus(path);
  }
  list(dir: string): AsyncIterable<FileStatus> {
    return this.storeFor(dir).list(dir);
  }
  listRecursive(dir: string): AsyncIterable<FileStatus> {
    return this.storeFor(dir).listRecursive(dir);
  }
  delete(path: string): Promise<boolean> {
    return this.storeFor(path).delete(path);
  }
  async deleteMany(paths: string[]): Promise<number> {
    const byStore = new Map<FileIO, string[]>();
    for (const p of paths) {
      const io = this.storeFor(p);
      const l = byStore.get(io) ?? [];
      l.push(p);
      byStore.set(io, l);
    }
    let n = 0;
    for (const [io, l] of byStore) n += await io.deleteMany(l);
    return n;
  }
  deleteDirectory(dir: string): Promise<void> {
    return this.storeFor(dir).deleteDirectory(dir);
  }
  mkdirs(dir: string): Promise<void> {
    return this.storeFor(dir).mkdirs(dir);
  }
  rename(from: string, to: string): Promise<boolean> {
    return this.storeFor(from).rename(from, to);
  }
  copyFile(from: string, to: string, overwrite: boolean): Promise<boolean> {
    return this.storeFor(from).copyFile(from, to, overwrite);
  }
  /** Closes the scheme stores; routed table FileIOs belong to their owner, who closes them. */
  async close(): Promise<void> {
    const all = [...this.stores.values()];
    this.stores.clear();
    this.tableRoots.clear();
    await Promise.all(all.map((s) => s.close()));
  }
}
