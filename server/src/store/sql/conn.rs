//! What every operation runs on: a [`Conn`] that takes statements with [`Param`]s and gives
//! [`Row`]s of [`Cell`]s, the [`Dialect`] differences, and the small statements operations
//! share (blobs, audit rows, file references, the board lock).

use crate::store::{AuditRow, Blob, FileRef, StoreError, json_text, sorted_blobs};

/// The database a [`Conn`] talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    /// A statement locking the board row `$1` until commit, where rows can be locked.
    pub(crate) fn lock_board(self) -> Option<&'static str> {
        match self {
            Dialect::Postgres => Some("SELECT 1 FROM lb_board WHERE slug = $1 FOR UPDATE"),
            Dialect::Sqlite => None,
        }
    }

    /// A statement locking the file row `$1` until commit, where rows can be locked: a
    /// collector takes it before checking the file is free, so the check (its own statement,
    /// a fresh snapshot) sees a writer's hold committed while the collector waited. (In one
    /// statement, PostgreSQL's READ COMMITTED would re-check the locked row but not the
    /// subqueries on other tables.)
    pub(crate) fn lock_blob(self) -> Option<&'static str> {
        match self {
            Dialect::Postgres => Some("SELECT 1 FROM lb_blob WHERE sha256 = $1 FOR UPDATE"),
            Dialect::Sqlite => None,
        }
    }

    /// What a queue claim's row selection ends with.
    pub(crate) fn skip_locked(self) -> &'static str {
        match self {
            Dialect::Postgres => " FOR UPDATE SKIP LOCKED",
            Dialect::Sqlite => "",
        }
    }
}

/// A value bound to a statement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Param<'a> {
    Null,
    Int(i64),
    Bool(bool),
    Text(&'a str),
    Bytes(&'a [u8]),
}

impl From<i64> for Param<'_> {
    fn from(v: i64) -> Self {
        Param::Int(v)
    }
}

impl From<bool> for Param<'_> {
    fn from(v: bool) -> Self {
        Param::Bool(v)
    }
}

impl<'a> From<&'a str> for Param<'a> {
    fn from(v: &'a str) -> Self {
        Param::Text(v)
    }
}

impl<'a> From<&'a String> for Param<'a> {
    fn from(v: &'a String) -> Self {
        Param::Text(v)
    }
}

impl<'a> From<&'a [u8]> for Param<'a> {
    fn from(v: &'a [u8]) -> Self {
        Param::Bytes(v)
    }
}

impl<'a> From<&'a Vec<u8>> for Param<'a> {
    fn from(v: &'a Vec<u8>) -> Self {
        Param::Bytes(v)
    }
}

impl<'a> From<&'a Option<String>> for Param<'a> {
    fn from(v: &'a Option<String>) -> Self {
        v.as_deref().map_or(Param::Null, Param::Text)
    }
}

impl<'a> From<Option<&'a str>> for Param<'a> {
    fn from(v: Option<&'a str>) -> Self {
        v.map_or(Param::Null, Param::Text)
    }
}

impl From<Option<i64>> for Param<'_> {
    fn from(v: Option<i64>) -> Self {
        v.map_or(Param::Null, Param::Int)
    }
}

impl From<crate::store::Status> for Param<'_> {
    fn from(v: crate::store::Status) -> Self {
        Param::Text(v.as_str())
    }
}

impl From<crate::store::State> for Param<'_> {
    fn from(v: crate::store::State) -> Self {
        Param::Text(v.as_str())
    }
}

/// `&[Param]` of the values, each through `Param::from`.
macro_rules! params {
    ($($v:expr),* $(,)?) => { &[$(Param::from($v)),*] };
}
pub(crate) use params;

/// A value read from a row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell {
    Null,
    Int(i64),
    Bool(bool),
    Text(String),
    Bytes(Vec<u8>),
}

/// One result row; each getter takes its cell out (a row is read once).
#[derive(Debug)]
pub(crate) struct Row(pub Vec<Cell>);

impl Row {
    fn take(&mut self, i: usize) -> Result<Cell, StoreError> {
        self.0
            .get_mut(i)
            .map(|c| std::mem::replace(c, Cell::Null))
            .ok_or_else(|| StoreError::Backend(format!("no column {i} in the row")))
    }

    fn wrong(i: usize, want: &str, got: &Cell) -> StoreError {
        StoreError::Backend(format!("column {i}: expected {want}, read {got:?}"))
    }

    pub fn opt_int(&mut self, i: usize) -> Result<Option<i64>, StoreError> {
        match self.take(i)? {
            Cell::Null => Ok(None),
            Cell::Int(v) => Ok(Some(v)),
            other => Err(Self::wrong(i, "an integer", &other)),
        }
    }

    pub fn int(&mut self, i: usize) -> Result<i64, StoreError> {
        self.opt_int(i)?
            .ok_or_else(|| Self::wrong(i, "an integer", &Cell::Null))
    }

    /// A boolean: PostgreSQL's BOOLEAN or SQLite's 0/1.
    pub fn bool(&mut self, i: usize) -> Result<bool, StoreError> {
        match self.take(i)? {
            Cell::Bool(v) => Ok(v),
            Cell::Int(v) => Ok(v != 0),
            other => Err(Self::wrong(i, "a boolean", &other)),
        }
    }

    pub fn opt_text(&mut self, i: usize) -> Result<Option<String>, StoreError> {
        match self.take(i)? {
            Cell::Null => Ok(None),
            Cell::Text(v) => Ok(Some(v)),
            other => Err(Self::wrong(i, "text", &other)),
        }
    }

    pub fn text(&mut self, i: usize) -> Result<String, StoreError> {
        self.opt_text(i)?
            .ok_or_else(|| Self::wrong(i, "text", &Cell::Null))
    }

    /// A [`crate::store::Status`] by its stored name.
    pub fn status(&mut self, i: usize) -> Result<crate::store::Status, StoreError> {
        let name = self.text(i)?;
        crate::store::Status::parse(&name)
            .ok_or_else(|| StoreError::Backend(format!("column {i}: no entry status `{name}`")))
    }

    /// A [`crate::store::State`] by its stored name.
    pub fn state(&mut self, i: usize) -> Result<crate::store::State, StoreError> {
        let name = self.text(i)?;
        crate::store::State::parse(&name)
            .ok_or_else(|| StoreError::Backend(format!("column {i}: no entry state `{name}`")))
    }

    pub fn bytes(&mut self, i: usize) -> Result<Vec<u8>, StoreError> {
        match self.take(i)? {
            Cell::Bytes(v) => Ok(v),
            other => Err(Self::wrong(i, "bytes", &other)),
        }
    }
}

/// A connection the operations run their statements on.
pub(crate) trait Conn {
    fn dialect(&self) -> Dialect;
    /// Run a statement; the rows it changed.
    async fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, StoreError>;
    /// Run a query; its rows.
    async fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, StoreError>;
}

pub(crate) async fn query_opt<C: Conn>(
    c: &mut C,
    sql: &str,
    params: &[Param<'_>],
) -> Result<Option<Row>, StoreError> {
    Ok(c.query(sql, params).await?.into_iter().next())
}

pub(crate) async fn query_one<C: Conn>(
    c: &mut C,
    sql: &str,
    params: &[Param<'_>],
) -> Result<Row, StoreError> {
    query_opt(c, sql, params)
        .await?
        .ok_or_else(|| StoreError::Backend("a query that returns one row returned none".into()))
}

pub(crate) async fn lock_board<C: Conn>(c: &mut C, slug: &str) -> Result<(), StoreError> {
    if let Some(sql) = c.dialect().lock_board() {
        c.execute(sql, params![slug]).await?;
    }
    Ok(())
}

/// Check the files a write refers to are still there to refer to: the writer held them
/// ([`super::files::hold_blobs`]), so their rows exist and no collector marked them — unless the
/// hold expired before this commit and a collector took the file, which fails the write
/// instead of committing a reference to deleted bytes. (PostgreSQL: the rows are locked
/// against a collector's mark until the commit.)
pub(crate) async fn put_blobs<C: Conn>(c: &mut C, blobs: Vec<Blob>) -> Result<(), StoreError> {
    let lock = match c.dialect() {
        Dialect::Postgres => " FOR SHARE",
        Dialect::Sqlite => "",
    };
    for b in sorted_blobs(blobs) {
        let row = query_opt(
            c,
            &format!("SELECT sweep_ms FROM lb_blob WHERE sha256 = $1{lock}"),
            params![&b.sha256],
        )
        .await?;
        let free = match row {
            Some(mut r) => r.opt_int(0)?.is_none(),
            None => false,
        };
        if !free {
            return Err(StoreError::Backend(format!(
                "file {} was collected before the write that refers to it committed (its \
                 hold expired): send it again",
                b.sha256
            )));
        }
    }
    Ok(())
}

pub(crate) async fn put_audit<C: Conn>(
    c: &mut C,
    slug: &str,
    audit: &AuditRow,
) -> Result<(), StoreError> {
    let detail = json_text(&audit.detail);
    c.execute(
        "INSERT INTO lb_audit (slug, at_ms, actor, action, entry_id, detail_json)
         VALUES ($1, $2, $3, $4, $5, $6)",
        params![
            slug,
            audit.at_ms,
            &audit.actor,
            &audit.action,
            audit.entry,
            &detail
        ],
    )
    .await?;
    Ok(())
}

/// `(owner id, file)` of a row `id, name, role, sha256, size_bytes`.
pub(crate) fn file_ref(mut r: Row) -> Result<(i64, FileRef), StoreError> {
    Ok((
        r.int(0)?,
        FileRef {
            name: r.text(1)?,
            role: r.text(2)?,
            sha256: r.text(3)?,
            size_bytes: r.int(4)? as u64,
        },
    ))
}
