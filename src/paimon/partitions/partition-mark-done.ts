/**
 * Marking partitions done (`MarkPartitionDoneProcedure` with `PartitionMarkDoneAction.createActions`,
 * the same in 1.4.2 and 2.0.0):
 *
 *  - the `partitions` argument: specs separated by ';', each `k=v` pairs separated by ','
 *    (`ParameterUtils.getPartitions`, keys and values trimmed), turned into the partition's relative
 *    path `k1=v1/k2=v2/` in partition-key order, escaped (`PartitionPathUtils.generatePartitionPath`);
 *  - `partition.mark-done-action` (default `success-file`): a ',' list of `success-file`,
 *    `done-partition`, `mark-event`, `http-report`, `custom` (`CoreOptions.partitionMarkDoneActions`);
 *  - `success-file` (SuccessFileMarkDoneAction): `<table>/<partition>/_SUCCESS` holding the JSON of
 *    `SuccessFile` (Jackson's pretty printer: creationTime, modificationTime in epoch millis); an
 *    existing file keeps its creationTime and gets a new modificationTime;
 *  - `http-report` (HttpReportMarkDoneAction): one POST per partition to
 *    `partition.mark-done-action.http.url`, JSON body {params, table, path, partition} (params from
 *    `partition.mark-done-action.http.params`, table the full name, path the table location); the
 *    answer must be 2xx with a JSON body whose `result` is SUCCESS (any case).
 *
 * Stricter than Paimon: a spec naming a key that is not a partition key, or naming keys that are
 * not the leading partition keys, is refused (Paimon drops unknown keys silently, so a typo marks
 * the table root), as is an empty spec.
 */
import { PaimonError } from '../errors.js';
import type { FileIO } from '../fs/file-io.js';
import { join } from '../fs/path.js';
import { isJsonObject, parseJson, toJsonCompact, toJsonPretty, toSafeInt } from '../spec/json.js';
import { escapePathName } from '../spec/partition-path.js';

export type MarkDoneAction = 'success-file' | 'done-partition' | 'mark-event' | 'http-report' | 'custom';

const ACTIONS: readonly MarkDoneAction[] = ['success-file', 'done-partition', 'mark-event', 'http-report', 'custom'];

export const SUCCESS_FILE_NAME = '_SUCCESS';

const invalid = (msg: string): PaimonError => new PaimonError('INVALID_ARGUMENT', msg);

/**
 * `partitionMarkDoneActions()`: each ',' item with '-' as '_' upper-cased must name an action
 * (`PartitionMarkDoneAction.valueOf`; items are not trimmed there, so ' http-report' is refused).
 * Returned in the configured order, without repeats.
 */
export function parseMarkDoneActions(value: string): MarkDoneAction[] {
  const out: MarkDoneAction[] = [];
  for (const item of value.split(',')) {
    const action = ACTIONS.find((a) => a.replace(/-/g, '_').toUpperCase() === item.replace(/-/g, '_').toUpperCase());
    if (action === undefined) {
      throw invalid(`partition.mark-done-action '${value}': '${item}' is not an action; use a ',' list (no spaces) of ${ACTIONS.join(', ')}`);
    }
    if (!out.includes(action)) out.push(action);
  }
  return out;
}

/**
 * The `partitions` argument as relative partition paths (`k1=v1/k2=v2/`), in the given order,
 * each validated against the table's partition keys.
 */
export function parsePartitionPaths(text: string, partitionKeys: readonly string[]): { spec: [string, string][]; path: string }[] {
  if (partitionKeys.length === 0) throw invalid('mark_partition_done needs a partitioned table');
  const specs = text.split(';');
  while (specs.length > 0 && specs[specs.length - 1] === '') specs.pop(); // Java's split drops trailing empties
  if (specs.length === 0) throw invalid('mark_partition_done procedure must specify partitions.');
  return specs.map((raw) => {
    const values = new Map<string, string>();
    if (raw.trim() !== '') {
      const items = raw.split(',');
      while (items.length > 0 && items[items.length - 1] === '') items.pop();
      for (const kv of items) {
        const eq = kv.indexOf('=');
        if (eq < 0) throw invalid(`Invalid key-value string '${kv}'. Please use format 'key=value'`);
        values.set(kv.slice(0, eq).trim(), kv.slice(eq + 1).trim());
      }
    }
    if (values.size === 0) throw invalid(`partition spec '${raw}' names no partition key; use 'k1=v1,k2=v2' with keys of [${partitionKeys.join(', ')}]`);
    const unknown = [...values.keys()].filter((k) => !partitionKeys.includes(k));
    if (unknown.length > 0) throw invalid(`Partition keys [${unknown.join(', ')}] are invalid. Available partition keys are [${partitionKeys.join(', ')}]`);
    const spec: [string, string][] = [];
    for (const k of partitionKeys) {
      const v = values.get(k);
      if (v === undefined) break;
      if (v === '') throw invalid(`Partition value '' of ${k} cannot be used as a partition path component.`);
      spec.push([k, v]);
    }
    if (spec.length !== values.size) {
      throw invalid(`partition spec '${raw}' must name the leading partition keys in order (${partitionKeys.join(', ')}): a directory is only marked done for a prefix of them`);
    }
    return { spec, path: spec.map(([k, v]) => `${escapePathName(k)}=${escapePathName(v)}`).join('/') + '/' };
  });
}

/** `SuccessFile.toJson()`. */
export function successFileJson(creationTime: number, modificationTime: number): string {
  return toJsonPretty({ creationTime, modificationTime });
}

/**
 * `SuccessFileMarkDoneAction.markDone`: writes `<table>/<partition>/_SUCCESS`; returns its path and
 * the times written.
 */
export async function writeSuccessFile(fileIO: FileIO, tableLocation: string, partitionPath: string, now: number): Promise<{ path: string; creationTime: number; modificationTime: number }> {
  const path = join(join(tableLocation, partitionPath), SUCCESS_FILE_NAME);
  let creationTime = now;
  if (await fileIO.exists(path)) {
    const text = (await fileIO.readFile(path)).toString('utf8');
    const obj = parseJson(text, path);
    const c = isJsonObject(obj) && obj.creationTime !== undefined ? toSafeInt(obj.creationTime) : null;
    if (c === null) throw new PaimonError('CORRUPT_METADATA', `${path} is not a success file (no creationTime)`);
    creationTime = c;
  }
  await fileIO.writeFile(path, successFileJson(creationTime, now));
  return { path, creationTime, modificationTime: now };
}

/** The request body `HttpReportMarkDoneAction` posts (Jackson puts the creator's properties first). */
export function httpReportBody(params: string | null, table: string, location: string, partitionPath: string): string {
  return toJsonCompact({ params, table, path: location, partition: partitionPath });
}

export interface HttpReportOptions {
  url: string;
  body: string;
  signal?: AbortSignal;
  timeoutMs: number;
}

/**
 * One report (`SimpleHttpClient.post` then the `result` check). Messages never carry the URL or
 * the params: either may hold a token.
 */
export async function postHttpReport(o: HttpReportOptions): Promise<void> {
  const signals = [AbortSignal.timeout(o.timeoutMs), ...(o.signal ? [o.signal] : [])];
  let res: Response;
  try {
    res = await fetch(o.url, { method: 'POST', body: o.body, headers: { 'Content-Type': 'application/json; charset=UTF-8' }, signal: AbortSignal.any(signals), redirect: 'error' });
  } catch (e) {
    const why = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError') ? e.name : 'the connection failed';
    throw new PaimonError('STORAGE_ERROR', `http-report: the POST to partition.mark-done-action.http.url failed (${why})`);
  }
  const text = await res.text().catch(() => '');
  if (!res.ok || text.trim() === '') {
    throw new PaimonError('STORAGE_ERROR', res.ok ? 'http-report: the response body is empty' : `http-report: the server answered HTTP ${res.status}`);
  }
  let result: unknown = null;
  try {
    const obj = parseJson(text, 'http-report response');
    result = isJsonObject(obj) ? obj.result : null;
  } catch {
    throw new PaimonError('STORAGE_ERROR', 'http-report: the response is not JSON');
  }
  if (typeof result !== 'string' || result.toUpperCase() !== 'SUCCESS') {
    throw new PaimonError('STORAGE_ERROR', `http-report: the response attribute 'result' should be 'SUCCESS' but is '${typeof result === 'string' ? result.slice(0, 40) : String(result)}'`);
  }
}
