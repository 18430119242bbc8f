/**
 * A table history in memory, shaped like Paimon's metadata (base/delta/changelog manifest
 * lists, manifests with ADD/DELETE entries, index manifests, statistics), for the pure
 * maintenance planners. Only the planners are tested with it; the procedures themselves
 * are proven against tables written by Paimon Java (tests/interop).
 */
import { PaimonError } from '../../../src/paimon/errors.js';
import type {
  FileLocator,
  IndexFileRef,
  MaintenanceFileEntry,
  MaintenanceReader,
  ManifestFileRef,
  SnapshotLike,
} from '../../../src/paimon/maintenance/types.js';

export interface CommitSpec {
  add?: string[];
  del?: string[];
  /** Files the changelog producer wrote. */
  changelog?: string[];
  /** Replace the index files (deletion vectors) with these. */
  index?: string[];
  statistics?: string;
  /** Files added with _FILE_SOURCE = COMPACT. */
  compact?: boolean;
  extra?: Record<string, string[]>;
  timeMillis?: number;
}

export class FakeTable implements MaintenanceReader {
  readonly lists = new Map<string, ManifestFileRef[]>();
  readonly manifests = new Map<string, MaintenanceFileEntry[]>();
  readonly indexManifests = new Map<string, IndexFileRef[]>();
  readonly snapshots = new Map<number, SnapshotLike>();
  readonly tags = new Map<string, SnapshotLike>();
  /** Files on "disk" and who wrote them (for orphan/expire oracles). */
  readonly live = new Map<string, MaintenanceFileEntry>();
  private n = 0;
  private clock = 1_000_000;
  private prevManifests: ManifestFileRef[] = [];
  private indexManifest: string | null = null;
  private indexFiles: string[] = [];
  private statistics: string | null = null;
  private fileSizes = new Map<string, number>();

  entry(kind: 'ADD' | 'DELETE', fileName: string, compact = false, extra: string[] = []): MaintenanceFileEntry {
    if (!this.fileSizes.has(fileName)) this.fileSizes.set(fileName, 100 + this.fileSizes.size);
    return {
      kind,
      partition: 'p0',
      bucket: 0,
      level: 0,
      fileName,
      fileSize: this.fileSizes.get(fileName)!,
      extraFiles: extra,
      externalPath: null,
      fileSource: compact ? 'COMPACT' : 'APPEND',
    };
  }

  commit(spec: CommitSpec): SnapshotLike {
    const id = ++this.n;
    this.clock += 1000;
    const entries: MaintenanceFileEntry[] = [];
    for (const f of spec.del ?? []) {
      const prev = this.live.get(f);
      if (!prev) throw new Error(`fixture: delete of non-live ${f}`);
      entries.push({ ...prev, kind: 'DELETE' });
      this.live.delete(f);
    }
    for (const f of spec.add ?? []) {
      const e = this.entry('ADD', f, spec.compact ?? false, spec.extra?.[f] ?? []);
      entries.push(e);
      this.live.set(f, e);
    }
    const deltaManifest = `manifest-d${id}`;
    this.manifests.set(deltaManifest, entries);
    const baseList = `manifest-list-b${id}`;
    const deltaList = `manifest-list-d${id}`;
    this.lists.set(baseList, [...this.prevManifests]);
    const deltaRef = { fileName: deltaManifest, fileSize: 10 };
    this.lists.set(deltaList, [deltaRef]);
    this.prevManifests = [...this.prevManifests, deltaRef];

    let changelogList: string | null = null;
    if (spec.changelog && spec.changelog.length > 0) {
      const cm = `manifest-c${id}`;
      this.manifests.set(cm, spec.changelog.map((f) => this.entry('ADD', f)));
      changelogList = `manifest-list-c${id}`;
      this.lists.set(changelogList, [{ fileName: cm, fileSize: 10 }]);
    }
    if (spec.index) {
      this.indexFiles = spec.index;
      this.indexManifest = `index-manifest-${id}`;
      this.indexManifests.set(
        this.indexManifest,
        spec.index.map((f) => ({ fileName: f, fileSize: 5, externalPath: null })),
      );
    }
    if (spec.statistics !== undefined) this.statistics = spec.statistics;
    const s: SnapshotLike = {
      id,
      schemaId: 0,
      timeMillis: spec.timeMillis ?? this.clock,
      baseManifestList: baseList,
      baseManifestListSize: 7,
      deltaManifestList: deltaList,
      deltaManifestListSize: 7,
      changelogManifestList: changelogList,
      ...(this.indexManifest !== null ? { indexManifest: this.indexManifest } : {}),
      ...(this.statistics !== null ? { statistics: this.statistics } : {}),
    };
    this.snapshots.set(id, s);
    return s;
  }

  tag(name: string, id: number): void {
    const s = this.snapshots.get(id);
    if (!s) throw new Error(`fixture: no snapshot ${id}`);
    this.tags.set(name, s);
  }

  sortedTags(): SnapshotLike[] {
    return [...this.tags.values()].sort((a, b) => a.id - b.id);
  }

  async readManifestList(name: string): Promise<ManifestFileRef[]> {
    const v = this.lists.get(name);
    if (!v) throw new PaimonError('FILE_NOT_FOUND', `no manifest list ${name}`);
    return v;
  }
  async readManifest(name: string): Promise<MaintenanceFileEntry[]> {
    const v = this.manifests.get(name);
    if (!v) throw new PaimonError('FILE_NOT_FOUND', `no manifest ${name}`);
    return v;
  }
  async readIndexManifest(name: string): Promise<IndexFileRef[]> {
    const v = this.indexManifests.get(name);
    if (!v) throw new PaimonError('FILE_NOT_FOUND', `no index manifest ${name}`);
    return v;
  }

  /**
   * Every file name a snapshot reaches, the oracle for safety checks: all metadata, plus the
   * data files live in it (`named`: every data file any of its manifests names, as orphan
   * cleaning counts them).
   */
  reachable(s: SnapshotLike, named = false): Set<string> {
    const out = new Set<string>();
    const lists = [s.baseManifestList, s.deltaManifestList, s.changelogManifestList].filter(
      (x): x is string => !!x,
    );
    for (const l of lists) {
      out.add(l);
      for (const m of this.lists.get(l) ?? []) {
        out.add(m.fileName);
        if (named || l === s.changelogManifestList) {
          for (const e of this.manifests.get(m.fileName) ?? []) {
            out.add(e.fileName);
            for (const x of e.extraFiles) out.add(x);
          }
        }
      }
    }
    if (!named) for (const f of this.liveFiles(s)) out.add(f);
    if (s.indexManifest) {
      out.add(s.indexManifest);
      for (const r of this.indexManifests.get(s.indexManifest) ?? []) out.add(r.fileName);
    }
    if (s.statistics) out.add(s.statistics);
    return out;
  }

  /** Files live in a snapshot (merged ADD minus DELETE over base + delta). */
  liveFiles(s: SnapshotLike): Set<string> {
    const live = new Set<string>();
    for (const l of [s.baseManifestList, s.deltaManifestList]) {
      for (const m of this.lists.get(l) ?? []) {
        for (const e of this.manifests.get(m.fileName) ?? []) {
          if (e.kind === 'ADD') live.add(e.fileName);
          else live.delete(e.fileName);
        }
      }
    }
    return live;
  }
}

/** Paths are just the file name under a kind prefix, so tests can read them back. */
export const locator: FileLocator = {
  manifestPath: (n) => `/t/manifest/${n}`,
  indexManifestPath: (n) => `/t/manifest/${n}`,
  indexFilePath: (r) => `/t/index/${r.fileName}`,
  statisticsPath: (n) => `/t/statistics/${n}`,
  dataFilePath: (e) => `/t/bucket-${e.bucket}/${e.fileName}`,
  extraFilePath: (e, x) => `/t/bucket-${e.bucket}/${x}`,
};

export function baseNames(paths: Iterable<{ path: string }>): string[] {
  return [...paths].map((p) => p.path.slice(p.path.lastIndexOf('/') + 1)).sort();
}
