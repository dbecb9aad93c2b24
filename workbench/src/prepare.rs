//! Parsing a file while it is read. The browser worker reads a dropped file in slices; between
//! two slices (while the browser reads the next) it hands the complete lines read so far to the
//! reader of the file's benchmark, when it has one ([`Benchmark::prepare`]), so the records are
//! parsed when the last slice comes instead of after it.
//!
//! ```text
//! start    name + first slice → detection → the benchmark's reader (or none)
//! advance  bytes not given yet → their complete lines (UTF-8 checked piece by piece)
//! finish   the records        → WorkFile::with_prepared, taken by the benchmark's score
//! ```
//! Only a reader that read the whole file without an error gives records: on any error (not
//! UTF-8, a bad record) it gives up, and scoring reads the whole text as always, with the
//! whole text's message. Pieces end at line breaks, which are never inside a UTF-8 sequence, so
//! the pieces are UTF-8 exactly when the file is.
//!
//! [`Benchmark::prepare`]: crate::benchmark::Benchmark::prepare

use crate::benchmark::Prepare;
use crate::detect::DETECT_HEAD_BYTES;
use crate::registry::detect;
use crate::session::Prepared;

/// A file being parsed as it is read.
pub struct Preparing {
    reader: Box<dyn Prepare>,
    /// Bytes at the start of the unread ones searched for a line break so far (a long line is
    /// not searched again each slice).
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
            searched: 0,
        })
    }

    /// Give the reader the complete lines at the start of `unread` (the bytes read and not
    /// given yet, all of them when `last`); with how many bytes it took (the caller gives the
    /// rest again, with what follows, next time). `None` when it gave up.
    pub fn advance(mut self, unread: &[u8], last: bool) -> Option<(Self, usize)> {
        let end = match last {
            true => unread.len(),
            false => {
                let from = self.searched.min(unread.len());
                self.searched = unread.len();
                match unread[from..].iter().rposition(|&b| b == b'\n') {
                    Some(at) => from + at + 1,
                    None => return Some((self, 0)),
                }
            }
        };
        let piece = metrics_core::text::from_utf8(&unread[..end]).ok()?;
        self.reader.push(piece).ok()?;
        // What is left is the start of a line: searched already.
        self.searched = unread.len() - end;
        Some((self, end))
    }

    /// The records, once the whole file was given.
    pub fn finish(self) -> Option<Prepared> {
        self.reader.finish().ok()
    }
}

/// The entries to read of a big archive `name` whose first bytes are `head`, given the names in
/// its directory: those its detected benchmark's scoring reads; `None` to read it whole.
pub fn archive_entries(name: &str, head: &[u8], names: &[&str]) -> Option<Vec<String>> {
    let role = detect(name, &head[..head.len().min(DETECT_HEAD_BYTES)]).role;
    role.benchmark()?.archive_entries(names)
}

/// Whether the file `name` may be an archive read in part: its name alone is recognised as a
/// file of a benchmark that reads archives in part (an Inspect `.eval`). The browser then reads
/// its directory first ([`archive_entries`]); other files cost nothing more.
pub fn may_read_in_part(name: &str) -> bool {
    detect(name, b"")
        .role
        .benchmark()
        .is_some_and(|b| b.reads_archives_in_part())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::score_files;
    use crate::session::{ScoreOptions, WorkFile};
    use metrics_core::InputFile;

    /// Scored from records parsed in slices of every size, a file gives the report it gives
    /// parsed whole; a file that fails gives up and fails as it does whole.
    #[test]
    fn slices_give_the_whole_files_report() {
        let good: String = (0..2_000)
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
                let (mut read, mut given) = (0, 0);
                while read < bytes.len() {
                    read = (read + slice).min(bytes.len());
                    preparing = preparing
                        .and_then(|p| p.advance(&bytes[given..read], read == bytes.len()))
                        .map(|(p, took)| {
                            given += took;
                            p
                        });
                }
                let prepared = preparing.and_then(Preparing::finish);
                assert_eq!(prepared.is_some(), prepares, "slice {slice}");
                // Scored before its bytes came (the browser's big files): records only.
                if let Some(prepared) = prepared.clone() {
                    let later =
                        WorkFile::read_later("p.jsonl", head.to_vec(), bytes.len(), prepared);
                    assert!(head.len() < bytes.len(), "a file past its head");
                    assert!(later.text().is_err(), "no text before the bytes came");
                    let scored = score_files(&[later], &ScoreOptions::default());
                    let hashed_later = format!("{whole:?}")
                        .replace(&InputFile::from_bytes("p.jsonl", &bytes).sha256, "");
                    assert_eq!(
                        format!("{scored:?}"),
                        hashed_later,
                        "slice {slice}, read later"
                    );
                }
                let file = WorkFile::new("p.jsonl", bytes.clone()).with_prepared(prepared);
                let sliced = score_files(&[file], &ScoreOptions::default());
                assert_eq!(format!("{sliced:?}"), format!("{whole:?}"), "slice {slice}");
            }
        }
        // A file of no benchmark with a reader: none.
        assert!(Preparing::start("a.csv", b"gold,pred\n1,2\n").is_none());
    }
}
