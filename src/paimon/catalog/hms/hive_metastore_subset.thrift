// The part of Hive's metastore Thrift IDL (apache/hive,
// standalone-metastore/metastore-common/src/main/thrift/hive_metastore.thrift) that the proxy's
// Hive catalog calls, written down for Hive 4.0.0. Names, field ids and types are Hive's; fields
// and methods the proxy does not use are left out (Thrift skips fields it does not know, and
// names methods on the wire, so a subset talks to a full server). Every struct's field ids and
// every method's exception ids were checked against the 4.0.0 server's own generated classes
// (hive-standalone-metastore-common-4.0.0.jar: <Struct>._Fields, ThriftHiveMetastore$<method>_result).
// Generated code: gen/ (see generate.sh).

namespace java org.apache.hadoop.hive.metastore.api

enum LockLevel {
    DB = 1,
    TABLE = 2,
    PARTITION = 3,
}

enum LockState {
    ACQUIRED = 1,
    WAITING = 2,
    ABORT = 3,
    NOT_ACQUIRED = 4,
}

enum LockType {
    SHARED_READ = 1,
    SHARED_WRITE = 2,
    EXCLUSIVE = 3,
    EXCL_WRITE = 4,
}

enum DataOperationType {
    SELECT = 1,
    INSERT = 2,
    UPDATE = 3,
    DELETE = 4,
    UNSET = 5,
    NO_TXN = 6,
}

struct Database {
  1: string name,
  2: string description,
  3: string locationUri,
  4: map<string, string> parameters,
}

struct StorageDescriptor {
  2: string location,
  3: string inputFormat,
  4: string outputFormat,
}

struct Table {
  1: string tableName,
  2: string dbName,
  4: i32    createTime,
  7: StorageDescriptor sd,
  9: map<string, string> parameters,
  12: string tableType,
}

struct GetTableRequest {
  1: required string dbName,
  2: required string tblName,
  4: optional string catName,
}

struct GetTableResult {
  1: required Table table,
}

struct GetTablesRequest {
  1: required string dbName,
  2: optional list<string> tblNames,
  4: optional string catName,
}

struct GetTablesResult {
  1: required list<Table> tables,
}

struct LockComponent {
    1: required LockType type,
    2: required LockLevel level,
    3: required string dbname,
    4: optional string tablename,
    5: optional string partitionname,
    6: optional DataOperationType operationType,
}

struct LockRequest {
    1: required list<LockComponent> component,
    2: optional i64 txnid,
    3: required string user,
    4: required string hostname,
    5: optional string agentInfo = "Unknown",
}

struct LockResponse {
    1: required i64 lockid,
    2: required LockState state,
    3: optional string errorMessage,
}

struct CheckLockRequest {
    1: required i64 lockid,
    2: optional i64 txnid,
    3: optional i64 elapsed_ms,
}

struct UnlockRequest {
    1: required i64 lockid,
}

exception MetaException { 1: string message }
exception NoSuchObjectException { 1: string message }
exception InvalidOperationException { 1: string message }
exception UnknownDBException { 1: string message }
exception NoSuchTxnException { 1: string message }
exception TxnAbortedException { 1: string message }
exception NoSuchLockException { 1: string message }
exception TxnOpenException { 1: string message }

service ThriftHiveMetastore {
  list<string> get_all_databases() throws (1: MetaException o1)
  Database get_database(1: string name) throws (1: NoSuchObjectException o1, 2: MetaException o2)
  list<string> get_all_tables(1: string db_name) throws (1: MetaException o1)
  GetTableResult get_table_req(1: GetTableRequest req) throws (1: MetaException o1, 2: NoSuchObjectException o2)
  GetTablesResult get_table_objects_by_name_req(1: GetTablesRequest req)
    throws (1: MetaException o1, 2: InvalidOperationException o2, 3: UnknownDBException o3)
  LockResponse lock(1: LockRequest rqst) throws (1: NoSuchTxnException o1, 2: TxnAbortedException o2)
  LockResponse check_lock(1: CheckLockRequest rqst)
    throws (1: NoSuchTxnException o1, 2: TxnAbortedException o2, 3: NoSuchLockException o3)
  void unlock(1: UnlockRequest rqst) throws (1: NoSuchLockException o1, 2: TxnOpenException o2)
}
