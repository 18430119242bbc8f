/**
 * System variables answered in standalone mode (no FE). Values follow a Doris FE's defaults
 * where clients read them (apache/doris `qe/GlobalVariable.java`, `qe/SessionVariable.java`):
 * version 5.7.99 (so Connector/J takes its MySQL 5.7 paths, as it does with Doris),
 * lower_case_table_names 0, license, performance_schema OFF, query_cache_size 1048576.
 * `version_comment` says what this server is, so the mysql CLI banner tells the user.
 *
 * Numeric variables are answered as BIGINT columns, the rest as strings, as MySQL does.
 */
import type { ColumnType } from './route.js';

export interface VariableDef {
  value: string | null;
  type: ColumnType;
}

function s(value: string | null): VariableDef {
  return { value, type: 'string' };
}
function n(value: number): VariableDef {
  return { value: String(value), type: 'bigint' };
}

function systemTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export const PROXY_VERSION_COMMENT = 'paimon-procedure-proxy (standalone: no Doris FE configured; runs CALL <catalog>.sys.<procedure>(...))';

/** Defaults by lower-case name. */
export function defaultVariables(): Map<string, VariableDef> {
  const tz = systemTimeZone();
  return new Map<string, VariableDef>([
    ['auto_increment_increment', n(1)],
    ['auto_increment_offset', n(1)],
    ['autocommit', n(1)],
    ['character_set_client', s('utf8mb4')],
    ['character_set_connection', s('utf8mb4')],
    ['character_set_database', s('utf8mb4')],
    ['character_set_results', s('utf8mb4')],
    ['character_set_server', s('utf8mb4')],
    ['character_set_system', s('utf8mb3')],
    ['collation_connection', s('utf8mb4_0900_bin')],
    ['collation_database', s('utf8mb4_0900_bin')],
    ['collation_server', s('utf8mb4_0900_bin')],
    ['default_storage_engine', s('olap')],
    ['event_scheduler', s('OFF')],
    ['have_query_cache', s('YES')],
    ['init_connect', s('')],
    ['interactive_timeout', n(3600)],
    ['language', s('/palo/share/english/')],
    ['license', s('Apache License, Version 2.0')],
    ['lower_case_table_names', n(0)],
    ['max_allowed_packet', n(16777216)],
    ['max_execution_time', n(0)],
    ['net_buffer_length', n(16384)],
    ['net_read_timeout', n(600)],
    ['net_write_timeout', n(600)],
    ['performance_schema', s('OFF')],
    ['protocol_version', n(10)],
    ['query_cache_size', n(1048576)],
    ['query_cache_type', s('OFF')],
    // Accepted so that drivers may set it (MariaDB Connector/J does when session tracking is
    // offered); the proxy's own OK packets carry no session-state changes.
    ['session_track_schema', s('')],
    ['session_track_state_change', s('')],
    ['session_track_system_variables', s('')],
    ['session_track_transaction_info', s('')],
    ['sql_auto_is_null', n(0)],
    ['sql_mode', s('ONLY_FULL_GROUP_BY')],
    ['sql_select_limit', { value: '18446744073709551615', type: 'bigint' }],
    ['system_time_zone', s(tz)],
    ['time_zone', s(tz)],
    ['transaction_isolation', s('REPEATABLE-READ')],
    ['transaction_read_only', n(0)],
    ['tx_isolation', s('REPEATABLE-READ')],
    ['tx_read_only', n(0)],
    ['version', s('5.7.99')],
    ['version_comment', s(PROXY_VERSION_COMMENT)],
    ['version_compile_os', s('LINUX')],
    ['wait_timeout', n(28800)],
  ]);
}
