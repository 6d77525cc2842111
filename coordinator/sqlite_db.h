// A thin RAII layer over the SQLite C API for the coordinator's store: one
// connection, prepared statements with typed binds and columns, and
// transactions that nest (an inner one joins the outer). Every error is an
// absl::Status naming the database file and what was being done.
//
// Thread-safety: none; the owner serialises all calls (JobStore's owner
// holds a mutex).
#ifndef MMAPZERO_COORDINATOR_SQLITE_DB_H_
#define MMAPZERO_COORDINATOR_SQLITE_DB_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct sqlite3;
struct sqlite3_stmt;

namespace mmapzero::coordinator {

class SqliteDb;

// One prepared statement. Bind indices start at 1, columns at 0.
class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  ~Statement();

  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, int32_t value) {
    return Bind(index, static_cast<int64_t>(value));
  }
  Statement& Bind(int index, double value);
  Statement& Bind(int index, absl::string_view text);  // TEXT
  Statement& BindBlob(int index, absl::string_view bytes);

  // True while a row is available; false when done; an error otherwise
  // (including a failed bind).
  absl::StatusOr<bool> Step();
  // Step() expecting no rows (INSERT, UPDATE, DELETE).
  absl::Status Run();
  // Makes the statement ready to run again with new bindings (a query
  // asked for many keys is prepared once).
  Statement& Reset();

  int64_t ColumnInt(int column) const;
  double ColumnDouble(int column) const;
  std::string ColumnText(int column) const;
  std::string ColumnBlob(int column) const;

 private:
  friend class SqliteDb;
  Statement(const SqliteDb* db, sqlite3_stmt* statement, std::string sql);

  absl::Status Error(absl::string_view what) const;

  const SqliteDb* db_;
  sqlite3_stmt* statement_;
  std::string sql_;
  int bind_error_ = 0;  // the first failed bind's SQLite code
};

class SqliteDb {
 public:
  // Opens (creating) the database file at `path`.
  static absl::StatusOr<std::unique_ptr<SqliteDb>> Open(
      const std::string& path);
  ~SqliteDb();

  const std::string& path() const { return path_; }

  // Runs one or more statements without results (schema, PRAGMAs).
  absl::Status Exec(absl::string_view sql);
  absl::StatusOr<Statement> Prepare(absl::string_view sql) const;
  int64_t LastInsertRowId() const;
  int64_t Changes() const;  // rows changed by the last statement

  // Runs `body` in a transaction (BEGIN IMMEDIATE ... COMMIT), rolled back
  // when it returns an error. Inside another transaction it simply runs
  // `body`, which joins the outer one.
  absl::Status InTransaction(absl::FunctionRef<absl::Status()> body);

  // "<path>: <what>: <SQLite's message>".
  absl::Status Error(absl::string_view what) const;

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  sqlite3* db_;
  std::string path_;
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_SQLITE_DB_H_
