/**
 * Errors are part of the interface: every failure a CALL can end with has a stable symbolic
 * code, and the code alone decides the MySQL errno and SQLSTATE the client sees. Tests
 * assert codes, never message text. The table below is the single source of truth; the
 * README's error table is generated from it (`renderErrorTable`).
 *
 * Errnos follow MySQL's server error list where one fits (MYSQL_ERRORS names them); Doris
 * itself answers most failures with 1105 / HY000, which is the fallback here too.
 */
import { PaimonError, type PaimonErrorCode } from '../../src/paimon/errors.js';
import { isUnsafePathError } from '../../src/paimon/fs/table-scoped-file-io.js';

export interface ErrorCodeInfo {
  errno: number;
  sqlState: string;
  meaning: string;
  whatToDo: string;
}

/** The MySQL server errors the codes answer with: errno and SQLSTATE, under MySQL's names. */
const MYSQL_ERRORS = {
  ER_PARSE_ERROR: [1064, '42000'],
  ER_NOT_SUPPORTED_YET: [1235, '42000'],
  ER_SP_DOES_NOT_EXIST: [1305, '42000'],
  ER_WRONG_ARGUMENTS: [1210, 'HY000'],
  ER_SP_WRONG_NO_OF_ARGS: [1318, '42000'],
  ER_BAD_FIELD_ERROR: [1054, '42S22'],
  ER_BAD_DB_ERROR: [1049, '42000'], // Doris reports unknown catalogs in this family too
  ER_NO_SUCH_TABLE: [1146, '42S02'],
  ER_UNKNOWN_ERROR: [1105, 'HY000'],
  ER_LOCK_DEADLOCK: [1213, '40001'], // the retryable class clients understand
  ER_LOCK_WAIT_TIMEOUT: [1205, 'HY000'],
  ER_CON_COUNT_ERROR: [1040, '08004'], // used for its family: a capacity limit
  ER_QUERY_INTERRUPTED: [1317, '70100'],
  ER_QUERY_TIMEOUT: [3024, 'HY000'],
  ER_TABLEACCESS_DENIED_ERROR: [1142, '42000'],
  ER_DBACCESS_DENIED_ERROR: [1044, '42000'],
  ER_SPECIFIC_ACCESS_DENIED_ERROR: [1227, '42000'],
  ER_UNKNOWN_SYSTEM_VARIABLE: [1193, 'HY000'],
  ER_NO_SUCH_THREAD: [1094, 'HY000'],
} as const satisfies Record<string, readonly [errno: number, sqlState: string]>;

type MysqlError = keyof typeof MYSQL_ERRORS;

/** Each code: the MySQL error it answers with, what it means, what the user can do. */
const CODE_TABLE = {
  // --- statement and argument errors -------------------------------------------------------
  PARSE_ERROR: ['ER_PARSE_ERROR', 'The CALL statement is not valid syntax; the message gives the position and what was expected.',
    'Fix the statement at the position named in the message.'],
  MULTI_STATEMENT: ['ER_NOT_SUPPORTED_YET', 'A Paimon CALL was sent together with other statements in one query.',
    'Send the CALL as a statement of its own.'],
  PROCEDURE_NOT_FOUND: ['ER_SP_DOES_NOT_EXIST', 'No procedure of that name exists in the sys namespace; the message lists those that do.',
    'Use one of the listed names (SHOW PROCEDURES in standalone mode lists them).'],
  ARGUMENTS_MIXED: ['ER_WRONG_ARGUMENTS', 'Named (name => value) and positional arguments were mixed in one call, which Paimon refuses.',
    'Pass all arguments by name or all by position.'],
  ARGUMENT_UNKNOWN: ['ER_WRONG_ARGUMENTS', 'A named argument is not a parameter (or alias) of the procedure.',
    'Use a parameter name from the signature shown in the message.'],
  ARGUMENT_DUPLICATED: ['ER_WRONG_ARGUMENTS', 'The same parameter was given twice (possibly under two of its aliases).',
    'Give each parameter once.'],
  ARGUMENT_MISSING: ['ER_SP_WRONG_NO_OF_ARGS', 'A required parameter was not given (or was NULL).',
    'Add the parameters marked required in the signature shown in the message.'],
  TOO_MANY_ARGUMENTS: ['ER_SP_WRONG_NO_OF_ARGS', 'More positional arguments than the procedure has parameters.',
    'Remove the extra arguments; the message shows the signature.'],
  ARGUMENT_TYPE: ['ER_WRONG_ARGUMENTS', 'An argument value has the wrong type for its parameter (for example a string for an INT).',
    'Pass a value of the type shown in the signature.'],
  COLUMN_NOT_FOUND: ['ER_BAD_FIELD_ERROR', 'An argument names a column the table does not have (for example an order_by column of compact); the message lists the columns it has.',
    'Use one of the listed column names.'],
  INVALID_ARGUMENT: ['ER_WRONG_ARGUMENTS', 'An argument has the right type but a value the procedure refuses (for example retain_min < 1, a bad duration or table identifier).',
    'Correct the value as the message explains.'],
  UNSAFE_ARGUMENT: ['ER_WRONG_ARGUMENTS', 'The arguments ask for something the safety rules refuse (for example remove_orphan_files with older_than younger than the configured floor).',
    'Use a safer value, or force it where the procedure allows (requires the privilege named in the message).'],
  // --- targets -------------------------------------------------------------------------------
  CATALOG_NOT_FOUND: ['ER_BAD_DB_ERROR', 'The catalog is not one of the Paimon catalogs configured in the proxy.',
    'Use a configured catalog name (SHOW CATALOGS), or add the catalog to the configuration.'],
  DATABASE_NOT_FOUND: ['ER_BAD_DB_ERROR', 'The database does not exist in the catalog.',
    'Check the database name (SHOW DATABASES).'],
  TABLE_NOT_FOUND: ['ER_NO_SUCH_TABLE', 'The table does not exist in the database.',
    'Check the table identifier (db.table, optionally db.table$branch_<name>).'],
  SNAPSHOT_NOT_FOUND: ['ER_UNKNOWN_ERROR', 'The snapshot id does not exist (it may have expired).',
    'Pick an existing snapshot id (the table\'s $snapshots system table lists them).'],
  TAG_NOT_FOUND: ['ER_UNKNOWN_ERROR', 'The tag does not exist on the table or branch.',
    'Check the tag name (the table\'s $tags system table lists them).'],
  TAG_ALREADY_EXISTS: ['ER_UNKNOWN_ERROR', 'A tag of that name already exists.',
    'Choose another name, or delete or replace the existing tag.'],
  BRANCH_NOT_FOUND: ['ER_UNKNOWN_ERROR', 'The branch does not exist on the table.',
    'Check the branch name (the table\'s $branches system table lists them).'],
  BRANCH_ALREADY_EXISTS: ['ER_UNKNOWN_ERROR', 'A branch of that name already exists.',
    'Choose another name, or delete the existing branch first.'],
  CONSUMER_NOT_FOUND: ['ER_UNKNOWN_ERROR', 'The consumer id does not exist on the table.',
    'Check the consumer id (the table\'s $consumers system table lists them).'],
  SCHEMA_NOT_FOUND: ['ER_UNKNOWN_ERROR', 'A schema file that the table metadata refers to is missing.',
    'The table metadata is inconsistent; inspect the table\'s schema/ directory.'],
  FILE_NOT_FOUND: ['ER_UNKNOWN_ERROR', 'A file the table metadata refers to is missing.',
    'The message names the file; the table may need repair from a snapshot that is still complete.'],
  FILE_ALREADY_EXISTS: ['ER_UNKNOWN_ERROR', 'A file that should be new already exists.',
    'Usually a concurrent writer; retry the call.'],
  UNSUPPORTED_TABLE: ['ER_NOT_SUPPORTED_YET', 'The procedure does not support this kind of table (for example a system table or a non-FileStore table).',
    'Run the procedure with Paimon\'s own engine for this table.'],
  UNSUPPORTED_FORMAT: ['ER_NOT_SUPPORTED_YET', 'The table uses a file format, codec or metadata version the proxy cannot read or write.',
    'Run the procedure with Paimon\'s own engine for this table, and report the format named in the message.'],
  NOT_SUPPORTED: ['ER_NOT_SUPPORTED_YET', 'The requested feature or statement is not supported by the proxy.',
    'See the message for what is supported.'],
  // --- concurrency and execution -------------------------------------------------------------
  COMMIT_CONFLICT: ['ER_LOCK_DEADLOCK', 'Another writer committed to the table first, and the work could not be committed on top of it. Nothing was committed.',
    'Retry the call.'],
  CONCURRENT_MODIFICATION: ['ER_LOCK_DEADLOCK', 'The snapshots, tags or branches changed between planning and acting (the pinned generation moved). Nothing was changed.',
    'Retry the call; if it keeps happening, run it while writers are paused.'],
  TABLE_BUSY: ['ER_LOCK_WAIT_TIMEOUT', 'Another metadata-changing procedure is running on the same table in this proxy.',
    'Wait for it to finish (or cancel it) and retry.'],
  TOO_MANY_JOBS: ['ER_CON_COUNT_ERROR', 'The global cap on concurrent heavy procedures is reached.',
    'Retry later, or raise the configured limit.'],
  QUERY_INTERRUPTED: ['ER_QUERY_INTERRUPTED', 'The call was cancelled (KILL QUERY, KILL, client disconnect). The message says whether anything was committed.',
    'Check the message; rerun the call if needed.'],
  TIMEOUT: ['ER_QUERY_TIMEOUT', 'The call exceeded its time limit and was stopped. The message says whether anything was committed.',
    'Raise the timeout (argument or session setting, up to the configured maximum), or run the call asynchronously.'],
  JOB_NOT_FOUND: ['ER_UNKNOWN_ERROR', 'No asynchronous job has that id.',
    'List the jobs to find the right id.'],
  // --- privileges ----------------------------------------------------------------------------
  TABLE_ACCESS_DENIED: ['ER_TABLEACCESS_DENIED_ERROR', 'The user lacks the privilege the procedure needs on the table.',
    'Ask for the privilege named in the message on that table.'],
  DATABASE_ACCESS_DENIED: ['ER_DBACCESS_DENIED_ERROR', 'The user lacks the privilege the procedure needs on the database or catalog.',
    'Ask for the privilege named in the message on that database.'],
  ADMIN_REQUIRED: ['ER_SPECIFIC_ACCESS_DENIED_ERROR', 'The operation needs the ADMIN privilege (for example a forced orphan cleanup below the safety floor).',
    'Run it as a user with ADMIN, or without the forcing option.'],
  // --- storage and internal ------------------------------------------------------------------
  CORRUPT_METADATA: ['ER_UNKNOWN_ERROR', 'A metadata file (snapshot, manifest, schema) could not be decoded.',
    'The message names the file; inspect it and the process that wrote it.'],
  UNSAFE_PATH: ['ER_UNKNOWN_ERROR', "A procedure was about to change or list a file outside its table's directories (the table root, its branches, its data-file.external-paths): a path with `..`, a key of another prefix, or a directory symlink in the table that leads outside. Nothing outside was touched.",
    'Inspect the entry named in the message (relative to the table directory): remove the link or fix the metadata that names the path, or add the directory to data-file.external-paths if the table really owns it.'],
  STORAGE_ERROR: ['ER_UNKNOWN_ERROR', 'The object store or file system failed (network, permissions, throttling).',
    'Check the storage configuration and its availability, then retry.'],
  STANDALONE_UNSUPPORTED: ['ER_NOT_SUPPORTED_YET', 'No Doris FE is configured, so the proxy only answers Paimon procedure calls and a few session statements.',
    'Send CALL <catalog>.sys.<procedure>(...), or configure an upstream FE to run other statements.'],
  UNKNOWN_SYSTEM_VARIABLE: ['ER_UNKNOWN_SYSTEM_VARIABLE', 'Standalone mode does not know the system variable.',
    'SHOW VARIABLES lists the ones it knows.'],
  NO_SUCH_THREAD: ['ER_NO_SUCH_THREAD', 'KILL named a connection id that is not known (standalone mode).',
    'Check the id (CONNECTION_ID() of the other session).'],
  INTERNAL_ERROR: ['ER_UNKNOWN_ERROR', 'An unexpected failure inside the proxy.',
    'Report it with the proxy log around the time of the call.'],
} as const satisfies Record<string, readonly [mysql: MysqlError, meaning: string, whatToDo: string]>;

export type ProcedureErrorCode = keyof typeof CODE_TABLE;

export const ERROR_CODES: Readonly<Record<ProcedureErrorCode, ErrorCodeInfo>> = Object.fromEntries(
  Object.entries(CODE_TABLE).map(([code, [mysql, meaning, whatToDo]]) => {
    const [errno, sqlState] = MYSQL_ERRORS[mysql];
    return [code, { errno, sqlState, meaning, whatToDo }];
  }),
) as Record<ProcedureErrorCode, ErrorCodeInfo>;

/** How each PaimonError code of the table-format library surfaces to the client. */
export const PAIMON_ERROR_MAPPING: Record<PaimonErrorCode, ProcedureErrorCode> = {
  DATABASE_NOT_FOUND: 'DATABASE_NOT_FOUND',
  TABLE_NOT_FOUND: 'TABLE_NOT_FOUND',
  SNAPSHOT_NOT_FOUND: 'SNAPSHOT_NOT_FOUND',
  TAG_NOT_FOUND: 'TAG_NOT_FOUND',
  TAG_ALREADY_EXISTS: 'TAG_ALREADY_EXISTS',
  BRANCH_NOT_FOUND: 'BRANCH_NOT_FOUND',
  BRANCH_ALREADY_EXISTS: 'BRANCH_ALREADY_EXISTS',
  CONSUMER_NOT_FOUND: 'CONSUMER_NOT_FOUND',
  SCHEMA_NOT_FOUND: 'SCHEMA_NOT_FOUND',
  FILE_NOT_FOUND: 'FILE_NOT_FOUND',
  FILE_ALREADY_EXISTS: 'FILE_ALREADY_EXISTS',
  COMMIT_CONFLICT: 'COMMIT_CONFLICT',
  UNSUPPORTED_FORMAT: 'UNSUPPORTED_FORMAT',
  UNSUPPORTED_TABLE: 'UNSUPPORTED_TABLE',
  CORRUPT_METADATA: 'CORRUPT_METADATA',
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  NOT_SUPPORTED: 'NOT_SUPPORTED',
  STORAGE_ERROR: 'STORAGE_ERROR',
};

export interface ProcedureErrorOptions {
  cause?: unknown;
  /**
   * Whether anything was committed before the failure. Required to be stated for
   * cancellations and timeouts (the error must not leave it ambiguous); undefined
   * means the failure happened before any write could start.
   */
  committed?: boolean;
}

export class ProcedureError extends Error {
  readonly code: ProcedureErrorCode;
  readonly committed: boolean | undefined;
  constructor(code: ProcedureErrorCode, message: string, options: ProcedureErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProcedureError';
    this.code = code;
    this.committed = options.committed;
  }
  get errno(): number {
    return ERROR_CODES[this.code].errno;
  }
  get sqlState(): string {
    return ERROR_CODES[this.code].sqlState;
  }
}

export function isProcedureError(e: unknown, code?: ProcedureErrorCode): e is ProcedureError {
  return e instanceof ProcedureError && (code === undefined || e.code === code);
}

/**
 * Turn anything thrown inside a call into a ProcedureError. `signal` is the call's abort
 * signal: an abort surfaces as QUERY_INTERRUPTED or TIMEOUT whatever the procedure threw
 * while unwinding (an AbortError, a storage error from a cancelled request, ...).
 */
export function toProcedureError(e: unknown, signal?: AbortSignal): ProcedureError {
  if (signal?.aborted) {
    const committed = e instanceof ProcedureError ? e.committed : undefined;
    if (e instanceof ProcedureError && (e.code === 'QUERY_INTERRUPTED' || e.code === 'TIMEOUT')) return e;
    return abortError(signal, committed, e);
  }
  if (e instanceof ProcedureError) return e;
  if (isUnsafePathError(e)) return new ProcedureError('UNSAFE_PATH', e.message, { cause: e });
  if (e instanceof PaimonError) {
    return new ProcedureError(PAIMON_ERROR_MAPPING[e.code] ?? 'INTERNAL_ERROR', e.message, { cause: e });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new ProcedureError('INTERNAL_ERROR', `internal error: ${message}`, { cause: e });
}

/** The reason object the executor aborts with on a timeout, so the error can say which limit. */
export class CallTimeoutReason extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`the call exceeded its time limit of ${timeoutMs} ms`);
    this.name = 'CallTimeoutReason';
    this.timeoutMs = timeoutMs;
  }
}

function committedText(committed: boolean | undefined): string {
  if (committed === true) return 'Part of the work was committed before the stop; the result of the committed part is durable.';
  if (committed === false) return 'Nothing was committed.';
  return 'Nothing was committed.';
}

/** The ProcedureError for an aborted call (KILL, disconnect, timeout). */
export function abortError(signal: AbortSignal, committed: boolean | undefined, cause?: unknown): ProcedureError {
  const reason: unknown = signal.reason;
  if (reason instanceof CallTimeoutReason) {
    return new ProcedureError('TIMEOUT', `Query execution was interrupted: ${reason.message}. ${committedText(committed)}`, {
      cause,
      committed: committed ?? false,
    });
  }
  const why = reason instanceof Error && reason.name !== 'AbortError' ? `: ${reason.message}` : '';
  return new ProcedureError('QUERY_INTERRUPTED', `Query execution was interrupted${why}. ${committedText(committed)}`, {
    cause,
    committed: committed ?? false,
  });
}

/** Markdown table of every code, for the README. */
export function renderErrorTable(): string {
  const lines = ['| code | errno | SQLSTATE | meaning | what to do |', '| --- | --- | --- | --- | --- |'];
  for (const [code, info] of Object.entries(ERROR_CODES) as [ProcedureErrorCode, ErrorCodeInfo][]) {
    lines.push(`| \`${code}\` | ${info.errno} | ${info.sqlState} | ${info.meaning} | ${info.whatToDo} |`);
  }
  return lines.join('\n');
}
