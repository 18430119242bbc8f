/**
 * The REST catalog's resource paths (`ResourcePaths`, docs/static/rest-catalog-open-api.yaml):
 * `/v1/config`, then everything under `/v1/{prefix}/...`. Each name segment is URL-encoded (Java
 * uses URLEncoder; the server decodes either spelling). A branch is addressed as the object
 * `table$branch_<name>`, as `Identifier.getObjectName` spells it.
 */
import { identifierToString, type Identifier } from '../identifier.js';

export const CONFIG_PATH = '/v1/config';

function enc(s: string): string {
  return encodeURIComponent(s);
}

/** The object name of a table or branch (`t`, `t$branch_b`). */
export function objectName(id: Pick<Identifier, 'database' | 'table' | 'branch'>): string {
  return identifierToString({ database: id.database, table: id.table, ...(id.branch !== undefined ? { branch: id.branch } : {}) }).slice(id.database.length + 1);
}

export class ResourcePaths {
  private readonly base: string;
  constructor(prefix: string) {
    this.base = prefix === '' ? '/v1' : `/v1/${enc(prefix)}`;
  }
  databases(): string {
    return `${this.base}/databases`;
  }
  database(db: string): string {
    return `${this.base}/databases/${enc(db)}`;
  }
  tables(db: string): string {
    return `${this.database(db)}/tables`;
  }
  table(id: Pick<Identifier, 'database' | 'table' | 'branch'>): string {
    return `${this.tables(id.database)}/${enc(objectName(id))}`;
  }
  commitTable(id: Pick<Identifier, 'database' | 'table' | 'branch'>): string {
    return `${this.table(id)}/commit`;
  }
  /** `ResourcePaths.tableToken`: the table's data token (`GET`). */
  tableToken(id: Pick<Identifier, 'database' | 'table' | 'branch'>): string {
    return `${this.table(id)}/token`;
  }
  rollbackTable(id: Pick<Identifier, 'database' | 'table' | 'branch'>): string {
    return `${this.table(id)}/rollback`;
  }
  branches(id: Pick<Identifier, 'database' | 'table'>): string {
    return `${this.table({ database: id.database, table: id.table })}/branches`;
  }
  branch(id: Pick<Identifier, 'database' | 'table'>, branch: string): string {
    return `${this.branches(id)}/${enc(branch)}`;
  }
  forwardBranch(id: Pick<Identifier, 'database' | 'table'>, branch: string): string {
    return `${this.branch(id, branch)}/forward`;
  }
}
