/**
 * Errors raised by the Paimon table-format library. Each carries a stable symbolic code;
 * the procedure layer maps codes to MySQL errnos and SQLSTATEs (procedures/framework/errors.ts).
 * Messages name the object (table, snapshot, file path) but never a credential.
 */
export type PaimonErrorCode =
  | 'DATABASE_NOT_FOUND'
  | 'TABLE_NOT_FOUND'
  | 'SNAPSHOT_NOT_FOUND'
  | 'TAG_NOT_FOUND'
  | 'TAG_ALREADY_EXISTS'
  | 'BRANCH_NOT_FOUND'
  | 'BRANCH_ALREADY_EXISTS'
  | 'CONSUMER_NOT_FOUND'
  | 'SCHEMA_NOT_FOUND'
  | 'FILE_NOT_FOUND'
  | 'FILE_ALREADY_EXISTS'
  | 'COMMIT_CONFLICT'
  | 'UNSUPPORTED_FORMAT'
  | 'UNSUPPORTED_TABLE'
  | 'CORRUPT_METADATA'
  | 'INVALID_ARGUMENT'
  | 'NOT_SUPPORTED'
  | 'STORAGE_ERROR';

export class PaimonError extends Error {
  readonly code: PaimonErrorCode;
  constructor(code: PaimonErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PaimonError';
    this.code = code;
  }
}

export function isPaimonError(e: unknown, code?: PaimonErrorCode): e is PaimonError {
  return e instanceof PaimonError && (code === undefined || e.code === code);
}
