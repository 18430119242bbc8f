/**
 * Snapshot JSON (`snapshot/snapshot-N`; the same shape for `changelog/changelog-N` and, plus two
 * keys, for tags). Mirrors `org.apache.paimon.Snapshot` (paimon-api 1.4 / 2.0).
 *
 * Key order is Jackson's creator-parameter order. Keys that Java marks `@JsonInclude(NON_NULL)`
 * are omitted when absent (`undefined` here); the always-written keys are required on read.
 * What Java writes differs by version (see {@link SnapshotWriterStyle}); readers of every
 * version ignore unknown keys, and we keep unknown keys we read in `extra` so a copy (a tag,
 * a branch snapshot) loses nothing.
 *
 * 64-bit values that can pass 2^53 are `bigint`: commitIdentifier (Long.MAX_VALUE for batch
 * commits), watermark (Long.MIN_VALUE from Flink), record counts, nextRowId. Ids, schema ids,
 * manifest-list sizes and timeMillis stay `number`.
 */
import { PaimonError } from '../errors.js';
import {
  JsonReader,
  isJsonObject,
  orderedObject,
  parseJson,
  toBigInt,
  toJsonPretty,
  type JsonObject,
  type JsonValue,
} from './json.js';

export type CommitKind = 'APPEND' | 'COMPACT' | 'OVERWRITE' | 'ANALYZE';
export const COMMIT_KINDS: readonly CommitKind[] = ['APPEND', 'COMPACT', 'OVERWRITE', 'ANALYZE'];

/** 2.0 `Snapshot.Operation`: the logical operation that produced a snapshot. */
export type SnapshotOperation =
  | 'WRITE'
  | 'OVERWRITE'
  | 'DELETE'
  | 'TRUNCATE'
  | 'UPDATE'
  | 'MERGE'
  | 'CREATE_TABLE_AS_SELECT'
  | 'REPLACE_TABLE_AS_SELECT'
  | 'CREATE_OR_REPLACE_TABLE_AS_SELECT';

export const FIRST_SNAPSHOT_ID = 1;
export const CURRENT_SNAPSHOT_VERSION = 3;
/** `BatchWriteBuilder.COMMIT_IDENTIFIER` = Long.MAX_VALUE. */
export const BATCH_COMMIT_IDENTIFIER = 9223372036854775807n;
export const LONG_MIN_VALUE = -9223372036854775808n;
export const LONG_MAX_VALUE = 9223372036854775807n;

export interface Snapshot {
  version: number;
  /** 2.0+: random UUID per snapshot. */
  uuid?: string;
  id: number;
  schemaId: number;
  baseManifestList: string;
  /** 1.1+ */
  baseManifestListSize?: number;
  deltaManifestList: string;
  deltaManifestListSize?: number;
  /** `null` is how 1.0-1.3 write "no changelog"; 1.4+ omit the key (undefined). */
  changelogManifestList?: string | null;
  changelogManifestListSize?: number;
  indexManifest?: string;
  commitUser: string;
  commitIdentifier: bigint;
  commitKind: CommitKind;
  timeMillis: number;
  /** 0.9-1.3 only (`Map<Integer, Long>`); ignored by 1.4+. */
  logOffsets?: Record<string, bigint>;
  totalRecordCount: bigint;
  deltaRecordCount: bigint;
  changelogRecordCount?: bigint;
  watermark?: bigint;
  statistics?: string;
  properties?: Record<string, string>;
  /** 1.3+ row-tracking counter. */
  nextRowId?: bigint;
  /** 2.0+ */
  operation?: SnapshotOperation;
  /** Keys this library does not know, in file order; written back after the known keys. */
  extra?: JsonObject;
}

/** The keys of Snapshot as Java orders them (creator parameters, 2.0 superset incl. logOffsets). */
export const SNAPSHOT_KEYS = [
  'version',
  'uuid',
  'id',
  'schemaId',
  'baseManifestList',
  'baseManifestListSize',
  'deltaManifestList',
  'deltaManifestListSize',
  'changelogManifestList',
  'changelogManifestListSize',
  'indexManifest',
  'commitUser',
  'commitIdentifier',
  'commitKind',
  'timeMillis',
  'logOffsets',
  'totalRecordCount',
  'deltaRecordCount',
  'changelogRecordCount',
  'watermark',
  'statistics',
  'properties',
  'nextRowId',
  'operation',
] as const;

const KNOWN = new Set<string>(SNAPSHOT_KEYS);

/**
 * The part of a snapshot that says which files it reaches: its id and manifest lists, the index
 * manifest and statistics file, with the schema, time and writer when present. Maintenance
 * (expiry, orphan cleaning, rollback planning) reads snapshot, tag and changelog files through
 * this view: like Java, which reads them with Jackson and gets null for absent keys, it needs
 * only the keys that name files, so a file lacking an always-written key such as commitKind is
 * still walked for the files it protects.
 */
export type SnapshotFiles = Pick<Snapshot, 'id' | 'baseManifestList' | 'deltaManifestList' | 'timeMillis'> &
  Partial<
    Pick<
      Snapshot,
      | 'schemaId'
      | 'baseManifestListSize'
      | 'deltaManifestListSize'
      | 'changelogManifestList'
      | 'changelogManifestListSize'
      | 'indexManifest'
      | 'statistics'
      | 'commitUser'
    >
  >;

/** The file-naming keys, read the same way for the full snapshot and for {@link SnapshotFiles}. */
function readFileKeys(r: JsonReader): Omit<SnapshotFiles, 'schemaId' | 'timeMillis' | 'commitUser'> {
  const s: Omit<SnapshotFiles, 'schemaId' | 'timeMillis' | 'commitUser'> = {
    id: r.int('id'),
    baseManifestList: r.string('baseManifestList'),
    deltaManifestList: r.string('deltaManifestList'),
  };
  const bmls = r.optInt('baseManifestListSize');
  if (bmls !== undefined) s.baseManifestListSize = bmls;
  const dmls = r.optInt('deltaManifestListSize');
  if (dmls !== undefined) s.deltaManifestListSize = dmls;
  if ('changelogManifestList' in r.obj) {
    const c = r.raw('changelogManifestList');
    if (c === null) s.changelogManifestList = null;
    else s.changelogManifestList = r.string('changelogManifestList');
  }
  const cmls = r.optInt('changelogManifestListSize');
  if (cmls !== undefined) s.changelogManifestListSize = cmls;
  const im = r.optString('indexManifest');
  if (im !== undefined) s.indexManifest = im;
  const st = r.optString('statistics');
  if (st !== undefined) s.statistics = st;
  return s;
}

/** Parse a snapshot (or changelog) JSON object. Extra keys go to `extra` unless listed in `skip`. */
export function snapshotFromJsonObject(obj: JsonValue, what: string, skip: ReadonlySet<string> = new Set()): Snapshot {
  const r = JsonReader.of(obj, what);
  const commitKind = r.string('commitKind');
  if (!COMMIT_KINDS.includes(commitKind as CommitKind)) {
    throw new PaimonError('CORRUPT_METADATA', `${what}: unknown commitKind "${commitKind}"`);
  }
  const { id, baseManifestList, deltaManifestList, ...files } = readFileKeys(r);
  const s: Snapshot = {
    // 1.0-1.3 read a missing version as 1 (Snapshot.version() returns 1 for null).
    version: r.optInt('version') ?? 1,
    id,
    schemaId: r.int('schemaId'),
    baseManifestList,
    deltaManifestList,
    commitUser: r.string('commitUser'),
    commitIdentifier: r.bigint('commitIdentifier'),
    commitKind: commitKind as CommitKind,
    timeMillis: r.int('timeMillis'),
    // 0.x snapshots may lack the counts (Java declares them @Nullable Long before 1.4).
    totalRecordCount: r.optBigint('totalRecordCount') ?? 0n,
    deltaRecordCount: r.optBigint('deltaRecordCount') ?? 0n,
  };
  const uuid = r.optString('uuid');
  if (uuid !== undefined) s.uuid = uuid;
  if (files.baseManifestListSize !== undefined) s.baseManifestListSize = files.baseManifestListSize;
  if (files.deltaManifestListSize !== undefined) s.deltaManifestListSize = files.deltaManifestListSize;
  if (files.changelogManifestList !== undefined) s.changelogManifestList = files.changelogManifestList;
  if (files.changelogManifestListSize !== undefined) s.changelogManifestListSize = files.changelogManifestListSize;
  if (files.indexManifest !== undefined) s.indexManifest = files.indexManifest;
  const lo = r.raw('logOffsets');
  if (lo !== undefined && lo !== null) {
    if (!isJsonObject(lo)) throw new PaimonError('CORRUPT_METADATA', `${what}: logOffsets must be an object`);
    const offsets: Record<string, bigint> = {};
    for (const k of Object.keys(lo)) {
      const v = toBigInt(lo[k] ?? null);
      if (v === null) throw new PaimonError('CORRUPT_METADATA', `${what}: logOffsets.${k} must be an integer`);
      offsets[k] = v;
    }
    s.logOffsets = offsets;
  }
  const crc = r.optBigint('changelogRecordCount');
  if (crc !== undefined) s.changelogRecordCount = crc;
  const wm = r.optBigint('watermark');
  if (wm !== undefined) s.watermark = wm;
  if (files.statistics !== undefined) s.statistics = files.statistics;
  const props = r.optStringMap('properties');
  if (props !== undefined) s.properties = props;
  const nr = r.optBigint('nextRowId');
  if (nr !== undefined) s.nextRowId = nr;
  const op = r.optString('operation');
  if (op !== undefined) s.operation = op as SnapshotOperation;
  const extraKeys = Object.keys(r.obj).filter((k) => !KNOWN.has(k) && !skip.has(k));
  if (extraKeys.length > 0) {
    s.extra = orderedObject(extraKeys.map((k) => [k, r.obj[k]]));
  }
  return s;
}

/**
 * The {@link SnapshotFiles} of a snapshot, tag or long-lived changelog file. Only the id and the
 * two data manifest lists are required; a missing timeMillis reads as 0, a missing
 * changelogManifestList as null.
 */
export function parseSnapshotFiles(text: string, what = 'snapshot'): SnapshotFiles {
  const r = JsonReader.of(parseJson(text, what), what);
  // Like Java's nullable getter, an absent changelogManifestList reads as null here.
  const files = readFileKeys(r);
  const s: SnapshotFiles = { ...files, changelogManifestList: files.changelogManifestList ?? null, timeMillis: r.optInt('timeMillis') ?? 0 };
  const schemaId = r.optInt('schemaId');
  if (schemaId !== undefined) s.schemaId = schemaId;
  const commitUser = r.optString('commitUser');
  if (commitUser !== undefined) s.commitUser = commitUser;
  return s;
}

export function parseSnapshot(text: string, what = 'snapshot'): Snapshot {
  return snapshotFromJsonObject(parseJson(text, what), what);
}

function bigintMap(m: Record<string, bigint>): JsonObject {
  return orderedObject(Object.keys(m).map((k) => [k, m[k]]));
}

/** The snapshot's key/value pairs in Java's order (without `extra`). */
export function snapshotJsonEntries(s: Snapshot): Array<[string, JsonValue | undefined]> {
  return [
    ['version', s.version],
    ['uuid', s.uuid],
    ['id', s.id],
    ['schemaId', s.schemaId],
    ['baseManifestList', s.baseManifestList],
    ['baseManifestListSize', s.baseManifestListSize],
    ['deltaManifestList', s.deltaManifestList],
    ['deltaManifestListSize', s.deltaManifestListSize],
    ['changelogManifestList', s.changelogManifestList],
    ['changelogManifestListSize', s.changelogManifestListSize],
    ['indexManifest', s.indexManifest],
    ['commitUser', s.commitUser],
    ['commitIdentifier', s.commitIdentifier],
    ['commitKind', s.commitKind],
    ['timeMillis', s.timeMillis],
    ['logOffsets', s.logOffsets === undefined ? undefined : bigintMap(s.logOffsets)],
    ['totalRecordCount', s.totalRecordCount],
    ['deltaRecordCount', s.deltaRecordCount],
    ['changelogRecordCount', s.changelogRecordCount],
    ['watermark', s.watermark],
    ['statistics', s.statistics],
    [
      'properties',
      s.properties === undefined || Object.keys(s.properties).length === 0 ? undefined : { ...s.properties },
    ],
    ['nextRowId', s.nextRowId],
    ['operation', s.operation],
  ];
}

export function snapshotToJsonObject(s: Snapshot): JsonObject {
  const entries = snapshotJsonEntries(s);
  if (s.extra) for (const k of Object.keys(s.extra)) if (!KNOWN.has(k)) entries.push([k, s.extra[k]]);
  return orderedObject(entries);
}

/** Pretty-printed JSON exactly as `Snapshot.toJson()` lays it out. */
export function snapshotToJson(s: Snapshot): string {
  return toJsonPretty(snapshotToJsonObject(s));
}

/**
 * Which Java release's key set to write for a NEW snapshot.
 * - '1.3': 1.0-1.3 always write `changelogManifestList` (null when absent), `logOffsets` ({ }) and
 *   `changelogRecordCount` (0 when no changelog).
 * - '1.4': those keys only when there is a changelog; no logOffsets.
 * - '2.0': as 1.4, plus a random `uuid` (and `operation` if the caller sets one).
 * Readers of 1.0-2.0 accept all three.
 */
export type SnapshotWriterStyle = '1.3' | '1.4' | '2.0';

export function applyWriterStyle(s: Snapshot, style: SnapshotWriterStyle, uuid?: string): Snapshot {
  const out: Snapshot = { ...s, version: CURRENT_SNAPSHOT_VERSION };
  if (style === '1.3') {
    if (out.changelogManifestList === undefined) out.changelogManifestList = null;
    if (out.logOffsets === undefined) out.logOffsets = {};
    if (out.changelogRecordCount === undefined) out.changelogRecordCount = 0n;
    delete out.uuid;
    delete out.operation;
  } else {
    if (out.changelogManifestList === null) delete out.changelogManifestList;
    if (out.changelogManifestList === undefined && out.changelogRecordCount === 0n) delete out.changelogRecordCount;
    delete out.logOffsets;
    if (style === '2.0') {
      if (out.uuid === undefined && uuid !== undefined) out.uuid = uuid;
    } else {
      delete out.uuid;
      delete out.operation;
    }
  }
  return out;
}

/** Names of the manifest lists a snapshot references (base, delta, changelog when present). */
export function manifestListNames(s: Snapshot): string[] {
  const out = [s.baseManifestList, s.deltaManifestList];
  if (typeof s.changelogManifestList === 'string') out.push(s.changelogManifestList);
  return out;
}
