/**
 * File naming of a table's metadata and data files (`FileStorePathFactory`, `DataFilePathFactory`):
 * `manifest/manifest-<uuid>-<n>`, `manifest/manifest-list-<uuid>-<n>`,
 * `manifest/index-manifest-<uuid>-<n>`, `index/index-<uuid>-<n>`, `statistics/stat-<uuid>-<n>`,
 * and data files `<prefix><uuid>-<n>.<format>` under the bucket directory. One uuid per factory,
 * one counter per kind starting at 0, as Java does; manifests, index and data directories always
 * live at the table root, whatever the branch.
 */
import { randomUUID } from 'node:crypto';
import { join } from '../fs/path.js';
import type { BinaryRow } from '../spec/binary-row.js';
import { relativeBucketPath, type PartitionField, type PartitionPathOptions } from '../spec/partition-path.js';
import type { DataFileMeta } from '../spec/data-file-meta.js';

export const MANIFEST_DIR = 'manifest';
export const INDEX_DIR = 'index';
export const STATISTICS_DIR = 'statistics';

export class FileStorePathFactory {
  readonly uuid: string;
  private manifestCount = 0;
  private manifestListCount = 0;
  private indexManifestCount = 0;
  private indexFileCount = 0;
  private statsFileCount = 0;

  constructor(
    readonly tablePath: string,
    readonly partitionFields: readonly PartitionField[] = [],
    readonly partitionOptions: PartitionPathOptions & { dataFilePathDirectory?: string | null } = {},
    uuid: string = randomUUID(),
  ) {
    this.uuid = uuid;
  }

  manifestDir(): string {
    return join(this.tablePath, MANIFEST_DIR);
  }
  indexDir(): string {
    return join(this.tablePath, INDEX_DIR);
  }
  statisticsDir(): string {
    return join(this.tablePath, STATISTICS_DIR);
  }

  newManifestFileName(): string {
    return `manifest-${this.uuid}-${this.manifestCount++}`;
  }
  newManifestListName(): string {
    return `manifest-list-${this.uuid}-${this.manifestListCount++}`;
  }
  newIndexManifestName(): string {
    return `index-manifest-${this.uuid}-${this.indexManifestCount++}`;
  }
  newIndexFileName(): string {
    return `index-${this.uuid}-${this.indexFileCount++}`;
  }
  newStatsFileName(): string {
    return `stat-${this.uuid}-${this.statsFileCount++}`;
  }

  /** Path of a manifest, manifest list or index manifest (all in `manifest/`). */
  toManifestFilePath(fileName: string): string {
    return join(this.manifestDir(), fileName);
  }
  toIndexFilePath(fileName: string, externalPath?: string | null): string {
    return externalPath ?? join(this.indexDir(), fileName);
  }
  toStatsFilePath(fileName: string): string {
    return join(this.statisticsDir(), fileName);
  }

  relativeBucketPath(partition: BinaryRow, bucket: number): string {
    return relativeBucketPath(partition, bucket, this.partitionFields, this.partitionOptions);
  }
  bucketPath(partition: BinaryRow, bucket: number): string {
    return join(this.tablePath, this.relativeBucketPath(partition, bucket));
  }

  /** Where a data file lives (`DataFilePathFactory.toPath`): its external path if set. */
  toDataFilePath(partition: BinaryRow, bucket: number, file: Pick<DataFileMeta, 'fileName' | 'externalPath'>): string {
    return file.externalPath ?? join(this.bucketPath(partition, bucket), file.fileName);
  }

  /** A data-file name factory for one partition and bucket (its own uuid and counter). */
  dataFilePathFactory(partition: BinaryRow, bucket: number, options: { format?: string; prefix?: string; changelogPrefix?: string } = {}): DataFilePathFactory {
    return new DataFilePathFactory(this.bucketPath(partition, bucket), options.format ?? 'parquet', options.prefix ?? 'data-', options.changelogPrefix ?? 'changelog-');
  }
}

export class DataFilePathFactory {
  readonly uuid = randomUUID();
  private count = 0;

  constructor(
    readonly parent: string,
    readonly format: string,
    readonly dataFilePrefix: string,
    readonly changelogFilePrefix: string,
  ) {}

  newDataFileName(): string {
    return `${this.dataFilePrefix}${this.uuid}-${this.count++}.${this.format}`;
  }
  newChangelogFileName(): string {
    return `${this.changelogFilePrefix}${this.uuid}-${this.count++}.${this.format}`;
  }
  toPath(fileName: string): string {
    return join(this.parent, fileName);
  }
  /** `<data file>.index` beside the data file. */
  static fileIndexName(dataFileName: string): string {
    return `${dataFileName}.index`;
  }
}
