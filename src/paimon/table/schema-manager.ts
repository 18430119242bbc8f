/**
 * Schemas of one branch of a table (`SchemaManager`): `<branch path>/schema/schema-N`.
 * New schema files are created with create-if-absent (`tryToWriteAtomic` in Java), because
 * data files refer to schema ids forever; old schemas are never rewritten.
 */
import { BranchScopedManager } from './branch-scoped-manager.js';
import { PaimonError, isPaimonError } from '../errors.js';
import { listVersionedFileStatus } from './hint-file.js';
import { join } from '../fs/path.js';
import { createTableSchema, parseTableSchema, tableSchemaToJson, type NewSchema, type TableSchema } from '../spec/table-schema.js';

export const SCHEMA_PREFIX = 'schema-';

export class SchemaManager extends BranchScopedManager {
  copyWithBranch(branch: string): SchemaManager {
    return new SchemaManager(this.fileIO, this.tablePath, branch);
  }

  schemaDirectory(): string {
    return this.branchDirectory('schema');
  }

  schemaPath(id: number): string {
    return join(this.schemaDirectory(), SCHEMA_PREFIX + id);
  }

  async listAllIds(): Promise<number[]> {
    const ids: number[] = [];
    for await (const { version } of listVersionedFileStatus(this.fileIO, this.schemaDirectory(), SCHEMA_PREFIX)) ids.push(version);
    return ids.sort((a, b) => a - b);
  }

  async schemaExists(id: number): Promise<boolean> {
    return this.fileIO.exists(this.schemaPath(id));
  }

  /** Schema by id; SCHEMA_NOT_FOUND when absent. */
  async schema(id: number): Promise<TableSchema> {
    const path = this.schemaPath(id);
    let text: string;
    try {
      text = (await this.fileIO.readFile(path)).toString('utf8');
    } catch (e) {
      if (isPaimonError(e, 'FILE_NOT_FOUND')) {
        throw new PaimonError('SCHEMA_NOT_FOUND', `schema ${id} does not exist in ${this.tablePath}${this.branch === 'main' ? '' : ` (branch ${this.branch})`}`);
      }
      throw e;
    }
    const s = parseTableSchema(text, path);
    if (s.id !== id) throw new PaimonError('CORRUPT_METADATA', `${path}: file name says schema ${id} but its id is ${s.id}`);
    return s;
  }

  /** The schema with the highest id, or null for a directory without schemas. */
  async latest(): Promise<TableSchema | null> {
    const ids = await this.listAllIds();
    return ids.length === 0 ? null : this.schema(ids[ids.length - 1]);
  }

  async listAll(): Promise<TableSchema[]> {
    const out: TableSchema[] = [];
    for (const id of await this.listAllIds()) out.push(await this.schema(id));
    return out;
  }

  /** Create-if-absent of `schema-<id>`; false when that id is taken. */
  async commit(schema: TableSchema): Promise<boolean> {
    return this.fileIO.tryCreateAtomic(this.schemaPath(schema.id), tableSchemaToJson(schema));
  }

  /** `SchemaManager.createTable`: schema-0 of a new table; TABLE_ALREADY_EXISTS-like error if a schema exists. */
  async createTable(schema: NewSchema, timeMillis = Date.now()): Promise<TableSchema> {
    if ((await this.latest()) !== null) {
      throw new PaimonError('INVALID_ARGUMENT', `Schema in filesystem exists, creation is not allowed: ${this.tablePath}`);
    }
    const s = createTableSchema(0, schema, timeMillis);
    if (!(await this.commit(s))) {
      throw new PaimonError('COMMIT_CONFLICT', `another writer created schema-0 of ${this.tablePath} at the same time`);
    }
    return s;
  }

  async deleteSchema(id: number): Promise<boolean> {
    return this.fileIO.delete(this.schemaPath(id));
  }
}
