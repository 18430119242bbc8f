/**
 * Versioned files and their EARLIEST/LATEST hints (`HintFileUtils`, `FileUtils.listVersionedFiles`).
 *
 * Hints are the decimal id with no newline. Java treats them as hints only:
 * - latest: trust LATEST=N when `<prefix>(N+1)` does not exist, else the max over the listing;
 * - earliest: trust EARLIEST=N when `<prefix>N` exists, else the min over the listing.
 * pypaimon 1.3/1.4 trust LATEST without the N+1 check, so writers must keep it exact.
 */
import type { FileIO, FileStatus } from '../fs/file-io.js';
import { join, name as baseName } from '../fs/path.js';

export const EARLIEST = 'EARLIEST';
export const LATEST = 'LATEST';

const READ_HINT_RETRIES = 3;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The id a versioned file name carries (`snapshot-12` -> 12), or null for other names. */
export function versionOf(fileName: string, prefix: string): number | null {
  if (!fileName.startsWith(prefix)) return null;
  const rest = fileName.slice(prefix.length);
  if (!/^\d{1,16}$/.test(rest)) return null;
  const n = Number(rest);
  return Number.isSafeInteger(n) ? n : null;
}

/** Status of each `<prefix><n>` file directly in `dir`, streamed, unsorted. */
export async function* listVersionedFileStatus(
  fileIO: FileIO,
  dir: string,
  prefix: string,
): AsyncIterable<{ status: FileStatus; version: number }> {
  for await (const st of fileIO.list(dir)) {
    if (st.isDir) continue;
    const v = versionOf(baseName(st.path), prefix);
    if (v !== null) yield { status: st, version: v };
  }
}

/** Names after the prefix of every `<prefix>*` entry (consumer ids, tag names): `listOriginalVersionedFiles`. */
export async function* listOriginalVersionedFiles(
  fileIO: FileIO,
  dir: string,
  prefix: string,
): AsyncIterable<{ status: FileStatus; suffix: string }> {
  for await (const st of fileIO.list(dir)) {
    if (st.isDir) continue;
    const n = baseName(st.path);
    if (n.startsWith(prefix) && n.length > prefix.length) yield { status: st, suffix: n.slice(prefix.length) };
  }
}

export async function readHint(fileIO: FileIO, dir: string, hint: string): Promise<number | null> {
  const path = join(dir, hint);
  for (let i = 0; i < READ_HINT_RETRIES; i++) {
    try {
      const text = (await fileIO.readFile(path)).toString('utf8').trim();
      if (!/^\d{1,16}$/.test(text)) return null;
      return Number(text);
    } catch (e) {
      if ((e as { code?: string }).code === 'FILE_NOT_FOUND') return null;
      if (i + 1 < READ_HINT_RETRIES) await sleep(1);
    }
  }
  return null;
}

async function reduceListing(
  fileIO: FileIO,
  dir: string,
  prefix: string,
  pick: (a: number, b: number) => number,
): Promise<number | null> {
  let best: number | null = null;
  for await (const { version } of listVersionedFileStatus(fileIO, dir, prefix)) {
    best = best === null ? version : pick(best, version);
  }
  return best;
}

export async function findLatest(
  fileIO: FileIO,
  dir: string,
  prefix: string,
  fileOf: (id: number) => string,
): Promise<number | null> {
  const hinted = await readHint(fileIO, dir, LATEST);
  if (hinted !== null && hinted > 0 && !(await fileIO.exists(fileOf(hinted + 1)))) return hinted;
  return reduceListing(fileIO, dir, prefix, Math.max);
}

export async function findEarliest(
  fileIO: FileIO,
  dir: string,
  prefix: string,
  fileOf: (id: number) => string,
): Promise<number | null> {
  const hinted = await readHint(fileIO, dir, EARLIEST);
  if (hinted !== null && (await fileIO.exists(fileOf(hinted)))) return hinted;
  return reduceListing(fileIO, dir, prefix, Math.min);
}

/** Overwrite a hint file (3 tries, as `HintFileUtils.commitHint`). */
export async function commitHint(fileIO: FileIO, dir: string, hint: string, id: number): Promise<void> {
  let last: unknown;
  for (let i = 0; i < 3; i++) {
    try {
      await fileIO.writeFile(join(dir, hint), String(id));
      return;
    } catch (e) {
      last = e;
      if (i < 2) await sleep(50 + Math.floor(Math.random() * 100));
    }
  }
  throw last;
}

export async function deleteHint(fileIO: FileIO, dir: string, hint: string): Promise<void> {
  await fileIO.delete(join(dir, hint));
}
