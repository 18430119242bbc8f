/**
 * Consumers of one branch of a table (`ConsumerManager`, `Consumer`):
 * `<branch path>/consumer/consumer-<id>` holding `{ "nextSnapshot" : N }` — the next snapshot
 * the consumer will read. Snapshot expiry keeps every snapshot >= the minimum nextSnapshot.
 */
import { BranchScopedManager } from './branch-scoped-manager.js';
import { PaimonError, isPaimonError } from '../errors.js';
import { listOriginalVersionedFiles } from './hint-file.js';
import { JsonReader, orderedObject, parseJson, toJsonPretty } from '../spec/json.js';
import { join } from '../fs/path.js';

export const CONSUMER_PREFIX = 'consumer-';

export interface Consumer {
  nextSnapshot: number;
}

export function parseConsumer(text: string, what = 'consumer'): Consumer {
  return { nextSnapshot: JsonReader.of(parseJson(text, what), what).int('nextSnapshot') };
}

export function consumerToJson(c: Consumer): string {
  return toJsonPretty(orderedObject([['nextSnapshot', c.nextSnapshot]]));
}

export function validateConsumerId(id: string): void {
  if (id.trim() === '') throw new PaimonError('INVALID_ARGUMENT', 'Consumer id shouldn\'t be blank.');
  if (id.includes('/') || id.includes('\\')) {
    throw new PaimonError('INVALID_ARGUMENT', `Consumer id '${id}' must not contain a path separator.`);
  }
}

export interface ConsumerEntry {
  id: string;
  nextSnapshot: number;
  modificationTime: number;
}

export class ConsumerManager extends BranchScopedManager {
  copyWithBranch(branch: string): ConsumerManager {
    return new ConsumerManager(this.fileIO, this.tablePath, branch);
  }

  consumerDirectory(): string {
    return this.branchDirectory('consumer');
  }

  consumerPath(id: string): string {
    return join(this.consumerDirectory(), CONSUMER_PREFIX + id);
  }

  /** The consumer, or null when it does not exist. */
  async consumer(id: string): Promise<Consumer | null> {
    validateConsumerId(id);
    const path = this.consumerPath(id);
    try {
      return parseConsumer((await this.fileIO.readFile(path)).toString('utf8'), path);
    } catch (e) {
      if (isPaimonError(e, 'FILE_NOT_FOUND')) return null;
      throw e;
    }
  }

  /** `resetConsumer`: create or overwrite. */
  async resetConsumer(id: string, consumer: Consumer): Promise<void> {
    validateConsumerId(id);
    if (!Number.isSafeInteger(consumer.nextSnapshot) || consumer.nextSnapshot < 0) {
      throw new PaimonError('INVALID_ARGUMENT', `nextSnapshot must be a non-negative integer, got ${consumer.nextSnapshot}`);
    }
    await this.fileIO.writeFile(this.consumerPath(id), consumerToJson(consumer));
  }

  /** Returns false when the consumer did not exist. */
  async deleteConsumer(id: string): Promise<boolean> {
    validateConsumerId(id);
    return this.fileIO.delete(this.consumerPath(id));
  }

  /** Every consumer with its file's modification time (unsorted; vanished files skipped). */
  async listConsumers(): Promise<ConsumerEntry[]> {
    const out: ConsumerEntry[] = [];
    for await (const { status, suffix } of listOriginalVersionedFiles(this.fileIO, this.consumerDirectory(), CONSUMER_PREFIX)) {
      try {
        const c = parseConsumer((await this.fileIO.readFile(status.path)).toString('utf8'), status.path);
        out.push({ id: suffix, nextSnapshot: c.nextSnapshot, modificationTime: status.modificationTime });
      } catch (e) {
        if (!isPaimonError(e, 'FILE_NOT_FOUND')) throw e;
      }
    }
    return out;
  }

  /** `consumers()`: id -> nextSnapshot. */
  async consumers(): Promise<Map<string, number>> {
    return new Map((await this.listConsumers()).map((c) => [c.id, c.nextSnapshot]));
  }

  async listAllIds(): Promise<string[]> {
    const ids: string[] = [];
    for await (const { suffix } of listOriginalVersionedFiles(this.fileIO, this.consumerDirectory(), CONSUMER_PREFIX)) ids.push(suffix);
    return ids;
  }

  /** Minimum nextSnapshot over all consumers, or null when there are none. */
  async minNextSnapshot(): Promise<number | null> {
    let min: number | null = null;
    for (const c of await this.listConsumers()) if (min === null || c.nextSnapshot < min) min = c.nextSnapshot;
    return min;
  }

  /** `expire(expireDateTime)`: delete consumers whose file is older than the cutoff (epoch ms). Returns the ids deleted. */
  async expire(cutoffMillis: number): Promise<string[]> {
    const deleted: string[] = [];
    for (const c of await this.listConsumers()) {
      if (c.modificationTime < cutoffMillis) {
        await this.fileIO.delete(this.consumerPath(c.id));
        deleted.push(c.id);
      }
    }
    return deleted;
  }

  /** `clearConsumers(including, excluding)`: whole-id regex matches, like Java's `matcher().matches()`. */
  async clearConsumers(including: RegExp, excluding?: RegExp): Promise<string[]> {
    const deleted: string[] = [];
    for (const id of selectConsumerIds(await this.listAllIds(), including, excluding)) {
      await this.fileIO.delete(this.consumerPath(id));
      deleted.push(id);
    }
    return deleted;
  }
}

/** `re` matching whole strings only (Java's `Matcher.matches()`), without the stateful `g`/`y` flags. */
export function fullMatch(re: RegExp): RegExp {
  return new RegExp(`^(?:${re.source})$`, re.flags.replace(/[gy]/g, ''));
}

/**
 * The ids ConsumerManager.clearConsumers deletes: those `including` matches as a whole and
 * `excluding` (when given) does not, in the order given.
 */
export function selectConsumerIds(ids: Iterable<string>, including: RegExp, excluding?: RegExp): string[] {
  const inc = fullMatch(including);
  const exc = excluding ? fullMatch(excluding) : undefined;
  const out: string[] = [];
  for (const id of ids) if (inc.test(id) && !(exc && exc.test(id))) out.push(id);
  return out;
}
