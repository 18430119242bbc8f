/**
 * FileIO on the local file system (node:fs). Paths are absolute local paths or `file:` URIs;
 * listings answer in the spelling of the directory they were asked for.
 *
 * Atomicity: every overwrite goes through a temp file (`.<name>.<uuid>.tmp`, as Paimon's
 * `Path.createTempPath`) and rename(2), so readers never see a half-written file.
 * Create-if-absent publishes the fully written temp file with link(2), which fails with EEXIST
 * when the target exists — exclusive across processes, unlike Paimon's LocalFileIO (a JVM-local
 * lock plus a rename that would silently replace the target).
 */
import { randomUUID } from 'node:crypto';
import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, promises as fsp, readSync, statSync, type Stats } from 'node:fs';
import * as nodePath from 'node:path';
import { Readable } from 'node:stream';
import { PaimonError } from '../errors.js';
import type { FileIO, FileStatus, FileStatusBatch } from './file-io.js';
import { localListPool } from './local-list-pool.js';
import { join, parseUri, schemeOf, tempPathFor } from './path.js';

function errCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}

/** INVALID_ARGUMENT when a component of `local` is longer than NAME_MAX or the whole longer than PATH_MAX (bytes of UTF-8). */
export function checkNameLengths(local: string, show: (p: string) => string = (p) => p): void {
  if (Buffer.byteLength(local) > MAX_PATH_BYTES) {
    throw new PaimonError('INVALID_ARGUMENT', `path ${show(local)} is longer than the file system allows (${MAX_PATH_BYTES} bytes)`);
  }
  for (const part of local.split('/')) {
    if (part.length * 3 > MAX_NAME_BYTES && Buffer.byteLength(part) > MAX_NAME_BYTES) {
      throw new PaimonError('INVALID_ARGUMENT', `the name '${part.slice(0, 40)}...' (${Buffer.byteLength(part)} bytes) in ${show(nodePath.dirname(local))} is longer than the file system allows (${MAX_NAME_BYTES} bytes per name)`);
    }
  }
}

/** Directory entries read and stat'ed per turn of the event loop (see list). */
const LIST_BATCH = 1024;

/** Files up to this size are read synchronously (see readFile). */
const SYNC_READ_MAX = 256 * 1024;

/** The longest name of one path component on Linux file systems (NAME_MAX), in bytes. */
export const MAX_NAME_BYTES = 255;
/** The longest path the kernel accepts (PATH_MAX, terminating NUL included), in bytes. */
export const MAX_PATH_BYTES = 4095;

export interface LocalFileIOOptions {
  /**
   * The warehouse directory: error messages name paths relative to it (`db.db/t/snapshot/...`),
   * so that a client never learns where the warehouse lives on the server. Paths outside it
   * are named by their last component only.
   */
  root?: string;
}

export class LocalFileIO implements FileIO {
  readonly isObjectStore = false;
  private readonly root: string | null;

  constructor(opts: LocalFileIOOptions = {}) {
    this.root = opts.root !== undefined ? nodePath.resolve(parseUri(opts.root).path) : null;
  }

  /** The node:fs path for a local path or file: URI; names too long for the file system are refused before any system call. */
  toLocal(p: string): string {
    const scheme = schemeOf(p);
    if (scheme !== '' && scheme !== 'file') {
      throw new PaimonError('INVALID_ARGUMENT', `LocalFileIO cannot open ${scheme}:// paths: ${this.show(p)}`);
    }
    const local = parseUri(p).path;
    if (!nodePath.isAbsolute(local)) {
      throw new PaimonError('INVALID_ARGUMENT', `local paths must be absolute: ${this.show(p)}`);
    }
    checkNameLengths(local, (q) => this.show(q));
    return local;
  }

  /** How a message names a path: relative to the warehouse when there is one. */
  show(p: string): string {
    if (this.root === null) return p;
    let local: string;
    try {
      local = nodePath.resolve(parseUri(p).path);
    } catch {
      return nodePath.basename(p);
    }
    if (local === this.root) return '.';
    const rel = nodePath.relative(this.root, local);
    if (rel !== '' && !rel.startsWith('..') && !nodePath.isAbsolute(rel)) return rel;
    return `<outside the warehouse>/${nodePath.basename(local)}`;
  }

  private wrap(e: unknown, op: string, ...paths: string[]): PaimonError {
    if (e instanceof PaimonError) return e;
    const code = errCode(e);
    const p = paths.map((q) => this.show(q)).join(' -> ');
    if (code === 'ENOENT') return new PaimonError('FILE_NOT_FOUND', `file not found: ${p}`, { cause: e });
    if (code === 'EEXIST') return new PaimonError('FILE_ALREADY_EXISTS', `file already exists: ${p}`, { cause: e });
    if (code === 'ENAMETOOLONG') {
      return new PaimonError('INVALID_ARGUMENT', `${op} of ${p}: a name is longer than the file system allows (${MAX_NAME_BYTES} bytes per name)`, { cause: e });
    }
    // The system error's own message names the absolute path: only its code goes into ours.
    return new PaimonError('STORAGE_ERROR', `${op} failed for ${p}: ${code ?? 'I/O error'}`, {
      cause: e,
    });
  }

  async readFile(path: string): Promise<Buffer> {
    const local = this.toLocal(path);
    try {
      // Metadata files (snapshots, schemas, tags, hints) are a few KB: one synchronous
      // open/fstat/read/close costs microseconds, while the promise API queues four thread-pool
      // round trips per file, which dominates reading thousands of snapshots. Larger files take
      // the asynchronous path so the event loop is never blocked for long.
      const fd = openSync(local, 'r');
      let small: Buffer | undefined;
      try {
        const st = fstatSync(fd);
        if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
        if (st.size <= SYNC_READ_MAX) {
          const buf = Buffer.allocUnsafe(st.size);
          let off = 0;
          while (off < st.size) {
            const n = readSync(fd, buf, off, st.size - off, off);
            if (n === 0) break;
            off += n;
          }
          small = off === st.size ? buf : buf.subarray(0, off);
        }
      } finally {
        closeSync(fd);
      }
      return small ?? (await fsp.readFile(local));
    } catch (e) {
      throw this.wrap(e, 'read', path);
    }
  }

  async readRange(path: string, start: number, length: number): Promise<Buffer> {
    if (start < 0 || length < 0) throw new PaimonError('INVALID_ARGUMENT', `bad range ${start}+${length} for ${this.show(path)}`);
    let fh: fsp.FileHandle | undefined;
    try {
      fh = await fsp.open(this.toLocal(path), 'r');
      const buf = Buffer.allocUnsafe(length);
      let off = 0;
      while (off < length) {
        const { bytesRead } = await fh.read(buf, off, length - off, start + off);
        if (bytesRead === 0) break;
        off += bytesRead;
      }
      if (off < length) {
        throw new PaimonError(
          'CORRUPT_METADATA',
          `short read: wanted ${length} bytes at offset ${start} of ${this.show(path)}, file ends after ${off}`,
        );
      }
      return buf;
    } catch (e) {
      throw this.wrap(e, 'read', path);
    } finally {
      await fh?.close();
    }
  }

  async openRead(path: string): Promise<Readable> {
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(this.toLocal(path), 'r');
    } catch (e) {
      throw this.wrap(e, 'open', path);
    }
    return fh.createReadStream({ autoClose: true });
  }

  private async mkParent(local: string): Promise<void> {
    await fsp.mkdir(nodePath.dirname(local), { recursive: true });
  }

  /** Write bytes to a fresh temp file beside `target` and fsync it; returns the temp path. */
  private async writeTemp(targetLocal: string, data: Buffer | string): Promise<string> {
    await this.mkParent(targetLocal);
    const tmp = tempPathFor(targetLocal, randomUUID());
    const fh = await fsp.open(tmp, 'wx');
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    return tmp;
  }

  async writeFile(path: string, data: Buffer | string): Promise<void> {
    const local = this.toLocal(path);
    let tmp: string | undefined;
    try {
      tmp = await this.writeTemp(local, data);
      await fsp.rename(tmp, local);
      tmp = undefined;
    } catch (e) {
      throw this.wrap(e, 'write', path);
    } finally {
      if (tmp) await fsp.rm(tmp, { force: true });
    }
  }

  async tryCreateAtomic(path: string, data: Buffer | string): Promise<boolean> {
    const local = this.toLocal(path);
    let tmp: string | undefined;
    try {
      tmp = await this.writeTemp(local, data);
      try {
        await fsp.link(tmp, local);
        return true;
      } catch (e) {
        const code = errCode(e);
        if (code === 'EEXIST') return false;
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw e;
      }
      // File systems without hard links: exclusive create. The target becomes visible before its
      // content is complete, so readers may briefly see a short file (Paimon readers retry parsing).
      let fh: fsp.FileHandle;
      try {
        fh = await fsp.open(local, 'wx');
      } catch (e) {
        if (errCode(e) === 'EEXIST') return false;
        throw e;
      }
      try {
        await fh.writeFile(data);
        await fh.sync();
      } finally {
        await fh.close();
      }
      return true;
    } catch (e) {
      throw this.wrap(e, 'create', path);
    } finally {
      if (tmp) await fsp.rm(tmp, { force: true });
    }
  }

  async writeStream(path: string, source: AsyncIterable<Buffer> | Readable): Promise<number> {
    const local = this.toLocal(path);
    let tmp: string | undefined;
    try {
      await this.mkParent(local);
      tmp = tempPathFor(local, randomUUID());
      const fh = await fsp.open(tmp, 'wx');
      let written = 0;
      try {
        for await (const chunk of source) {
          const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
          let off = 0;
          while (off < b.length) {
            const { bytesWritten } = await fh.write(b, off, b.length - off);
            off += bytesWritten;
          }
          written += b.length;
        }
        await fh.sync();
      } finally {
        await fh.close();
      }
      await fsp.rename(tmp, local);
      tmp = undefined;
      return written;
    } catch (e) {
      throw this.wrap(e, 'write', path);
    } finally {
      if (tmp) await fsp.rm(tmp, { force: true });
    }
  }

  async exists(path: string): Promise<boolean> {
    return (await this.getStatus(path)) !== null;
  }

  async getStatus(path: string): Promise<FileStatus | null> {
    try {
      // stat(2) on a local disk takes microseconds; see readFile for why not the promise API.
      const local = this.toLocal(path);
      const l = lstatSync(local);
      if (!l.isSymbolicLink()) return { path, size: l.size, modificationTime: Math.floor(l.mtimeMs), isDir: l.isDirectory() };
      const st = targetStat(local) ?? l;
      return { path, size: st.size, modificationTime: Math.floor(st.mtimeMs), isDir: st.isDirectory(), isSymlink: true };
    } catch (e) {
      if (errCode(e) === 'ENOENT' || errCode(e) === 'ENOTDIR') return null;
      throw this.wrap(e, 'stat', path);
    }
  }

  /**
   * Entries are read from the directory in batches of LIST_BATCH with synchronous readdir and
   * stat calls (microseconds each on a local disk; a promise per entry cost more than the
   * syscall), and the event loop gets a turn between batches, so a directory of a million
   * files neither blocks other work nor holds more than one batch.
   */
  async *list(dir: string): AsyncIterable<FileStatus> {
    const local = this.toLocal(dir);
    let handle: import('node:fs').Dir;
    try {
      handle = await fsp.opendir(local, { bufferSize: LIST_BATCH });
    } catch (e) {
      if (errCode(e) === 'ENOENT') return;
      throw this.wrap(e, 'list', dir);
    }
    const prefix = local.endsWith('/') ? local : `${local}/`;
    try {
      let n = 0;
      for (;;) {
        let ent: import('node:fs').Dirent | null;
        try {
          ent = handle.readSync();
        } catch (e) {
          if (errCode(e) === 'ENOENT') return; // the directory went away while listing
          throw this.wrap(e, 'list', dir);
        }
        if (ent === null) return;
        if (++n % LIST_BATCH === 0) await new Promise<void>((r) => setImmediate(r));
        const child = join(dir, ent.name);
        const link = ent.isSymbolicLink();
        let st: Stats;
        try {
          st = link ? (targetStat(prefix + ent.name) ?? lstatSync(prefix + ent.name)) : statSync(prefix + ent.name);
        } catch (e) {
          if (errCode(e) === 'ENOENT') continue; // deleted while listing
          throw this.wrap(e, 'stat', child);
        }
        const status: FileStatus = { path: child, size: st.size, modificationTime: Math.floor(st.mtimeMs), isDir: st.isDirectory() };
        if (link) status.isSymlink = true;
        yield status;
      }
    } finally {
      handle.closeSync();
    }
  }

  /** `list` in batches, read on a worker thread (local-list-pool.ts). */
  async *listBatches(dir: string): AsyncIterable<FileStatusBatch> {
    const local = this.toLocal(dir);
    try {
      yield* localListPool().list(local);
    } catch (e) {
      throw this.wrap(e, 'list', dir);
    }
  }

  async *listRecursive(dir: string): AsyncIterable<FileStatus> {
    for await (const st of this.list(dir)) {
      if (st.isDir && st.isSymlink) continue; // never walk out of the tree through a link
      if (st.isDir) yield* this.listRecursive(st.path);
      else yield st;
    }
  }

  async delete(path: string): Promise<boolean> {
    const local = this.toLocal(path);
    try {
      await fsp.unlink(local);
      return true;
    } catch (e) {
      const code = errCode(e);
      if (code === 'ENOENT') return false;
      if (code === 'EISDIR' || code === 'EPERM') {
        try {
          await fsp.rmdir(local);
          return true;
        } catch (e2) {
          throw this.wrap(e2, 'delete', path);
        }
      }
      throw this.wrap(e, 'delete', path);
    }
  }

  async deleteMany(paths: string[]): Promise<number> {
    let n = 0;
    const width = 16;
    for (let i = 0; i < paths.length; i += width) {
      const results = await Promise.all(paths.slice(i, i + width).map((p) => this.delete(p)));
      n += results.filter(Boolean).length;
    }
    return n;
  }

  async deleteDirectory(dir: string): Promise<void> {
    try {
      await fsp.rm(this.toLocal(dir), { recursive: true, force: true });
    } catch (e) {
      throw this.wrap(e, 'delete', dir);
    }
  }

  async deleteEmptyDirectory(dir: string): Promise<boolean> {
    try {
      // rmdir refuses a directory that is not empty (ENOTEMPTY), so a file written meanwhile stays.
      await fsp.rmdir(this.toLocal(dir));
      return true;
    } catch {
      return false;
    }
  }

  async mkdirs(dir: string): Promise<void> {
    try {
      await fsp.mkdir(this.toLocal(dir), { recursive: true });
    } catch (e) {
      throw this.wrap(e, 'mkdirs', dir);
    }
  }

  async rename(from: string, to: string): Promise<boolean> {
    const src = this.toLocal(from);
    const dst = this.toLocal(to);
    try {
      const st = await fsp.stat(src);
      await this.mkParent(dst);
      if (st.isDirectory()) {
        // rename(2) would replace an empty target directory; refuse any existing target.
        if (await this.exists(to)) return false;
        await fsp.rename(src, dst);
        return true;
      }
      // Files: link + unlink never replaces an existing target, even across processes.
      try {
        await fsp.link(src, dst);
      } catch (e) {
        if (errCode(e) === 'EEXIST') return false;
        throw e;
      }
      await fsp.unlink(src);
      return true;
    } catch (e) {
      throw this.wrap(e, 'rename', from, to);
    }
  }

  async copyFile(from: string, to: string, overwrite: boolean): Promise<boolean> {
    const src = this.toLocal(from);
    const dst = this.toLocal(to);
    try {
      await this.mkParent(dst);
      if (!overwrite) {
        try {
          await fsp.copyFile(src, dst, fsConstants.COPYFILE_EXCL);
          return true;
        } catch (e) {
          if (errCode(e) === 'EEXIST') return false;
          throw e;
        }
      }
      const tmp = tempPathFor(dst, randomUUID());
      try {
        await fsp.copyFile(src, tmp);
        await fsp.rename(tmp, dst);
      } finally {
        await fsp.rm(tmp, { force: true });
      }
      return true;
    } catch (e) {
      throw this.wrap(e, 'copy', from, to);
    }
  }

  async close(): Promise<void> {}
}

/** The status of a link's target; null when the target is missing (a dangling link). */
function targetStat(local: string): Stats | null {
  try {
    return statSync(local);
  } catch (e) {
    if (errCode(e) === 'ENOENT' || errCode(e) === 'ENOTDIR' || errCode(e) === 'ELOOP') return null;
    throw e;
  }
}
