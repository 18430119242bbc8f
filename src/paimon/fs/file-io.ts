/**
 * The storage boundary of the Paimon library (Paimon's `FileIO`). Paths are absolute URIs
 * or local absolute paths as the table's warehouse spells them (`/wh/db.db/t/...`,
 * `file:///wh/...`, `s3://bucket/wh/...`). Everything above this interface is pure.
 * Implementations: local-file-io.ts (node:fs), s3-file-io.ts (AWS SDK v3) and webhdfs-file-io.ts (HDFS over WebHDFS).
 */
import type { Readable } from 'node:stream';

export interface FileStatus {
  /** Full path, in the same scheme as the listed directory. */
  path: string;
  /** Size in bytes. */
  size: number;
  /** Last modification time, epoch milliseconds. */
  modificationTime: number;
  isDir: boolean;
  /**
   * A symbolic link (local file systems): `isDir`, `size` and `modificationTime` describe its
   * target (or the link itself when the target is missing). Walks never descend into a linked
   * directory, so nothing outside the listed tree is reached through one.
   */
  isSymlink?: boolean;
}

/** Entries of one directory as parallel arrays (FileIO.listBatches); a path is `join(dir, names[i])`. */
export interface FileStatusBatch {
  names: readonly string[];
  sizes: ArrayLike<number>;
  /** Epoch milliseconds. */
  modificationTimes: ArrayLike<number>;
  /** 1 for a directory. */
  isDir: ArrayLike<number>;
  /** 1 for a symbolic link (see FileStatus.isSymlink); absent where the store has none. */
  isLink?: ArrayLike<number>;
}

export interface FileIO {
  /** Whole small file (metadata: snapshots, schemas, manifests). FILE_NOT_FOUND if absent. */
  readFile(path: string): Promise<Buffer>;
  /** Byte range [start, start+length) of a file (footers, column chunks); CORRUPT_METADATA if the file ends before it. */
  readRange(path: string, start: number, length: number): Promise<Buffer>;
  /** Streaming read of a whole file. */
  openRead(path: string): Promise<Readable>;
  /** Overwrite (or create) a file with the given bytes; parents are created as needed. */
  writeFile(path: string, data: Buffer | string): Promise<void>;
  /**
   * Create the file only if it does not exist yet, atomically: true when this call created it,
   * false when it already existed (nobody's content was overwritten). Exclusive create or hard
   * link locally; `If-None-Match: *` on S3. Used for snapshot files and other commit points.
   */
  tryCreateAtomic(path: string, data: Buffer | string): Promise<boolean>;
  /** Streaming write; the file becomes visible when the returned promise resolves. */
  writeStream(path: string, source: AsyncIterable<Buffer> | Readable): Promise<number>;
  exists(path: string): Promise<boolean>;
  /** Status of one file or directory; null if absent. */
  getStatus(path: string): Promise<FileStatus | null>;
  /** Direct children of a directory (files and sub-directories), paginated internally. Empty if absent. */
  list(dir: string): AsyncIterable<FileStatus>;
  /**
   * Optional: the direct children of a directory in batches, for scans of very many files
   * (remove_orphan_files). Same entries as `list` (empty if absent); implementations may list
   * on other threads and keep at most a few batches ahead of the consumer.
   */
  listBatches?(dir: string): AsyncIterable<FileStatusBatch>;
  /** Every file (not directory) below a directory, recursively, streamed. */
  listRecursive(dir: string): AsyncIterable<FileStatus>;
  /** Delete one file; false if it did not exist. */
  delete(path: string): Promise<boolean>;
  /** Delete many files (batched where the store supports it); returns the number deleted. */
  deleteMany(paths: string[]): Promise<number>;
  /** Delete a directory and everything below it. */
  deleteDirectory(dir: string): Promise<void>;
  /**
   * Optional (stores with real directories): delete `dir` only if it is empty, as Hadoop's
   * `delete(path, false)`; false when it is not empty, absent or not removable. Object stores have
   * no directories to leave behind and do not implement it.
   */
  deleteEmptyDirectory?(dir: string): Promise<boolean>;
  mkdirs(dir: string): Promise<void>;
  /** Rename within one store; false if the target existed (no overwrite). */
  rename(from: string, to: string): Promise<boolean>;
  /**
   * Copy one file (Paimon `FileIO.copyFile`). With overwrite=false and an existing target,
   * returns false and leaves the target alone.
   */
  copyFile(from: string, to: string, overwrite: boolean): Promise<boolean>;
  /** True for S3-like stores where rename is copy+delete (Paimon `FileIO.isObjectStore`). */
  readonly isObjectStore: boolean;
  /** Release clients and sockets. Safe to call more than once. */
  close(): Promise<void>;
}
