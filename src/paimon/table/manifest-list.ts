/**
 * Reading and writing manifest lists (`ManifestList`): files of `ManifestFileMeta` records in
 * `manifest/`, in the table's `manifest.format` (Avro or Parquet). A list is always written, even with no records (the delta list of an
 * empty commit); its exact byte size goes into the snapshot's `*ManifestListSize`.
 */
import type { FileIO } from '../fs/file-io.js';
import { MANIFEST_FILE_META_SCHEMA } from '../spec/avro-schemas.js';
import { manifestFileMetaFromRecord, manifestFileMetaToRecord, type ManifestFileMeta } from '../spec/manifest-file-meta.js';
import { encodeMetadataFile, readMetadataRecords, type MetadataFileOptions } from './manifest-file.js';
import type { FileStorePathFactory } from './file-store-path-factory.js';
import type { Snapshot } from '../spec/snapshot.js';

export interface WrittenFile {
  fileName: string;
  fileSize: number;
}

export class ManifestList {
  constructor(
    readonly fileIO: FileIO,
    readonly pathFactory: FileStorePathFactory,
    readonly options: MetadataFileOptions = {},
  ) {}

  async read(fileName: string): Promise<ManifestFileMeta[]> {
    const path = this.pathFactory.toManifestFilePath(fileName);
    const what = `manifest list ${path}`;
    const out: ManifestFileMeta[] = [];
    for (const r of await readMetadataRecords(await this.fileIO.readFile(path), what)) out.push(manifestFileMetaFromRecord(r, what));
    return out;
  }

  /** Base then delta manifests: every data manifest of the snapshot (`readDataManifests`). */
  async readDataManifests(snapshot: Pick<Snapshot, 'baseManifestList' | 'deltaManifestList'>): Promise<ManifestFileMeta[]> {
    const [base, delta] = await Promise.all([this.read(snapshot.baseManifestList), this.read(snapshot.deltaManifestList)]);
    return [...base, ...delta];
  }

  async readDeltaManifests(snapshot: Pick<Snapshot, 'deltaManifestList'>): Promise<ManifestFileMeta[]> {
    return this.read(snapshot.deltaManifestList);
  }

  async readChangelogManifests(snapshot: Pick<Snapshot, 'changelogManifestList'>): Promise<ManifestFileMeta[]> {
    return typeof snapshot.changelogManifestList === 'string' ? this.read(snapshot.changelogManifestList) : [];
  }

  /** Writes a new manifest list and returns its name and exact size. */
  async write(metas: readonly ManifestFileMeta[]): Promise<WrittenFile> {
    const fileName = this.pathFactory.newManifestListName();
    const data = await encodeMetadataFile(MANIFEST_FILE_META_SCHEMA, metas.map(manifestFileMetaToRecord), this.options, `manifest list ${fileName}`);
    await this.fileIO.writeFile(this.pathFactory.toManifestFilePath(fileName), data);
    return { fileName, fileSize: data.length };
  }
}
