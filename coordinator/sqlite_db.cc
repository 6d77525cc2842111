#include "coordinator/sqlite_db.h"

#include <sqlite3.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace mmapzero::coordinator {
namespace {

// SQLite's busy handler: another connection (a backup tool, an operator's
// sqlite3 shell) may hold the write lock for a moment.
constexpr int kBusyTimeoutMs = 5000;

}  // namespace

Statement::Statement(const SqliteDb* db, sqlite3_stmt* statement,
                     std::string sql)
    : db_(db), statement_(statement), sql_(std::move(sql)) {}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_),
      statement_(std::exchange(other.statement_, nullptr)),
      sql_(std::move(other.sql_)),
      bind_error_(other.bind_error_) {}

Statement::~Statement() { sqlite3_finalize(statement_); }

Statement& Statement::Bind(int index, int64_t value) {
  const int rc = sqlite3_bind_int64(statement_, index, value);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Statement& Statement::Bind(int index, double value) {
  const int rc = sqlite3_bind_double(statement_, index, value);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Statement& Statement::Bind(int index, absl::string_view text) {
  const int rc =
      sqlite3_bind_text64(statement_, index, text.data(), text.size(),
                          SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Statement& Statement::BindBlob(int index, absl::string_view bytes) {
  // A zero-length blob must still be a blob, not NULL: pass a non-null
  // pointer.
  static const char kEmpty = 0;
  const int rc = sqlite3_bind_blob64(statement_, index,
                                     bytes.empty() ? &kEmpty : bytes.data(),
                                     bytes.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  if (bind_error_ != 0) {
    return db_->Error(absl::StrCat("binding a parameter of '", sql_, "' (code ",
                                   bind_error_, ")"));
  }
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return Error("running");
}

absl::Status Statement::Run() {
  const absl::StatusOr<bool> row = Step();
  if (!row.ok()) return row.status();
  if (*row) return Error("expected no rows from");
  return absl::OkStatus();
}

Statement& Statement::Reset() {
  sqlite3_reset(statement_);  // its code repeats the last step's, seen then
  sqlite3_clear_bindings(statement_);
  bind_error_ = 0;
  return *this;
}

int64_t Statement::ColumnInt(int column) const {
  return sqlite3_column_int64(statement_, column);
}

double Statement::ColumnDouble(int column) const {
  return sqlite3_column_double(statement_, column);
}

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(statement_, column);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text),
                     sqlite3_column_bytes(statement_, column));
}

std::string Statement::ColumnBlob(int column) const {
  const void* blob = sqlite3_column_blob(statement_, column);
  if (blob == nullptr) return "";
  return std::string(static_cast<const char*>(blob),
                     sqlite3_column_bytes(statement_, column));
}

absl::Status Statement::Error(absl::string_view what) const {
  return db_->Error(absl::StrCat(what, " '", sql_, "'"));
}

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::Open(
    const std::string& path) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    const std::string message =
        db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot open the database: ", message));
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  return std::unique_ptr<SqliteDb>(new SqliteDb(db, path));
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

absl::Status SqliteDb::Exec(absl::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) ==
      SQLITE_OK) {
    return absl::OkStatus();
  }
  const std::string reason = message != nullptr ? message : "unknown error";
  sqlite3_free(message);
  return absl::InternalError(
      absl::StrCat(path_, ": running '", sql, "': ", reason));
}

absl::StatusOr<Statement> SqliteDb::Prepare(absl::string_view sql) const {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()),
                         &statement, nullptr) != SQLITE_OK) {
    return Error(absl::StrCat("preparing '", sql, "'"));
  }
  return Statement(this, statement, std::string(sql));
}

int64_t SqliteDb::LastInsertRowId() const {
  return sqlite3_last_insert_rowid(db_);
}

int64_t SqliteDb::Changes() const { return sqlite3_changes64(db_); }

absl::Status SqliteDb::InTransaction(absl::FunctionRef<absl::Status()> body) {
  if (sqlite3_get_autocommit(db_) == 0) return body();  // joins the outer one
  if (absl::Status begin = Exec("BEGIN IMMEDIATE"); !begin.ok()) return begin;
  absl::Status status = body();
  if (status.ok()) status = Exec("COMMIT");
  if (!status.ok()) Exec("ROLLBACK").IgnoreError();
  return status;
}

absl::Status SqliteDb::Error(absl::string_view what) const {
  const int code = sqlite3_extended_errcode(db_);
  const std::string message = absl::StrCat(
      path_, ": ", what, ": ", sqlite3_errmsg(db_), " (", code, ")");
  if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED) {
    return absl::UnavailableError(message);
  }
  return absl::InternalError(message);
}

}  // namespace mmapzero::coordinator
