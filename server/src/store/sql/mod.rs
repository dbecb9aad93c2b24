//! The leaderboard store's SQL, written once for SQLite and PostgreSQL.
//!
//! Every operation of [`super::Store`] is one function in these modules, generic over a [`Conn`]: a
//! connection (inside the operation's transaction when it writes) that runs a statement with
//! [`Param`]s and gives back [`Row`]s. The backends ([`super::sqlite`], [`super::postgres`])
//! only open transactions, bind values and read cells. The SQL is written with `$1`-style
//! placeholders; the SQLite connection renames them `?1`. What differs between the two
//! databases is in [`Dialect`]:
//!
//! ```text
//! row locks      PostgreSQL: SELECT … FOR UPDATE on the board row orders concurrent writers
//!                of several servers; SQLite: the transaction is the lock (one writer,
//!                BEGIN IMMEDIATE)
//! queue claims   PostgreSQL: FOR UPDATE SKIP LOCKED, so workers of several servers claim
//!                different jobs; SQLite: the writer lock
//! booleans       PostgreSQL BOOLEAN, SQLite INTEGER 0/1 (Row::bool reads both)
//! schema         each backend's migrations (BIGSERIAL / INTEGER PRIMARY KEY, BYTEA / BLOB)
//! ```

pub(crate) mod boards;
pub(crate) mod conn;
pub(crate) mod entries;
pub(crate) mod files;
pub(crate) mod hooks;
pub(crate) mod keys;
pub(crate) mod queue;
pub(crate) mod shares;
