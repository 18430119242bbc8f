/**
 * The embedded job store: an append-only JSON-lines file in the proxy's data directory
 * (`<dir>/jobs.jsonl`), one full record per line, the last line of an id wins. Creations and
 * final states are fsync'ed; progress updates are not (losing the last progress line in a
 * crash is harmless). At open the file is replayed, a torn last line (crash mid-write) is
 * ignored, jobs left queued/running are marked failed "interrupted by restart", and the file
 * is compacted (latest record per job, finished jobs older than the retention dropped) by
 * writing a new file and renaming it over the old one.
 *
 * One process per directory: `jobs.lock` holds the owner's pid; a second live proxy on the
 * same directory is refused (use the MySQL store to share jobs between proxies).
 */
import { open, readFile, rename, mkdir, writeFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { type JobFilter, type JobPatch, type JobRecord, type JobStore, applyPatch, interruptedPatch, isTerminal, matchesFilter } from './job.js';

export interface FileJobStoreOptions {
  dir: string;
  /** Finished jobs older than this are dropped at open. */
  retentionMs: number;
  owner: string;
  now?: () => number;
}

/** Lock files held by stores open in this process (a pid check cannot tell them apart). */
const openInThisProcess = new Set<string>();

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class FileJobStore implements JobStore {
  readonly path: string;
  private readonly lockPath: string;
  private readonly records = new Map<string, JobRecord>();
  private handle: FileHandle | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly now: () => number;
  /** Lines skipped at open because they could not be parsed (a torn tail after a crash). */
  skippedLines = 0;

  constructor(private readonly opts: FileJobStoreOptions) {
    this.path = join(opts.dir, 'jobs.jsonl');
    this.lockPath = join(opts.dir, 'jobs.lock');
    this.now = opts.now ?? Date.now;
  }

  private async lock(): Promise<void> {
    await mkdir(this.opts.dir, { recursive: true });
    if (openInThisProcess.has(this.lockPath)) {
      throw new Error(`job store ${this.opts.dir} is already open in this process; give each proxy its own jobs.dir`);
    }
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await writeFile(this.lockPath, String(process.pid), { flag: 'wx' });
        openInThisProcess.add(this.lockPath);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const pid = Number((await readFile(this.lockPath, 'utf8').catch(() => '')).trim());
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && pidAlive(pid)) {
          throw new Error(`job store ${this.opts.dir} is in use by process ${pid}; give each proxy its own jobs.dir or use jobs.store: mysql`);
        }
        // Stale lock of a dead process (or our own): take it over.
        await unlink(this.lockPath).catch(() => undefined);
      }
    }
    throw new Error(`could not lock job store ${this.opts.dir}`);
  }

  async open(): Promise<{ interrupted: number }> {
    await this.lock();
    let text = '';
    try {
      text = await readFile(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const rec = JSON.parse(line) as JobRecord;
        if (typeof rec.id !== 'string' || typeof rec.state !== 'string') throw new Error('not a job record');
        this.records.set(rec.id, rec);
      } catch {
        this.skippedLines++;
      }
    }
    const now = this.now();
    let interrupted = 0;
    for (const [id, rec] of this.records) {
      if (!isTerminal(rec.state)) {
        this.records.set(id, applyPatch(rec, interruptedPatch(rec, now), now));
        interrupted++;
      } else if (rec.finishedAt !== null && now - rec.finishedAt > this.opts.retentionMs) {
        this.records.delete(id);
      }
    }
    // Compact: the latest record of each job, written to a new file renamed over the old one.
    const tmp = `${this.path}.${process.pid}.tmp`;
    const h = await open(tmp, 'w', 0o600);
    try {
      const body = [...this.records.values()].map((r) => JSON.stringify(r) + '\n').join('');
      await h.writeFile(body);
      await h.sync();
    } finally {
      await h.close();
    }
    await rename(tmp, this.path);
    this.handle = await open(this.path, 'a', 0o600);
    return { interrupted };
  }

  private append(rec: JobRecord, durable: boolean): Promise<void> {
    const run = async (): Promise<void> => {
      if (!this.handle) throw new Error('job store is not open');
      await this.handle.write(JSON.stringify(rec) + '\n');
      if (durable) await this.handle.datasync();
    };
    const p = this.chain.then(run, run);
    this.chain = p.catch(() => undefined);
    return p;
  }

  async create(rec: JobRecord): Promise<void> {
    if (this.records.has(rec.id)) throw new Error(`job ${rec.id} already exists`);
    this.records.set(rec.id, rec);
    await this.append(rec, true);
  }

  async update(id: string, patch: JobPatch): Promise<JobRecord | undefined> {
    const cur = this.records.get(id);
    if (!cur) return undefined;
    const next = applyPatch(cur, patch, this.now());
    this.records.set(id, next);
    const durable = patch.state !== undefined || patch.cancelRequested !== undefined || patch.committed !== undefined;
    await this.append(next, durable);
    return next;
  }

  async get(id: string): Promise<JobRecord | undefined> {
    return this.records.get(id);
  }

  async list(filter?: JobFilter): Promise<JobRecord[]> {
    const out = [...this.records.values()].filter((r) => matchesFilter(r, filter)).sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id));
    return filter?.limit !== undefined ? out.slice(0, filter.limit) : out;
  }

  async close(): Promise<void> {
    await this.chain;
    await this.handle?.close();
    this.handle = null;
    if (openInThisProcess.delete(this.lockPath)) await unlink(this.lockPath).catch(() => undefined);
  }
}
