/**
 * Changes a Hive Metastore would have to follow, refused until the proxy updates the metastore
 * itself. With `metastore.partitioned-table` Paimon's HiveCatalog keeps each partition of the
 * table as a metastore partition (PartitionExpire drops them there too), and with
 * `metastore.tag-to-partition` each tag of an unpartitioned table is a metastore partition of
 * that name (AddPartitionTagCallback on every tag created or deleted). A procedure of ours that
 * expired partitions or created or deleted tags would leave those metastore partitions behind, so
 * it is NOT_SUPPORTED on such tables, naming the engine procedure to run instead. A dry run
 * changes nothing and is let through.
 */
import type { FileStoreTable } from '../../src/paimon/table/file-store-table.js';
import { ProcedureError } from './errors.js';
import type { ProcedureContext } from './context.js';

export type MetastoreChange = 'partitions' | 'tags';

/** The metastore option `t` has that `change` would break, or null. */
export function metastoreOptionAffected(catalogType: string, t: Pick<FileStoreTable, 'partitionKeys' | 'schema'>, change: MetastoreChange): string | null {
  if (catalogType !== 'hive') return null;
  const options = t.schema.options;
  if (change === 'partitions') {
    return t.partitionKeys.length > 0 && (options['metastore.partitioned-table'] ?? 'false').toLowerCase() === 'true' ? 'metastore.partitioned-table' : null;
  }
  const field = options['metastore.tag-to-partition'];
  return t.partitionKeys.length === 0 && field !== undefined && field.trim() !== '' ? 'metastore.tag-to-partition' : null;
}

export function refuseMetastoreOutOfStep(ctx: ProcedureContext, t: FileStoreTable, change: MetastoreChange, procedure: string, dryRun: boolean): void {
  if (dryRun) return;
  const option = metastoreOptionAffected(ctx.catalog.type, t, change);
  if (option === null) return;
  throw new ProcedureError(
    'NOT_SUPPORTED',
    `${procedure} on ${t.identifier} is not supported here: the table sets ${option}, so Paimon keeps its ${change === 'partitions' ? 'partitions' : 'tags'} as partitions of Hive Metastore catalog '${ctx.catalog.name}' as well, and the proxy does not update them yet; run CALL sys.${procedure} from Flink or Spark (nothing was changed).`,
  );
}
