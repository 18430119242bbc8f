/**
 * The generation a maintenance plan is pinned to: latest and earliest snapshot ids, the tags
 * (name -> snapshot id) and the consumers (id -> next snapshot) of the branch. A plan is made
 * from one generation and re-checked against a fresh read before anything is written or
 * deleted; the procedures decide which differences invalidate their plan.
 */
import type { TableMaintenanceReader } from '../../src/paimon/table/maintenance-reader.js';

export interface Generation {
  latestId: number | null;
  earliestId: number | null;
  /** tag name -> tagged snapshot id */
  tags: Map<string, number>;
  /** consumer id -> nextSnapshot */
  consumers: Map<string, number>;
}

export async function readGeneration(reader: TableMaintenanceReader): Promise<Generation> {
  const snapshots = reader.table.snapshotManager();
  const latestId = await snapshots.latestSnapshotId();
  const earliestId = await snapshots.earliestSnapshotId();
  const tags = new Map<string, number>();
  for (const tag of await reader.tags()) tags.set(tag.name, tag.snapshot.id);
  return { latestId, earliestId, tags, consumers: await reader.consumers() };
}

function mapDiff(what: string, a: Map<string, number>, b: Map<string, number>): string[] {
  const out: string[] = [];
  for (const [k, v] of a) {
    if (!b.has(k)) out.push(`${what} '${k}' was removed`);
    else if (b.get(k) !== v) out.push(`${what} '${k}' moved from ${v} to ${b.get(k)}`);
  }
  for (const [k, v] of b) if (!a.has(k)) out.push(`${what} '${k}' (at ${v}) was added`);
  return out;
}

/** Human-readable differences, empty when the two generations agree on the given aspects. */
export function generationChanges(
  a: Generation,
  b: Generation,
  aspects: { latest?: boolean; earliest?: boolean; tags?: boolean; consumers?: boolean },
): string[] {
  const out: string[] = [];
  if (aspects.latest && a.latestId !== b.latestId) out.push(`latest snapshot moved from ${a.latestId} to ${b.latestId}`);
  if (aspects.earliest && a.earliestId !== b.earliestId) out.push(`earliest snapshot moved from ${a.earliestId} to ${b.earliestId}`);
  if (aspects.tags) out.push(...mapDiff('tag', a.tags, b.tags));
  if (aspects.consumers) out.push(...mapDiff('consumer', a.consumers, b.consumers));
  return out;
}
