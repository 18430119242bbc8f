/**
 * Identity and merge semantics of manifest entries (`FileEntry.Identifier`, `FileEntry.mergeEntries`).
 * A file is identified by (partition bytes, bucket, level, file name, extra files, embedded index,
 * external path). Entries are applied in order: an ADD of a live identifier is an error; a DELETE
 * cancels an earlier ADD, or is kept when its ADD lives in an older manifest.
 */
import { PaimonError } from '../errors.js';
import type { ManifestEntry } from './manifest-entry.js';

/** A string that is equal for two entries exactly when Java's `Identifier.equals` is true. */
export function fileIdentifier(e: ManifestEntry): string {
  const f = e.file;
  // \u0000 cannot occur in file names or paths; extra files are joined with \u0001.
  let id = `${e.partition.key()}\u0000${e.bucket}\u0000${f.level}\u0000${f.fileName}`;
  if (f.extraFiles.length > 0) id += `\u0000x${f.extraFiles.join('\u0001')}`;
  if (f.embeddedIndex !== null) id += `\u0000i${f.embeddedIndex.toString('hex')}`;
  if (f.externalPath !== null) id += `\u0000p${f.externalPath}`;
  return id;
}

/**
 * Merges entries into `map` (keyed by identifier, insertion-ordered) as `FileEntry.mergeEntries`.
 * Throws CORRUPT_METADATA on a second ADD of the same file.
 */
export function mergeEntries(entries: Iterable<ManifestEntry>, map: Map<string, ManifestEntry> = new Map()): Map<string, ManifestEntry> {
  for (const e of entries) {
    const id = fileIdentifier(e);
    if (e.kind === 'ADD') {
      if (map.has(id)) {
        throw new PaimonError('CORRUPT_METADATA', `Trying to add file ${e.file.fileName} (bucket ${e.bucket}, level ${e.file.level}) which is already added`);
      }
      map.set(id, e);
    } else if (map.has(id)) {
      map.delete(id);
    } else {
      map.set(id, e);
    }
  }
  return map;
}
