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

enum PartitionEventType {
    LOAD_DONE = 1,
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

struct FieldSchema {
  1: string name,
  2: string type,
  3: string comment,
}

struct SerDeInfo {
  1: string name,
  2: string serializationLib,
  3: map<string, string> parameters,
  4: optional string description,
  5: optional string serializerClass,
  6: optional string deserializerClass,
  7: optional i32 serdeType,
}

struct Order {
  1: string col,
  2: i32 order,
}

// A partition copies its table's storage descriptor (HiveCatalog.createPartitionsUtil), so every
// field a Paimon table's descriptor carries is read here and sent back; skewedInfo (11) is left
// out: Paimon's tables have none, and it is optional.
struct StorageDescriptor {
  1: list<FieldSchema> cols,
  2: string location,
  3: string inputFormat,
  4: string outputFormat,
  5: bool compressed,
  6: i32 numBuckets,
  7: SerDeInfo serdeInfo,
  8: list<string> bucketCols,
  9: list<Order> sortCols,
  10: map<string, string> parameters,
  12: optional bool storedAsSubDirectories,
}

struct Table {
  1: string tableName,
  2: string dbName,
  4: i32    createTime,
  7: StorageDescriptor sd,
  8: list<FieldSchema> partitionKeys,
  9: map<string, string> parameters,
  12: string tableType,
}

struct Partition {
  1: list<string> values,
  2: string dbName,
  3: string tableName,
  4: i32 createTime,
  5: i32 lastAccessTime,
  6: StorageDescriptor sd,
  7: map<string, string> parameters,
  9: optional string catName,
}

struct AddPartitionsRequest {
  1: required string dbName,
  2: required string tblName,
  3: required list<Partition> parts,
  4: required bool ifNotExists,
  5: optional bool needResult = true,
  6: optional string catName,
}

struct AddPartitionsResult {
  1: optional list<Partition> partitions,
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
exception InvalidObjectException { 1: string message }
exception AlreadyExistsException { 1: string message }
exception UnknownTableException { 1: string message }
exception UnknownPartitionException { 1: string message }
exception InvalidPartitionException { 1: string message }

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
  AddPartitionsResult add_partitions_req(1: AddPartitionsRequest request)
    throws (1: InvalidObjectException o1, 2: AlreadyExistsException o2, 3: MetaException o3)
  bool drop_partition(1: string db_name, 2: string tbl_name, 3: list<string> part_vals, 4: bool deleteData)
    throws (1: NoSuchObjectException o1, 2: MetaException o2)
  list<string> get_partition_names(1: string db_name, 2: string tbl_name, 3: i16 max_parts = -1)
    throws (1: NoSuchObjectException o1, 2: MetaException o2)
  void markPartitionForEvent(1: string db_name, 2: string tbl_name, 3: map<string, string> part_vals, 4: PartitionEventType eventType)
    throws (1: MetaException o1, 2: NoSuchObjectException o2, 3: UnknownDBException o3, 4: UnknownTableException o4,
            5: UnknownPartitionException o5, 6: InvalidPartitionException o6)
  bool isPartitionMarkedForEvent(1: string db_name, 2: string tbl_name, 3: map<string, string> part_vals, 4: PartitionEventType eventType)
    throws (1: MetaException o1, 2: NoSuchObjectException o2, 3: UnknownDBException o3, 4: UnknownTableException o4,
            5: UnknownPartitionException o5, 6: InvalidPartitionException o6)
}
