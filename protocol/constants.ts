/**
 * MySQL protocol constants, named as MySQL's own headers name them (include/mysql_com.h,
 * include/my_command.h, include/field_types.h) so they can be looked up there.
 */

/** Capability flags (CLIENT_*). */
export const CLIENT_LONG_PASSWORD = 0x00000001;
/** MariaDB reuses bit 0: a MariaDB server clears it to say "extended capabilities follow". */
export const CLIENT_MYSQL = 0x00000001;
export const CLIENT_FOUND_ROWS = 0x00000002;
export const CLIENT_LONG_FLAG = 0x00000004;
export const CLIENT_CONNECT_WITH_DB = 0x00000008;
export const CLIENT_NO_SCHEMA = 0x00000010;
export const CLIENT_COMPRESS = 0x00000020;
export const CLIENT_ODBC = 0x00000040;
export const CLIENT_LOCAL_FILES = 0x00000080;
export const CLIENT_IGNORE_SPACE = 0x00000100;
export const CLIENT_PROTOCOL_41 = 0x00000200;
export const CLIENT_INTERACTIVE = 0x00000400;
export const CLIENT_SSL = 0x00000800;
export const CLIENT_IGNORE_SIGPIPE = 0x00001000;
export const CLIENT_TRANSACTIONS = 0x00002000;
export const CLIENT_RESERVED = 0x00004000;
export const CLIENT_SECURE_CONNECTION = 0x00008000;
export const CLIENT_MULTI_STATEMENTS = 0x00010000;
export const CLIENT_MULTI_RESULTS = 0x00020000;
export const CLIENT_PS_MULTI_RESULTS = 0x00040000;
export const CLIENT_PLUGIN_AUTH = 0x00080000;
export const CLIENT_CONNECT_ATTRS = 0x00100000;
export const CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 0x00200000;
export const CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS = 0x00400000;
export const CLIENT_SESSION_TRACK = 0x00800000;
export const CLIENT_DEPRECATE_EOF = 0x01000000;
export const CLIENT_OPTIONAL_RESULTSET_METADATA = 0x02000000;
export const CLIENT_ZSTD_COMPRESSION_ALGORITHM = 0x04000000;
export const CLIENT_QUERY_ATTRIBUTES = 0x08000000;
export const MULTI_FACTOR_AUTHENTICATION = 0x10000000;
export const CLIENT_CAPABILITY_EXTENSION = 0x20000000;
export const CLIENT_SSL_VERIFY_SERVER_CERT = 0x40000000;
export const CLIENT_REMEMBER_OPTIONS = 0x80000000;

/**
 * MariaDB's extended capabilities: the 4 bytes a MariaDB greeting (and the client's answer)
 * carry in the reserved filler when CLIENT_MYSQL is clear, MariaDB's `1ULL << 32` and up.
 * MARIADB_CLIENT_PROGRESS (1ULL << 32): the client takes progress-report packets. It replaced
 * CLIENT_PROGRESS (1 << 29, now CLIENT_PROGRESS_OBSOLETE) in MariaDB 10.2.
 */
export const MARIADB_CLIENT_PROGRESS = 0x00000001;

/**
 * Capabilities a relaying proxy must never let client and server negotiate with each other:
 * they change the framing (compression, which the proxy terminates on each leg itself and
 * offers on its own terms) or the layout of packets the proxy reads or writes itself.
 */
export const RELAY_MASKED_CAPABILITIES =
  CLIENT_COMPRESS | CLIENT_ZSTD_COMPRESSION_ALGORITHM | CLIENT_QUERY_ATTRIBUTES | CLIENT_OPTIONAL_RESULTSET_METADATA;

/** Server status flags (SERVER_STATUS_* / SERVER_*). */
export const SERVER_STATUS_IN_TRANS = 0x0001;
export const SERVER_STATUS_AUTOCOMMIT = 0x0002;
export const SERVER_MORE_RESULTS_EXISTS = 0x0008;
export const SERVER_QUERY_NO_GOOD_INDEX_USED = 0x0010;
export const SERVER_QUERY_NO_INDEX_USED = 0x0020;
export const SERVER_STATUS_CURSOR_EXISTS = 0x0040;
export const SERVER_STATUS_LAST_ROW_SENT = 0x0080;
export const SERVER_STATUS_DB_DROPPED = 0x0100;
export const SERVER_STATUS_NO_BACKSLASH_ESCAPES = 0x0200;
export const SERVER_STATUS_METADATA_CHANGED = 0x0400;
export const SERVER_QUERY_WAS_SLOW = 0x0800;
export const SERVER_PS_OUT_PARAMS = 0x1000;
export const SERVER_STATUS_IN_TRANS_READONLY = 0x2000;
export const SERVER_SESSION_STATE_CHANGED = 0x4000;

/** Command bytes (enum_server_command). */
export const COM_SLEEP = 0x00;
export const COM_QUIT = 0x01;
export const COM_INIT_DB = 0x02;
export const COM_QUERY = 0x03;
export const COM_FIELD_LIST = 0x04;
export const COM_CREATE_DB = 0x05;
export const COM_DROP_DB = 0x06;
export const COM_REFRESH = 0x07;
export const COM_SHUTDOWN = 0x08;
export const COM_STATISTICS = 0x09;
export const COM_PROCESS_INFO = 0x0a;
export const COM_CONNECT = 0x0b;
export const COM_PROCESS_KILL = 0x0c;
export const COM_DEBUG = 0x0d;
export const COM_PING = 0x0e;
export const COM_TIME = 0x0f;
export const COM_DELAYED_INSERT = 0x10;
export const COM_CHANGE_USER = 0x11;
export const COM_BINLOG_DUMP = 0x12;
export const COM_TABLE_DUMP = 0x13;
export const COM_CONNECT_OUT = 0x14;
export const COM_REGISTER_SLAVE = 0x15;
export const COM_STMT_PREPARE = 0x16;
export const COM_STMT_EXECUTE = 0x17;
export const COM_STMT_SEND_LONG_DATA = 0x18;
export const COM_STMT_CLOSE = 0x19;
export const COM_STMT_RESET = 0x1a;
export const COM_SET_OPTION = 0x1b;
export const COM_STMT_FETCH = 0x1c;
export const COM_DAEMON = 0x1d;
export const COM_BINLOG_DUMP_GTID = 0x1e;
export const COM_RESET_CONNECTION = 0x1f;

/** Column types (enum_field_types). */
export const MYSQL_TYPE_DECIMAL = 0x00;
export const MYSQL_TYPE_TINY = 0x01;
export const MYSQL_TYPE_SHORT = 0x02;
export const MYSQL_TYPE_LONG = 0x03;
export const MYSQL_TYPE_FLOAT = 0x04;
export const MYSQL_TYPE_DOUBLE = 0x05;
export const MYSQL_TYPE_NULL = 0x06;
export const MYSQL_TYPE_TIMESTAMP = 0x07;
export const MYSQL_TYPE_LONGLONG = 0x08;
export const MYSQL_TYPE_INT24 = 0x09;
export const MYSQL_TYPE_DATE = 0x0a;
export const MYSQL_TYPE_TIME = 0x0b;
export const MYSQL_TYPE_DATETIME = 0x0c;
export const MYSQL_TYPE_YEAR = 0x0d;
export const MYSQL_TYPE_VARCHAR = 0x0f;
export const MYSQL_TYPE_BIT = 0x10;
export const MYSQL_TYPE_JSON = 0xf5;
export const MYSQL_TYPE_NEWDECIMAL = 0xf6;
export const MYSQL_TYPE_BLOB = 0xfc;
export const MYSQL_TYPE_VAR_STRING = 0xfd;
export const MYSQL_TYPE_STRING = 0xfe;

/** Column definition flags. */
export const NOT_NULL_FLAG = 0x0001;
export const PRI_KEY_FLAG = 0x0002;
export const BLOB_FLAG = 0x0010;
export const UNSIGNED_FLAG = 0x0020;
export const BINARY_FLAG = 0x0080;

/** Character set ids used in column definitions and greetings. */
export const CHARSET_UTF8_GENERAL_CI = 33;
export const CHARSET_BINARY = 63;
export const CHARSET_UTF8MB4_GENERAL_CI = 45;

/** Largest payload of one physical packet; a payload this long continues in the next packet. */
export const MAX_PACKET_PAYLOAD = 0xffffff;

/** First payload bytes that identify generic response packets. */
export const OK_HEADER = 0x00;
export const EOF_HEADER = 0xfe;
export const ERR_HEADER = 0xff;
export const LOCAL_INFILE_HEADER = 0xfb;
export const AUTH_SWITCH_REQUEST_HEADER = 0xfe;
export const AUTH_MORE_DATA_HEADER = 0x01;

/** Error numbers the proxy emits itself (include/mysqld_ername.h). */
export const ER_CON_COUNT_ERROR = 1040;
export const ER_HANDSHAKE_ERROR = 1043;
export const ER_NET_PACKETS_OUT_OF_ORDER = 1156;
export const ER_DBACCESS_DENIED_ERROR = 1044;
export const ER_ACCESS_DENIED_ERROR = 1045;
export const ER_UNKNOWN_COM_ERROR = 1047;
export const ER_BAD_DB_ERROR = 1049;
export const ER_NET_PACKET_TOO_LARGE = 1153;
export const ER_NET_READ_ERROR = 1158;
export const ER_SERVER_SHUTDOWN = 1053;
export const ER_PARSE_ERROR = 1064;
export const ER_KILL_DENIED_ERROR = 1095;
export const ER_UNKNOWN_ERROR = 1105;
export const ER_WRONG_ARGUMENTS = 1210;
export const ER_NOT_SUPPORTED_YET = 1235;
export const ER_UNKNOWN_STMT_HANDLER = 1243;
export const ER_NOT_SUPPORTED_AUTH_MODE = 1251;
export const ER_UNSUPPORTED_PS = 1295;
export const ER_SP_DOES_NOT_EXIST = 1305;
export const ER_QUERY_INTERRUPTED = 1317;
export const ER_PS_MANY_PARAM = 1390;
export const ER_STMT_HAS_NO_OPEN_CURSOR = 1421;
export const ER_SECURE_TRANSPORT_REQUIRED = 3159;
