/**
 * Field-by-field merge of the files that hold the same rows of a data-evolution table, as
 * Paimon's data-evolution read does it (`DataEvolutionSplitRead.createUnionReader` and
 * `DataEvolutionFileReader`):
 *  - the files of one row-id range are ordered by maximum sequence number, newest first (a stable
 *    sort, so files of equal sequence numbers keep their order in the task);
 *  - a file holds the fields of its own schema named by its writeCols (all of them when writeCols
 *    is null), matched to the read fields by field id, so files written under an older schema
 *    (renamed or added columns) line up;
 *  - each read field is taken from the first file that holds it; a field no file holds reads as
 *    null, which Paimon allows only for a nullable field.
 * Pure: the caller reads the files, this decides which file gives which field and zips the rows.
 */
import { PaimonError } from '../errors.js';
import type { DataFieldSpec } from '../data/field-type.js';
import type { Datum, InternalRow } from '../data/internal-row.js';

/** One input file of a file group: the fields it holds (its schema's, by writeCols) and its max sequence number. */
export interface FieldMergeFile {
  name: string;
  fields: readonly DataFieldSpec[];
  maxSequenceNumber: bigint;
}

export interface FieldMergePlan {
  /** Indexes into the input files, newest first: the order fields are looked up in. */
  order: number[];
  /**
   * Per input file (same index as the input): the read fields it gives, as the target's fields
   * (`winners`) and as the file's own fields of the same ids (`fileFields`, what to read from it).
   */
  perFile: Array<{ winners: DataFieldSpec[]; fileFields: DataFieldSpec[] }>;
  /** Per read field: the input file and the position among that file's winners, or null (reads null). */
  sources: Array<{ file: number; column: number } | null>;
}

/** The fields a file holds: its schema's fields, restricted to its writeCols when it has them. */
export function fieldsOfFile(schemaFields: readonly DataFieldSpec[], writeCols: readonly string[] | null): DataFieldSpec[] {
  if (writeCols === null) return [...schemaFields];
  const byName = new Map(schemaFields.map((f) => [f.name, f] as const));
  // Row-tracking names are not schema fields; a data-evolution read never takes them from a file.
  return writeCols.map((n) => byName.get(n)).filter((f): f is DataFieldSpec => f !== undefined);
}

/** Which file of a file group gives each of `readFields` (see the module comment). */
export function planFieldMerge(readFields: readonly DataFieldSpec[], files: readonly FieldMergeFile[], where: string): FieldMergePlan {
  const order = files.map((_, i) => i).sort((a, b) => (files[a].maxSequenceNumber > files[b].maxSequenceNumber ? -1 : files[a].maxSequenceNumber < files[b].maxSequenceNumber ? 1 : a - b));
  const perFile = files.map(() => ({ winners: [] as DataFieldSpec[], fileFields: [] as DataFieldSpec[] }));
  const byId = files.map((f) => new Map(f.fields.map((x) => [x.id, x] as const)));
  const sources = readFields.map((field) => {
    for (const i of order) {
      const own = byId[i].get(field.id);
      if (own === undefined) continue;
      perFile[i].winners.push(field);
      perFile[i].fileFields.push(own);
      return { file: i, column: perFile[i].winners.length - 1 };
    }
    if (!field.type.nullable) {
      throw new PaimonError('CORRUPT_METADATA', `${where}: column ${field.name} is NOT NULL but none of the files ${files.map((f) => f.name).join(', ')} holds it`);
    }
    return null;
  });
  return { order, perFile, sources };
}

/**
 * Rows over the read fields from one batch of rows per file (each over that file's winners, the
 * same number of rows each; a file that gives no field may pass null).
 */
export function mergeFieldRows(plan: Pick<FieldMergePlan, 'sources'>, perFileRows: ReadonlyArray<readonly InternalRow[] | null>, rowCount: number): InternalRow[] {
  const out: InternalRow[] = new Array(rowCount);
  const sources = plan.sources;
  for (let r = 0; r < rowCount; r++) {
    const row: Datum[] = new Array(sources.length);
    for (let c = 0; c < sources.length; c++) {
      const s = sources[c];
      row[c] = s === null ? null : perFileRows[s.file]![r][s.column];
    }
    out[r] = row;
  }
  return out;
}
