/**
 * Local temp files for remove_orphan_files past its in-memory threshold: a directory of
 * line-oriented files (one record a line, fields separated by tabs), written through small
 * buffers and read back in fixed-size chunks, so neither side ever holds a whole file.
 * Records are routed to partitions by a seeded 32-bit FNV-1a hash of the file name, so the
 * candidates and the reachable names of one partition can be matched in memory on their own
 * (a hash-partitioned anti-join, re-split with a new seed when a partition is still too big).
 *
 * The directory is created on first use and removed by `dispose()` (the caller runs it in a
 * `finally`, so success, failure and abort all clean up). A SIGKILL leaves it behind, named
 * `paimon-orphans-<pid>-...` under the configured spill directory (default the OS temp dir); the
 * next call that spills removes the directories of processes that no longer run.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processTempDirName, sweepDeadProcessDirs } from '../../src/paimon/fs/process-temp-dir.js';

/** Partitions a spilled set is split into (and each oversized partition again), unless the SpillSpace says otherwise. */
export const SPILL_FANOUT = 32;

/** Seeded FNV-1a over the UTF-16 code units of `s`, finalized, as an unsigned 32-bit number. */
export function hashName(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ Math.imul(seed + 1, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // murmur3's finalizer: FNV's low bits (what `% fanout` uses) depend weakly on the seed alone.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const NEEDS_ESCAPE = /[\\\t\n\r]/;

/** A field that may hold any character, made safe for the tab/newline record format. */
export function escapeField(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return s;
  return s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

export function unescapeField(s: string): string {
  if (s.indexOf('\\') < 0) return s;
  return s.replace(/\\(.)/g, (_m, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : c === 'r' ? '\r' : c));
}

const WRITE_BUFFER_CHARS = 32 * 1024;
const READ_CHUNK_BYTES = 1024 * 1024;

/** An append-only line file with a small write buffer. */
export class LineWriter {
  private fd: number | null;
  private buf = '';
  lines = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  /** Append one line (without its newline). */
  write(line: string): void {
    this.buf += line;
    this.buf += '\n';
    this.lines++;
    if (this.buf.length >= WRITE_BUFFER_CHARS) this.flush();
  }

  flush(): void {
    if (this.buf.length === 0 || this.fd === null) return;
    writeSync(this.fd, this.buf);
    this.buf = '';
  }

  close(): void {
    if (this.fd === null) return;
    this.flush();
    closeSync(this.fd);
    this.fd = null;
  }
}

/** The lines of a file, read `READ_CHUNK_BYTES` at a time (a line may span chunks). */
export function* readLines(path: string): Generator<string> {
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    // Bytes after the last newline of the previous chunk (kept as bytes: they may end inside a character).
    let carry: Buffer = Buffer.alloc(0);
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      const lastNl = chunk.lastIndexOf(10, n - 1);
      if (lastNl < 0) {
        carry = Buffer.concat([carry, chunk.subarray(0, n)]);
        continue;
      }
      const text = carry.length === 0 ? chunk.toString('utf8', 0, lastNl) : Buffer.concat([carry, chunk.subarray(0, lastNl)]).toString('utf8');
      carry = Buffer.from(chunk.subarray(lastNl + 1, n));
      let start = 0;
      for (;;) {
        const nl = text.indexOf('\n', start);
        if (nl < 0) {
          yield text.slice(start);
          break;
        }
        yield text.slice(start, nl);
        start = nl + 1;
      }
    }
    if (carry.length > 0) yield carry.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Lines routed to `fanout` files by the hash of a key. */
export class PartitionedWriter {
  readonly writers: LineWriter[];

  constructor(
    readonly dir: string,
    readonly seed: number,
    readonly fanout: number = SPILL_FANOUT,
  ) {
    mkdirSync(dir, { recursive: true });
    this.writers = Array.from({ length: fanout }, (_, i) => new LineWriter(join(dir, `p${i}`)));
  }

  write(key: string, line: string): void {
    this.writers[hashName(key, this.seed) % this.fanout]!.write(line);
  }

  close(): void {
    for (const w of this.writers) w.close();
  }

  get lines(): number {
    let n = 0;
    for (const w of this.writers) n += w.lines;
    return n;
  }
}

const SPILL_DIR_PREFIX = 'paimon-orphans';

/**
 * The temp directory of one remove_orphan_files call, created on first use as
 * `paimon-orphans-<pid>-<random>`; creating one removes those left by processes that no longer run.
 */
export class SpillSpace {
  private root: string | null = null;
  private seq = 0;
  /** Bytes written is not tracked; `used` says whether anything was spilled at all. */
  used = false;

  constructor(
    private readonly base: string = tmpdir(),
    /** Partitions per split (tests use a small one to exercise re-splitting cheaply). */
    readonly fanout: number = SPILL_FANOUT,
  ) {
    if (!Number.isInteger(fanout) || fanout < 2) throw new Error(`spill fan-out must be an integer >= 2, got ${fanout}`);
  }

  /** A fresh, empty sub-directory. */
  newDir(prefix: string): string {
    if (this.root === null) {
      mkdirSync(this.base, { recursive: true });
      sweepDeadProcessDirs(this.base, SPILL_DIR_PREFIX);
      this.root = mkdtempSync(join(this.base, `${processTempDirName(SPILL_DIR_PREFIX)}-`));
    }
    this.used = true;
    const d = join(this.root, `${prefix}-${this.seq++}`);
    mkdirSync(d, { recursive: true });
    return d;
  }

  /** The directory, once created (for logs and tests). */
  get location(): string | null {
    return this.root;
  }

  dispose(): void {
    if (this.root === null) return;
    rmSync(this.root, { recursive: true, force: true });
    this.root = null;
  }
}
