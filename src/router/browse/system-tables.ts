/**
 * Paimon's metadata system tables, read-only, as standalone mode answers `SELECT ... FROM
 * [catalog.]db.tbl$snapshots` (and `tbl$branch_b$snapshots` for a branch): `$snapshots`,
 * `$tags`, `$branches`, `$consumers`, `$schemas`, `$options`, and `$files` (files-table.ts;
 * the only one that reads a tag's or an older snapshot's state, `FOR VERSION AS OF`). Column names, types and row order
 * are those of paimon-core's `org.apache.paimon.table.system.*Table` at 2.0.0 (1.4.2 has the
 * same columns, without `$snapshots.operation`), and values render as Paimon renders them:
 * TIMESTAMP(3) columns are the local date-time of the epoch millis (`DateTimeUtils.toLocalDateTime`),
 * `time_retained` is `java.time.Duration.toString()`, the JSON columns of `$schemas` are
 * `JsonSerdeUtil.toFlatJson` of the schema's fields, keys and options, and options come in
 * the order of Java's `HashMap` (the map a schema file is read into).
 *
 * The rows come from the table's own managers (SnapshotManager, TagManager, BranchManager,
 * ConsumerManager, SchemaManager), used read-only.
 */
import { ProcedureError } from '../../../procedures/framework/errors.js';
import { join } from '../../paimon/fs/path.js';
import { dataFieldToJson } from '../../paimon/spec/data-types.js';
import { toJsonCompact, type JsonValue } from '../../paimon/spec/json.js';
import type { Duration } from '../../paimon/spec/tag.js';
import type { TableSchema } from '../../paimon/spec/table-schema.js';
import type { FileStoreTable } from '../../paimon/table/file-store-table.js';
import type { ColumnType, TextRow } from '../route.js';
import { epochMillisText, localDateTimeText } from './datetime-text.js';
import { javaHashMapOrder } from './java-hash-order.js';
import { FILES_COLUMNS, filesRows, type TimeTravel } from './files-table.js';
import type { VirtualTable } from './virtual-table.js';

type Columns = [string, ColumnType][];

interface SystemTable {
  columns: Columns;
  rows(table: FileStoreTable, at: TimeTravel | null): Promise<TextRow[]>;
  /** Whether the rows depend on the snapshot read (Paimon's FilesTable honours scan.tag-name / scan.snapshot-id). */
  timeTravel?: boolean;
}

function n(v: number | bigint | null | undefined): string | null {
  return v === null || v === undefined ? null : String(v);
}

/** `java.time.Duration.toString()` of a non-negative duration: `PT1H`, `PT1M30S`, `PT0.5S`, `PT0S`. */
export function javaDurationString(d: Duration): string {
  if (d.seconds === 0n && d.nanos === 0) return 'PT0S';
  const hours = d.seconds / 3600n;
  const minutes = (d.seconds % 3600n) / 60n;
  const secs = d.seconds % 60n;
  let s = 'PT';
  if (hours !== 0n) s += `${hours}H`;
  if (minutes !== 0n) s += `${minutes}M`;
  if (secs === 0n && d.nanos === 0 && s.length > 2) return s;
  s += String(secs);
  if (d.nanos > 0) s += '.' + String(d.nanos).padStart(9, '0').replace(/0+$/, '');
  return s + 'S';
}

function optionsJson(options: Record<string, string>): string {
  return toJsonCompact(Object.fromEntries(javaHashMapOrder(Object.keys(options)).map((k) => [k, options[k]!])));
}

function schemaRow(s: TableSchema): TextRow {
  return [
    String(s.id),
    toJsonCompact(s.fields.map(dataFieldToJson)),
    toJsonCompact(s.partitionKeys as JsonValue),
    toJsonCompact(s.primaryKeys as JsonValue),
    optionsJson(s.options),
    s.comment ?? null,
    epochMillisText(s.timeMillis),
  ];
}

const SYSTEM_TABLES: Record<string, SystemTable> = {
  snapshots: {
    columns: [
      ['snapshot_id', 'bigint'],
      ['schema_id', 'bigint'],
      ['commit_user', 'string'],
      ['commit_identifier', 'bigint'],
      ['commit_kind', 'string'],
      ['commit_time', 'datetime'],
      ['base_manifest_list', 'string'],
      ['delta_manifest_list', 'string'],
      ['changelog_manifest_list', 'string'],
      ['total_record_count', 'bigint'],
      ['delta_record_count', 'bigint'],
      ['changelog_record_count', 'bigint'],
      ['watermark', 'bigint'],
      ['next_row_id', 'bigint'],
      ['operation', 'string'],
    ],
    async rows(table) {
      const out: { id: number; row: TextRow }[] = [];
      for await (const s of table.snapshotManager().snapshots()) {
        out.push({
          id: s.id,
          row: [
            String(s.id),
            String(s.schemaId),
            s.commitUser,
            String(s.commitIdentifier),
            s.commitKind,
            epochMillisText(s.timeMillis),
            s.baseManifestList,
            s.deltaManifestList,
            s.changelogManifestList ?? null,
            n(s.totalRecordCount),
            n(s.deltaRecordCount),
            n(s.changelogRecordCount),
            n(s.watermark),
            n(s.nextRowId),
            s.operation ?? null,
          ],
        });
      }
      return out.sort((a, b) => a.id - b.id).map((x) => x.row);
    },
  },
  tags: {
    columns: [
      ['tag_name', 'string'],
      ['snapshot_id', 'bigint'],
      ['schema_id', 'bigint'],
      ['commit_time', 'datetime'],
      ['record_count', 'bigint'],
      ['create_time', 'datetime'],
      ['time_retained', 'string'],
    ],
    async rows(table) {
      // TagsTable collects the tags into a TreeMap by name.
      const tags = (await table.tagManager().listTags()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return tags.map(({ name, tag }) => [
        name,
        String(tag.id),
        String(tag.schemaId),
        epochMillisText(tag.timeMillis),
        n(tag.totalRecordCount),
        tag.tagCreateTime ? localDateTimeText(tag.tagCreateTime) : null,
        tag.tagTimeRetained ? javaDurationString(tag.tagTimeRetained) : null,
      ]);
    },
  },
  branches: {
    columns: [
      ['branch_name', 'string'],
      ['create_time', 'datetime'],
    ],
    async rows(table) {
      const manager = table.branchManager();
      const rows: TextRow[] = [];
      for (const name of await manager.branches()) {
        // BranchesTable: the creation time is the branch directory's modification time.
        const status = await table.fileIO.getStatus(manager.branchPath(name));
        if (status !== null) rows.push([name, epochMillisText(status.modificationTime)]);
      }
      return rows;
    },
  },
  consumers: {
    columns: [
      ['consumer_id', 'string'],
      ['next_snapshot_id', 'bigint'],
    ],
    async rows(table) {
      const consumers = await table.consumerManager().listConsumers();
      return consumers.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((c) => [c.id, String(c.nextSnapshot)]);
    },
  },
  schemas: {
    columns: [
      ['schema_id', 'bigint'],
      ['fields', 'string'],
      ['partition_keys', 'string'],
      ['primary_keys', 'string'],
      ['options', 'string'],
      ['comment', 'string'],
      ['update_time', 'datetime'],
    ],
    async rows(table) {
      return (await table.schemaManager().listAll()).sort((a, b) => a.id - b.id).map(schemaRow);
    },
  },
  options: {
    columns: [
      ['key', 'string'],
      ['value', 'string'],
    ],
    async rows(table) {
      const latest = await table.schemaManager().latest();
      if (latest === null) throw new ProcedureError('SCHEMA_NOT_FOUND', `${table.identifier} has no schema file in ${join(table.branchPath(), 'schema')}`);
      return javaHashMapOrder(Object.keys(latest.options)).map((k) => [k, latest.options[k]!]);
    },
  },
  files: {
    columns: FILES_COLUMNS,
    rows: filesRows,
    timeTravel: true,
  },
};

/** The system tables standalone mode answers, for messages. */
export const SYSTEM_TABLE_NAMES = Object.keys(SYSTEM_TABLES);

/** Whether `name` is one of the system tables answered here (case-insensitive, as Paimon's loader). */
export function isAnsweredSystemTable(name: string): boolean {
  return SYSTEM_TABLES[name.toLowerCase()] !== undefined;
}

/** The rows of one system table of a table branch; `at` (FOR VERSION AS OF) only for `$files`. */
export async function systemTable(table: FileStoreTable, name: string, at: TimeTravel | null = null): Promise<VirtualTable> {
  const def = SYSTEM_TABLES[name.toLowerCase()];
  if (def === undefined) {
    throw new ProcedureError(
      'NOT_SUPPORTED',
      `System table ${table.identifier}$${name} is not answered in standalone mode; it answers $${SYSTEM_TABLE_NAMES.join(', $')} (read-only)`,
    );
  }
  if (at !== null && !def.timeTravel) {
    throw new ProcedureError(
      'NOT_SUPPORTED',
      `FOR VERSION AS OF does not apply to ${table.identifier}$${name.toLowerCase()}: it lists the table's current metadata. Of the system tables answered here only $files reads a tag or an older snapshot.`,
    );
  }
  return { name: `${table.identifier}$${name.toLowerCase()}`, columns: def.columns.map(([c, type]) => ({ name: c, type })), rows: await def.rows(table, at) };
}
