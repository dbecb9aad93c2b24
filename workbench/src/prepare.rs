//! Parsing a file while it is read. The browser worker reads a dropped file in slices; between
//! two slices (while the browser reads the next) it hands the complete lines read so far to the
//! reader of the file's benchmark, when it has one ([`Benchmark::prepare`]), so the records are
//! parsed when the last slice comes instead of after it.
//!
//! ```text
//! start    name + first slice → detection → the benchmark's reader (or none)
//! advance  bytes read so far  → the lines not yet given (UTF-8 checked piece by piece)
//! finish   the records        → WorkFile::with_prepared, taken by the benchmark's score
//! ```
//! Only a reader that read the whole file without an error gives records: on any error (not
//! UTF-8, a bad record) it gives up, and scoring reads the whole text as always, with the
//! whole text's message. Pieces end at line breaks, which are never inside a UTF-8 sequence, so
//! the pieces are UTF-8 exactly when the file is.
//!
//! [`Benchmark::prepare`]: crate::registry::Benchmark::prepare

use crate::detect::{DETECT_HEAD_BYTES, detect};
use crate::registry::Prepare;
use crate::session::Prepared;

/// A file being parsed as it is read.
pub struct Preparing {
    reader: Box<dyn Prepare>,
    /// Bytes given to the reader so far.
    given: usize,
    /// Bytes searched for a line break so far (a long line is not searched again each slice).
    searched: usize,
}

impl Preparing {
    /// The reader for the file `name` whose first bytes are `head` (at least the detection
    /// head, or the whole file), when its detected benchmark has one.
    pub fn start(name: &str, head: &[u8]) -> Option<Self> {
        let role = detect(name, &head[..head.len().min(DETECT_HEAD_BYTES)]).role;
        let text = match metrics_core::text::from_utf8(head) {
            Ok(text) => text,
            Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
        };
        let reader = role.benchmark()?.prepare(name, role, text)?;
        Some(Self {
            reader,
            given: 0,
            searched: 0,
        })
    }

    /// Give the reader the lines of `read` (the file's bytes read so far, `last` when that is
    /// all of them) it has not had; `None` when it gave up.
    pub fn advance(mut self, read: &[u8], last: bool) -> Option<Self> {
        let end = match last {
            true => read.len(),
            false => {
                let from = self.searched.max(self.given);
                self.searched = read.len();
                match read[from..].iter().rposition(|&b| b == b'\n') {
                    Some(at) => from + at + 1,
                    None => return Some(self),
                }
            }
        };
        let piece = metrics_core::text::from_utf8(&read[self.given..end]).ok()?;
        self.reader.push(piece).ok()?;
        self.given = end;
        Some(self)
    }

    /// The records, once the whole file was given.
    pub fn finish(self) -> Option<Prepared> {
        self.reader.finish().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{ScoreOptions, WorkFile, score_files};

    /// Scored from records parsed in slices of every size, a file gives the report it gives
    /// parsed whole; a file that fails gives up and fails as it does whole.
    #[test]
    fn slices_give_the_whole_files_report() {
        let good: String = (0..200)
            .map(|i| {
                format!(
                    "{{\"id\": \"r{i}\", \"gold\": {}, \"pred\": {}, \"t\": \"这是\"}}\r\n",
                    i % 5,
                    (i * 7) % 5
                )
            })
            .collect();
        let bad = format!("{good}{{\"gold\": 1, \"pred\": \"x\"}}\n");
        let not_utf8 = [
            good.as_bytes(),
            b"{\"gold\": 1, \"pred\": 1, \"t\": \"\xff\"}\n",
        ]
        .concat();
        for (bytes, prepares) in [
            (good.into_bytes(), true),
            (bad.into_bytes(), false),
            (not_utf8, false),
        ] {
            let whole = score_files(
                &[WorkFile::new("p.jsonl", bytes.clone())],
                &ScoreOptions::default(),
            );
            for slice in [1, 7, 100, 4096, bytes.len()] {
                let head = &bytes[..DETECT_HEAD_BYTES.min(bytes.len())];
                let mut preparing = Preparing::start("p.jsonl", head);
                let mut read = 0;
                while read < bytes.len() {
                    read = (read + slice).min(bytes.len());
                    preparing =
                        preparing.and_then(|p| p.advance(&bytes[..read], read == bytes.len()));
                }
                let prepared = preparing.and_then(Preparing::finish);
                assert_eq!(prepared.is_some(), prepares, "slice {slice}");
                let file = WorkFile::new("p.jsonl", bytes.clone()).with_prepared(prepared);
                let sliced = score_files(&[file], &ScoreOptions::default());
                assert_eq!(format!("{sliced:?}"), format!("{whole:?}"), "slice {slice}");
            }
        }
        // A file of no benchmark with a reader: none.
        assert!(Preparing::start("a.csv", b"gold,pred\n1,2\n").is_none());
    }
}
