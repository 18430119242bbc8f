/**
 * `mark_partition_done` (Spark/Flink MarkPartitionDoneProcedure, see
 * src/paimon/partitions/partition-mark-done.ts): runs every action of the table's
 * `partition.mark-done-action` for each partition named, in order.
 *
 * `success-file` and `http-report` work on every catalog. `done-partition` (adds the metastore
 * partition `<last value>.done`, AddDonePartitionAction) and `mark-event` (the partition's LOAD_DONE
 * event, MarkPartitionDoneEventAction) act on the partitions a Hive catalog keeps with
 * `metastore.partitioned-table` (src/paimon/catalog/metastore-partitions.ts); a table without them
 * is refused as Paimon refuses it. `custom` (a Java class) is refused.
 *
 * Differences from Paimon: everything is checked before the first action runs (actions, the
 * http-report URL, every spec), so a bad spec marks nothing; unknown or non-leading partition keys
 * are refused (Paimon ignores unknown keys). A failure part-way says how many partitions were
 * marked before it.
 */
import { isPaimonError, PaimonError } from '../../src/paimon/errors.js';
import { httpReportBody, parseMarkDoneActions, parsePartitionPaths, postHttpReport, writeSuccessFile, type MarkDoneAction } from '../../src/paimon/partitions/partition-mark-done.js';
import { PAIMON_ERROR_MAPPING, ProcedureError } from '../framework/errors.js';
import { defineProcedure } from '../framework/registry.js';
import type { ResultRow } from '../framework/result.js';
import { join } from '../../src/paimon/fs/path.js';
import { donePartition, metastorePartitionsOf, type MetastorePartitions } from '../../src/paimon/catalog/metastore-partitions.js';

/** Java's HTTP client waits up to 3 minutes for a response (HttpClientUtils). */
const HTTP_REPORT_TIMEOUT_MS = 180_000;

function refuse(action: MarkDoneAction, catalogType: string): ProcedureError {
  if (catalogType === 'hive' && (action === 'done-partition' || action === 'mark-event')) {
    // PartitionMarkDoneAction.createPartitionModification / createPartitionMarkDone.
    return new ProcedureError('INVALID_ARGUMENT', `partition.mark-done-action '${action}' needs the metastore to keep the table's partitions: Table should enable metastore.partitioned-table`);
  }
  if (action === 'custom') {
    return new ProcedureError('NOT_SUPPORTED', "partition.mark-done-action 'custom' loads a Java class (partition.mark-done-action.custom.class), which the proxy cannot run; run mark_partition_done from Flink or Spark, or use success-file / http-report");
  }
  return new ProcedureError(
    'NOT_SUPPORTED',
    `partition.mark-done-action '${action}' marks the partition in a metastore; the ${catalogType} catalog keeps no partitions. It needs a Hive Metastore catalog with metastore.partitioned-table = true (run mark_partition_done from Flink or Spark there); success-file and http-report work here`,
  );
}

export const markPartitionDone = defineProcedure({
  name: 'mark_partition_done',
  description:
    "Mark partitions done with the table's partition.mark-done-action (default success-file): success-file writes <partition>/_SUCCESS (Paimon's SuccessFile JSON), http-report POSTs each partition to partition.mark-done-action.http.url; on a Hive catalog with metastore.partitioned-table, done-partition adds the metastore partition <last value>.done and mark-event marks the partition's LOAD_DONE event. custom is refused.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'partitions', type: 'string', required: true, description: "Partitions separated by ';', each 'k1=v1,k2=v2' over the leading partition keys, e.g. 'dt=2024-01-01,hour=01;dt=2024-01-02,hour=00'." },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Check the arguments and list what would be marked, write and send nothing.' },
  ],
  resultColumns: [
    { name: 'result', type: 'boolean', description: "True when the partition was marked (Paimon's result)." },
    { name: 'partition', type: 'string', description: "The partition's relative path, 'k1=v1/k2=v2/'." },
    { name: 'actions', type: 'string', description: 'The actions done (or that would be), in order.' },
    { name: 'success_file', type: 'string', description: 'The _SUCCESS file written (success-file), else null.' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: false,
  run: async (args, ctx) => {
    const t = await ctx.resolveTable(args.table);
    const options = t.schema.options;
    const actions = parseMarkDoneActions(options['partition.mark-done-action'] ?? 'success-file');
    const found = metastorePartitionsOf(t.location);
    const metastore = found !== null && found.keepsDataPartitions ? found : null;
    for (const a of actions) {
      if (a === 'success-file' || a === 'http-report') continue;
      if ((a === 'done-partition' || a === 'mark-event') && metastore !== null) continue;
      throw refuse(a, ctx.catalog.type);
    }
    const url = options['partition.mark-done-action.http.url'];
    if (actions.includes('http-report') && (url === undefined || url.trim() === '')) {
      throw new PaimonError('INVALID_ARGUMENT', 'Parameter partition.mark-done-action.http.url must be non-empty when you use `http-report` partition mark done action.');
    }
    const partitions = parsePartitionPaths(args.partitions, t.partitionKeys);
    const rows: ResultRow[] = [];
    const actionList = actions.join(',');
    let done = 0;
    for (const p of partitions) {
      ctx.throwIfAborted();
      let successFile: string | null = null;
      if (args.dry_run) {
        if (actions.includes('success-file')) successFile = join(join(t.location, p.path), '_SUCCESS');
        rows.push({ result: true, partition: p.path, actions: actionList, success_file: successFile, dry_run: true });
        continue;
      }
      try {
        for (const a of actions) {
          if (a === 'success-file') {
            successFile = (await writeSuccessFile(t.fileIO, t.location, p.path, ctx.clock.now())).path;
          } else if (a === 'done-partition') {
            await (metastore as MetastorePartitions).add([donePartition(p.spec)]);
          } else if (a === 'mark-event') {
            await (metastore as MetastorePartitions).markDone([p.spec]);
          } else {
            const body = httpReportBody(options['partition.mark-done-action.http.params'] ?? null, t.fullName, t.location, p.path);
            await postHttpReport({ url: url as string, body, signal: ctx.signal, timeoutMs: HTTP_REPORT_TIMEOUT_MS });
          }
          if (done === 0) ctx.markCommitted();
        }
      } catch (e) {
        const before = done > 0 ? ` ${done} partition(s) before it were marked.` : ' No partition was marked before it.';
        if (isPaimonError(e)) throw new ProcedureError(PAIMON_ERROR_MAPPING[e.code], `mark_partition_done on ${t.identifier}, partition ${p.path}: ${e.message}.${before}`, { cause: e, committed: done > 0 });
        throw e;
      }
      done++;
      rows.push({ result: true, partition: p.path, actions: actionList, success_file: successFile, dry_run: false });
    }
    if (done > 0) ctx.reportAffected(t.identifier);
    return { rows, info: `${args.dry_run ? 'would mark' : 'marked'} ${rows.length} partition(s) done (${actionList})` };
  },
});
