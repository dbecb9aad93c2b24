//! Reading the files `scorebench score` is given, the [`workbench::cli::Host`] of every
//! benchmark's command: big inputs as streams ([`open`] → [`Opened::read`]) that metrics-core
//! parses record by record, so a file is never held whole (`scripts/bench-memory.sh`); small
//! side files (a taxonomy, judge replies) [`load`]ed. Every failure is a [`ScoreError`] naming
//! the file.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use metrics_core::{InputError, InputFile, Text};
use sha2::{Digest, Sha256};
use workbench::cli::{Host, Parse, Stream};
pub use workbench::cli::{Loaded as LoadedFile, Opened, ScoreError};

/// The file system, a clock and stderr: where `scorebench score` runs a benchmark's command.
pub struct Disk {
    started: std::time::Instant,
}

impl Disk {
    pub fn new() -> Self {
        Self {
            started: std::time::Instant::now(),
        }
    }
}

impl Default for Disk {
    fn default() -> Self {
        Self::new()
    }
}

impl Host for Disk {
    fn open(&self, path: &Path) -> Result<Opened, ScoreError> {
        open(path)
    }

    fn load(&self, path: &Path) -> Result<LoadedFile, ScoreError> {
        load(path)
    }

    fn millis(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1e3
    }

    fn note(&self, line: &str) {
        eprintln!("{line}");
    }
}

pub use metrics_core::MAX_FILE_BYTES;

/// Read a file of at most [`MAX_FILE_BYTES`]. The limit is on the bytes read, not on the size
/// the file system reports: a FIFO, `/dev/zero` or a file that grows while it is read reports
/// a size of 0 and must not be read forever.
pub fn load(path: &Path) -> Result<LoadedFile, ScoreError> {
    load_with_limit(path, MAX_FILE_BYTES)
}

/// [`load`] with another limit (tests use a small one).
pub fn load_with_limit(path: &Path, max_bytes: u64) -> Result<LoadedFile, ScoreError> {
    use std::io::Read;
    let io = |message: String| ScoreError::Io {
        path: path.to_path_buf(),
        message,
    };
    let too_big = || {
        io(format!(
            "file is larger than the limit of {max_bytes} bytes"
        ))
    };
    let (file, meta) = open_checked(path, max_bytes)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| io(describe_io(&e)))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_big());
    }
    Ok(LoadedFile {
        name: path.display().to_string(),
        bytes,
    })
}

/// A file opened to be read once as a stream ([`Text::Stream`]): [`open`] checks what the
/// file system says (exists, not a directory, not over the limit), [`Opened::read`]
/// parses it while its bytes are counted against the limit, hashed and checked for UTF-8.
/// Memory holds the parser's records and a 64 KiB buffer, never the file.
struct OpenedFile {
    name: String,
    tap: Rc<RefCell<Tap>>,
}

/// The bytes of an [`OpenedFile`] on their way to the parser.
struct Tap {
    path: PathBuf,
    file: std::fs::File,
    max_bytes: u64,
    read_bytes: u64,
    /// `None` once the hash is not needed (the parse failed).
    hasher: Option<Sha256>,
    /// `None` for a file read as bytes (not text).
    utf8: Option<Utf8Check>,
    /// A regular file (it can be read a second time; a FIFO cannot).
    regular: bool,
    /// A read error or the limit: reading stops; it wins over everything else.
    fatal: Option<ScoreError>,
}

impl Tap {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::io::Read;
        if self.fatal.is_some() {
            return Err(std::io::Error::other("the file could not be read"));
        }
        // One byte past the limit tells a file over it.
        let left = self.max_bytes.saturating_add(1) - self.read_bytes;
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = loop {
            match self.file.read(&mut buf[..want]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.fatal = Some(self.io(describe_io(&e)));
                    return Err(e);
                }
            }
        };
        self.read_bytes += n as u64;
        if self.read_bytes > self.max_bytes {
            let message = format!("file is larger than the limit of {} bytes", self.max_bytes);
            self.fatal = Some(self.io(message.clone()));
            return Err(std::io::Error::other(message));
        }
        let bytes = &buf[..n];
        if let Some(hasher) = &mut self.hasher {
            hasher.update(bytes);
        }
        if let Some(check) = &mut self.utf8 {
            check.feed(bytes);
        }
        Ok(n)
    }

    fn io(&self, message: String) -> ScoreError {
        ScoreError::Io {
            path: self.path.clone(),
            message,
        }
    }
}

/// `std::str::from_utf8` over a stream: the first error, as the whole file would give it.
#[derive(Default)]
struct Utf8Check {
    /// Bytes of a sequence cut by a chunk's end.
    carry: Vec<u8>,
    /// Index in the file of the first byte not yet checked (`carry` starts there).
    offset: u64,
    error: Option<String>,
}

impl Utf8Check {
    /// Check the next chunk; an empty chunk is the end of the file.
    fn feed(&mut self, bytes: &[u8]) {
        if self.error.is_some() {
            return;
        }
        if bytes.is_empty() {
            if !self.carry.is_empty() {
                self.error = Some(format!(
                    "incomplete utf-8 byte sequence from index {}",
                    self.offset
                ));
            }
            return;
        }
        let joined;
        let chunk = if self.carry.is_empty() {
            bytes
        } else {
            joined = [self.carry.as_slice(), bytes].concat();
            joined.as_slice()
        };
        match std::str::from_utf8(chunk) {
            Ok(_) => {
                self.offset += chunk.len() as u64;
                self.carry.clear();
            }
            Err(e) => {
                let at = self.offset + e.valid_up_to() as u64;
                match e.error_len() {
                    Some(len) => {
                        self.error = Some(format!(
                            "invalid utf-8 sequence of {len} bytes from index {at}"
                        ));
                    }
                    None => {
                        self.carry = chunk[e.valid_up_to()..].to_vec();
                        self.offset = at;
                    }
                }
            }
        }
    }
}

/// What the parser reads of an [`OpenedFile`].
struct TapReader(Rc<RefCell<Tap>>);

impl std::io::Read for TapReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().read(buf)
    }
}

impl Stream for OpenedFile {
    fn path(&self) -> PathBuf {
        self.tap.borrow().path.clone()
    }

    fn is_regular(&self) -> bool {
        self.tap.borrow().regular
    }

    /// Reading the whole file first, then checking it is UTF-8, then parsing would give: a
    /// read error or the limit wins, then invalid UTF-8 (the message of `std::str::from_utf8`
    /// over the whole file), then the parser's error.
    ///
    /// A regular text file that fails to parse is parsed again whole, and that error is
    /// reported: serde_json's IO reader places a few errors one column later than its string
    /// reader (`metrics_core::text`), and a message must not depend on how the file was read.
    fn read(
        self: Box<Self>,
        text: bool,
        parse: &mut Parse<'_>,
    ) -> Result<Result<InputFile, InputError>, ScoreError> {
        if !text {
            return self.parse(parse);
        }
        self.tap.borrow_mut().utf8 = Some(Utf8Check::default());
        let (path, max_bytes, regular) = {
            let tap = self.tap.borrow();
            (tap.path.clone(), tap.max_bytes, tap.regular)
        };
        match self.parse(parse)? {
            Err(streamed) if regular => {
                let whole = load_with_limit(&path, max_bytes)?;
                match parse(&whole.name, Text::Whole(whole.text()?)) {
                    Err(e) => Ok(Err(e)),
                    Ok(()) => Ok(Err(streamed)),
                }
            }
            parsed => Ok(parsed),
        }
    }
}

impl OpenedFile {
    /// The outer error is the file's (read, limit, UTF-8), the inner the parser's.
    fn parse(&self, parse: &mut Parse<'_>) -> Result<Result<InputFile, InputError>, ScoreError> {
        let reader = std::io::BufReader::with_capacity(64 << 10, TapReader(self.tap.clone()));
        let parsed = parse(&self.name, Text::stream(reader));
        let mut tap = self.tap.borrow_mut();
        if parsed.is_err() {
            tap.hasher = None;
        }
        // Whatever the parser left unread still counts (the limit, UTF-8, the hash).
        let mut buf = vec![0; 64 << 10];
        while let Ok(n) = tap.read(&mut buf) {
            if n == 0 {
                break;
            }
        }
        if let Some(e) = tap.fatal.take() {
            return Err(e);
        }
        if let Some(e) = tap.utf8.as_mut().and_then(|c| c.error.take()) {
            return Err(ScoreError::Input(InputError::whole_file(
                &self.name,
                format!("not UTF-8 text: {e}"),
            )));
        }
        let sha256 = tap
            .hasher
            .take()
            .map(|h| hex::encode(h.finalize()))
            .unwrap_or_default();
        Ok(parsed.map(|()| InputFile {
            path: self.name.clone(),
            sha256,
        }))
    }
}

/// Open a file for [`Opened::read`]: it must exist, be no directory and (as far as the
/// file system knows) be within [`MAX_FILE_BYTES`].
pub fn open(path: &Path) -> Result<Opened, ScoreError> {
    open_with_limit(path, MAX_FILE_BYTES)
}

/// The file at `path` opened, with what the file system says of it: an error when it is
/// missing, a directory, or (by its reported size) over `max_bytes`. Callers still count the
/// bytes they read (a FIFO or a character device reports no size).
fn open_checked(
    path: &Path,
    max_bytes: u64,
) -> Result<(std::fs::File, std::fs::Metadata), ScoreError> {
    let io = |message: String| ScoreError::Io {
        path: path.to_path_buf(),
        message,
    };
    let meta = std::fs::metadata(path).map_err(|e| io(describe_io(&e)))?;
    if meta.is_dir() {
        return Err(io("is a directory, expected a file".into()));
    }
    if meta.len() > max_bytes {
        return Err(io(format!(
            "file is {} bytes, the limit is {max_bytes} bytes",
            meta.len()
        )));
    }
    let file = std::fs::File::open(path).map_err(|e| io(describe_io(&e)))?;
    Ok((file, meta))
}

/// [`open`] with another limit (tests use a small one).
pub fn open_with_limit(path: &Path, max_bytes: u64) -> Result<Opened, ScoreError> {
    let (file, meta) = open_checked(path, max_bytes)?;
    let name = path.display().to_string();
    Ok(Opened::new(
        name.clone(),
        Box::new(OpenedFile {
            name,
            tap: Rc::new(RefCell::new(Tap {
                path: path.to_path_buf(),
                file,
                max_bytes,
                read_bytes: 0,
                hasher: Some(Sha256::new()),
                utf8: None,
                regular: meta.is_file(),
                fatal: None,
            })),
        }),
    ))
}

fn describe_io(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}
