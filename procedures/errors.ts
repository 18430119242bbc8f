/**
 * Errors are part of the interface: every failure a CALL can end with has a stable symbolic
 * code, and the code alone decides the MySQL errno and SQLSTATE the client sees. Tests
 * assert codes, never message text. The table below is the single source of truth; the
 * README's error table is generated from it (`renderErrorTable`).
 *
 * Errnos follow MySQL's server error list where one fits (names in comments); Doris itself
 * answers most failures with 1105 / HY000, which is the fallback here too.
 */
import { PaimonError, type PaimonErrorCode } from '../src/paimon/errors.js';

export interface ErrorCodeInfo {
  errno: number;
  sqlState: string;
  meaning: string;
  whatToDo: string;
}

export const ERROR_CODES = {
  // --- statement and argument errors -------------------------------------------------------
  PARSE_ERROR: {
    errno: 1064, sqlState: '42000', // ER_PARSE_ERROR
    meaning: 'The CALL statement is not valid syntax; the message gives the position and what was expected.',
    whatToDo: 'Fix the statement at the position named in the message.',
  },
  MULTI_STATEMENT: {
    errno: 1235, sqlState: '42000', // ER_NOT_SUPPORTED_YET
    meaning: 'A Paimon CALL was sent together with other statements in one query.',
    whatToDo: 'Send the CALL as a statement of its own.',
  },
  PROCEDURE_NOT_FOUND: {
    errno: 1305, sqlState: '42000', // ER_SP_DOES_NOT_EXIST
    meaning: 'No procedure of that name exists in the sys namespace; the message lists those that do.',
    whatToDo: 'Use one of the listed names (SHOW PROCEDURES in standalone mode lists them).',
  },
  ARGUMENTS_MIXED: {
    errno: 1210, sqlState: 'HY000', // ER_WRONG_ARGUMENTS
    meaning: 'Named (name => value) and positional arguments were mixed in one call, which Paimon refuses.',
    whatToDo: 'Pass all arguments by name or all by position.',
  },
  ARGUMENT_UNKNOWN: {
    errno: 1210, sqlState: 'HY000',
    meaning: 'A named argument is not a parameter (or alias) of the procedure.',
    whatToDo: 'Use a parameter name from the signature shown in the message.',
  },
  ARGUMENT_DUPLICATED: {
    errno: 1210, sqlState: 'HY000',
    meaning: 'The same parameter was given twice (possibly under two of its aliases).',
    whatToDo: 'Give each parameter once.',
  },
  ARGUMENT_MISSING: {
    errno: 1318, sqlState: '42000', // ER_SP_WRONG_NO_OF_ARGS
    meaning: 'A required parameter was not given (or was NULL).',
    whatToDo: 'Add the parameters marked required in the signature shown in the message.',
  },
  TOO_MANY_ARGUMENTS: {
    errno: 1318, sqlState: '42000',
    meaning: 'More positional arguments than the procedure has parameters.',
    whatToDo: 'Remove the extra arguments; the message shows the signature.',
  },
  ARGUMENT_TYPE: {
    errno: 1210, sqlState: 'HY000',
    meaning: 'An argument value has the wrong type for its parameter (for example a string for an INT).',
    whatToDo: 'Pass a value of the type shown in the signature.',
  },
  COLUMN_NOT_FOUND: {
    errno: 1054, sqlState: '42S22', // ER_BAD_FIELD_ERROR
    meaning: 'An argument names a column the table does not have (for example an order_by column of compact); the message lists the columns it has.',
    whatToDo: 'Use one of the listed column names.',
  },
  INVALID_ARGUMENT: {
    errno: 1210, sqlState: 'HY000',
    meaning: 'An argument has the right type but a value the procedure refuses (for example retain_min < 1, a bad duration or table identifier).',
    whatToDo: 'Correct the value as the message explains.',
  },
  UNSAFE_ARGUMENT: {
    errno: 1210, sqlState: 'HY000',
    meaning: 'The arguments ask for something the safety rules refuse (for example remove_orphan_files with older_than younger than the configured floor).',
    whatToDo: 'Use a safer value, or force it where the procedure allows (requires the privilege named in the message).',
  },
  // --- targets -------------------------------------------------------------------------------
  CATALOG_NOT_FOUND: {
    errno: 1049, sqlState: '42000', // ER_BAD_DB_ERROR (Doris reports unknown catalogs in this family)
    meaning: 'The catalog is not one of the Paimon catalogs configured in the proxy.',
    whatToDo: 'Use a configured catalog name (SHOW CATALOGS), or add the catalog to the configuration.',
  },
  DATABASE_NOT_FOUND: {
    errno: 1049, sqlState: '42000', // ER_BAD_DB_ERROR
    meaning: 'The database does not exist in the catalog.',
    whatToDo: 'Check the database name (SHOW DATABASES).',
  },
  TABLE_NOT_FOUND: {
    errno: 1146, sqlState: '42S02', // ER_NO_SUCH_TABLE
    meaning: 'The table does not exist in the database.',
    whatToDo: 'Check the table identifier (db.table, optionally db.table$branch_<name>).',
  },
  SNAPSHOT_NOT_FOUND: {
    errno: 1105, sqlState: 'HY000',
    meaning: 'The snapshot id does not exist (it may have expired).',
    whatToDo: 'Pick an existing snapshot id (the table\'s $snapshots system table lists them).',
  },
  TAG_NOT_FOUND: {
    errno: 1105, sqlState: 'HY000',
    meaning: 'The tag does not exist on the table or branch.',
    whatToDo: 'Check the tag name (the table\'s $tags system table lists them).',
  },
  TAG_ALREADY_EXISTS: {
    errno: 1105, sqlState: 'HY000',
    meaning: 'A tag of that name already exists.',
    whatToDo: 'Choose another name, or delete or replace the existing tag.',
  },
  BRANCH_NOT_FOUND: {
    errno: 1105, sqlState: 'HY000',
    meaning: 'The branch does not exist on the table.',
    whatToDo: 'Check the branch name (the table\'s $branches system table lists them).',
  },
  BRANCH_ALREADY_EXISTS: {
    errno: 1105, sqlState: 'HY000',
    meaning: 'A branch of that name already exists.',
    whatToDo: 'Choose another name, or delete the existing branch first.',
  },
  CONSUMER_NOT_FOUND: {
    errno: 1105, sqlState: 'HY000',
    meaning: 'The consumer id does not exist on the table.',
    whatToDo: 'Check the consumer id (the table\'s $consumers system table lists them).',
  },
  SCHEMA_NOT_FOUND: {
    errno: 1105, sqlState: 'HY000',
    meaning: 'A schema file that the table metadata refers to is missing.',
    whatToDo: 'The table metadata is inconsistent; inspect the table\'s schema/ directory.',
  },
  FILE_NOT_FOUND: {
    errno: 1105, sqlState: 'HY000',
    meaning: 'A file the table metadata refers to is missing.',
    whatToDo: 'The message names the file; the table may need repair from a snapshot that is still complete.',
  },
  FILE_ALREADY_EXISTS: {
    errno: 1105, sqlState: 'HY000',
    meaning: 'A file that should be new already exists.',
    whatToDo: 'Usually a concurrent writer; retry the call.',
  },
  UNSUPPORTED_TABLE: {
    errno: 1235, sqlState: '42000', // ER_NOT_SUPPORTED_YET
    meaning: 'The procedure does not support this kind of table (for example a system table or a non-FileStore table).',
    whatToDo: 'Run the procedure with Paimon\'s own engine for this table.',
  },
  UNSUPPORTED_FORMAT: {
    errno: 1235, sqlState: '42000',
    meaning: 'The table uses a file format, codec or metadata version the proxy cannot read or write.',
    whatToDo: 'Run the procedure with Paimon\'s own engine for this table, and report the format named in the message.',
  },
  NOT_SUPPORTED: {
    errno: 1235, sqlState: '42000',
    meaning: 'The requested feature or statement is not supported by the proxy.',
    whatToDo: 'See the message for what is supported.',
  },
  // --- concurrency and execution -------------------------------------------------------------
  COMMIT_CONFLICT: {
    errno: 1213, sqlState: '40001', // ER_LOCK_DEADLOCK: the retryable class clients understand
    meaning: 'Another writer committed to the table first, and the work could not be committed on top of it. Nothing was committed.',
    whatToDo: 'Retry the call.',
  },
  CONCURRENT_MODIFICATION: {
    errno: 1213, sqlState: '40001',
    meaning: 'The snapshots, tags or branches changed between planning and acting (the pinned generation moved). Nothing was changed.',
    whatToDo: 'Retry the call; if it keeps happening, run it while writers are paused.',
  },
  TABLE_BUSY: {
    errno: 1205, sqlState: 'HY000', // ER_LOCK_WAIT_TIMEOUT
    meaning: 'Another metadata-changing procedure is running on the same table in this proxy.',
    whatToDo: 'Wait for it to finish (or cancel it) and retry.',
  },
  TOO_MANY_JOBS: {
    errno: 1040, sqlState: '08004', // ER_CON_COUNT_ERROR family: a capacity limit
    meaning: 'The global cap on concurrent heavy procedures is reached.',
    whatToDo: 'Retry later, or raise the configured limit.',
  },
  QUERY_INTERRUPTED: {
    errno: 1317, sqlState: '70100', // ER_QUERY_INTERRUPTED
    meaning: 'The call was cancelled (KILL QUERY, KILL, client disconnect). The message says whether anything was committed.',
    whatToDo: 'Check the message; rerun the call if needed.',
  },
  TIMEOUT: {
    errno: 3024, sqlState: 'HY000', // ER_QUERY_TIMEOUT
    meaning: 'The call exceeded its time limit and was stopped. The message says whether anything was committed.',
    whatToDo: 'Raise the timeout (argument or session setting, up to the configured maximum), or run the call asynchronously.',
  },
  JOB_NOT_FOUND: {
    errno: 1105, sqlState: 'HY000',
    meaning: 'No asynchronous job has that id.',
    whatToDo: 'List the jobs to find the right id.',
  },
  // --- privileges ----------------------------------------------------------------------------
  TABLE_ACCESS_DENIED: {
    errno: 1142, sqlState: '42000', // ER_TABLEACCESS_DENIED_ERROR
    meaning: 'The user lacks the privilege the procedure needs on the table.',
    whatToDo: 'Ask for the privilege named in the message on that table.',
  },
  DATABASE_ACCESS_DENIED: {
    errno: 1044, sqlState: '42000', // ER_DBACCESS_DENIED_ERROR
    meaning: 'The user lacks the privilege the procedure needs on the database or catalog.',
    whatToDo: 'Ask for the privilege named in the message on that database.',
  },
  ADMIN_REQUIRED: {
    errno: 1227, sqlState: '42000', // ER_SPECIFIC_ACCESS_DENIED_ERROR
    meaning: 'The operation needs the ADMIN privilege (for example a forced orphan cleanup below the safety floor).',
    whatToDo: 'Run it as a user with ADMIN, or without the forcing option.',
  },
  // --- storage and internal ------------------------------------------------------------------
  CORRUPT_METADATA: {
    errno: 1105, sqlState: 'HY000',
    meaning: 'A metadata file (snapshot, manifest, schema) could not be decoded.',
    whatToDo: 'The message names the file; inspect it and the process that wrote it.',
  },
  STORAGE_ERROR: {
    errno: 1105, sqlState: 'HY000',
    meaning: 'The object store or file system failed (network, permissions, throttling).',
    whatToDo: 'Check the storage configuration and its availability, then retry.',
  },
  STANDALONE_UNSUPPORTED: {
    errno: 1235, sqlState: '42000',
    meaning: 'No Doris FE is configured, so the proxy only answers Paimon procedure calls and a few session statements.',
    whatToDo: 'Send CALL <catalog>.sys.<procedure>(...), or configure an upstream FE to run other statements.',
  },
  UNKNOWN_SYSTEM_VARIABLE: {
    errno: 1193, sqlState: 'HY000', // ER_UNKNOWN_SYSTEM_VARIABLE
    meaning: 'Standalone mode does not know the system variable.',
    whatToDo: 'SHOW VARIABLES lists the ones it knows.',
  },
  NO_SUCH_THREAD: {
    errno: 1094, sqlState: 'HY000', // ER_NO_SUCH_THREAD
    meaning: 'KILL named a connection id that is not known (standalone mode).',
    whatToDo: 'Check the id (CONNECTION_ID() of the other session).',
  },
  INTERNAL_ERROR: {
    errno: 1105, sqlState: 'HY000', // ER_UNKNOWN_ERROR
    meaning: 'An unexpected failure inside the proxy.',
    whatToDo: 'Report it with the proxy log around the time of the call.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ProcedureErrorCode = keyof typeof ERROR_CODES;

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
  STORAGE_ERROR: 'STORAGE_ERROR',
};

export interface ProcedureErrorOptions {
  cause?: unknown;
  /**
   * Whether anything was committed before the failure. Required to be stated for
   * cancellations and timeouts (issue 6: the error must not be ambiguous); undefined
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
