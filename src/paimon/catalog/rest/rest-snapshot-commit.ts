/**
 * `CatalogSnapshotCommit` over the REST API (`RESTApi.commitSnapshot`): `POST
 * .../tables/{object}/commit` with `CommitTableRequest` { tableId (the table's uuid from
 * getTable, so a commit never lands on a table re-created under the same name), baseSnapshotUuid
 * (2.0: the uuid of the snapshot this one was built on; 1.4 servers ignore it), snapshot (Paimon's
 * own JSON of it, uuid included), statistics (PartitionStatistics of the delta) }. The answer
 * `{success: false}` means another commit came first: not committed, the caller retries from the
 * new latest. The catalog writes the snapshot file and the LATEST hint itself.
 */
import type { JsonValue } from '../../spec/json.js';
import { snapshotToJsonObject, type Snapshot } from '../../spec/snapshot.js';
import type { PartitionStatistics, SnapshotCommit } from '../snapshot-commit.js';
import type { RestClient } from './rest-client.js';
import type { ResourcePaths } from './resource-paths.js';
import { identifierToString } from '../identifier.js';

export interface RestTableRef {
  database: string;
  table: string;
  /** undefined: main. */
  branch?: string;
  /** The table's uuid (`GetTableResponse.id`). */
  uuid: string;
}

export class RestSnapshotCommit implements SnapshotCommit {
  readonly wantsStatistics = true;

  constructor(
    private readonly client: RestClient,
    private readonly paths: ResourcePaths,
    private readonly ref: RestTableRef,
  ) {}

  async commit(snapshot: Snapshot, _branch: string, statistics: readonly PartitionStatistics[], baseSnapshotUuid: string | null): Promise<boolean> {
    const id = { database: this.ref.database, table: this.ref.table, ...(this.ref.branch !== undefined ? { branch: this.ref.branch } : {}) };
    const body: JsonValue = {
      tableId: this.ref.uuid,
      baseSnapshotUuid,
      snapshot: snapshotToJsonObject(snapshot),
      statistics: statistics.map((s) => ({
        spec: s.spec,
        recordCount: s.recordCount,
        fileSizeInBytes: s.fileSizeInBytes,
        fileCount: s.fileCount,
        lastFileCreationTime: s.lastFileCreationTime,
        totalBuckets: s.totalBuckets,
      })),
    };
    const answer = await this.client.post(this.paths.commitTable(id), body, {
      what: `committing snapshot ${snapshot.id} of ${identifierToString(id)}`,
      notFound: 'TABLE_NOT_FOUND',
    });
    return answer.success === true;
  }
}
