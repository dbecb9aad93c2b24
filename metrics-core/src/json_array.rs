//! Reading a JSON array one element at a time, so a big file never exists as one
//! `serde_json::Value` tree: each element is parsed into a `Value`, handed to the caller (who
//! keeps a compact typed record) and dropped before the next one is read.
//!
//! The outcome is the one of parsing the whole text first: a syntax error anywhere wins over a
//! bad element, and the first bad element (in file order) wins over later ones. The same parser
//! runs as for `serde_json::from_str::<Value>` / `::<Vec<Value>>`, so its messages (and their
//! line and column) are the same, whether the text is whole in memory or a stream
//! ([`Text`]).

use std::fmt;

use serde::Deserializer as _;
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::text::Text;

/// Why [`for_each`] / [`for_each_in_seq`] stopped.
#[derive(Debug)]
pub(crate) enum ArrayError<E> {
    /// Not valid JSON; for [`for_each_in_seq`] also a top level that is not an array (serde's
    /// "invalid type: …, expected a sequence", as for `Vec<Value>`).
    Json(serde_json::Error),
    /// Valid JSON whose top level is not an array ([`for_each`] only): "null", "a boolean",
    /// "a number", "a string" or "an object".
    NotArray(&'static str),
    /// The first error the callback returned.
    Element(E),
}

/// Parse `text` as JSON (any top level, as `Value` does) and call `each(number, element)` for
/// every element of a top-level array, `number` 1-based.
pub(crate) fn for_each<E>(
    text: Text<'_>,
    each: impl FnMut(usize, Value) -> Result<(), E>,
) -> Result<(), ArrayError<E>> {
    run(text, each, false)
}

/// As [`for_each`], but the top level must be an array (as `Vec<Value>` requires).
pub(crate) fn for_each_in_seq<E>(
    text: Text<'_>,
    each: impl FnMut(usize, Value) -> Result<(), E>,
) -> Result<(), ArrayError<E>> {
    run(text, each, true)
}

/// The first element of the top-level array `text` for which `wanted(number, &element)` holds
/// (`number` 1-based), read one element at a time: a detail view of a gigabyte file does not
/// build its tree. The whole text is still checked, so the errors are those of
/// `serde_json::from_str::<Vec<Value>>`.
pub fn find(
    text: &str,
    mut wanted: impl FnMut(usize, &Value) -> bool,
) -> Result<Option<Value>, serde_json::Error> {
    let mut found = None;
    let read = for_each_in_seq(Text::Whole(text), |number, value| {
        if found.is_none() && wanted(number, &value) {
            found = Some(value);
        }
        Ok::<(), std::convert::Infallible>(())
    });
    match read {
        Ok(()) => Ok(found),
        Err(ArrayError::Json(e)) => Err(e),
        // (for_each_in_seq reports a non-array as `Json`; kept total all the same)
        Err(ArrayError::NotArray(kind)) => Err(serde::de::Error::custom(format!(
            "invalid type: {kind}, expected a sequence"
        ))),
        Err(ArrayError::Element(never)) => match never {},
    }
}

fn run<E, F: FnMut(usize, Value) -> Result<(), E>>(
    text: Text<'_>,
    each: F,
    seq_only: bool,
) -> Result<(), ArrayError<E>> {
    let elements = Elements {
        each,
        first_error: None,
        done: 0,
        synthetic: false,
    };
    let read = match text {
        Text::Whole(text) => run_with(serde_json::Deserializer::from_str(text), elements, seq_only),
        // The browser never streams: its build keeps only the reader (the scanner took 27 KB
        // of the worker's gzip).
        #[cfg(not(target_arch = "wasm32"))]
        Text::Stream(reader) => return stream::run(reader, elements, seq_only),
        #[cfg(target_arch = "wasm32")]
        Text::Stream(reader) => run_with(
            serde_json::Deserializer::from_reader(reader),
            elements,
            seq_only,
        ),
    };
    read.unwrap_or_else(|e| Err(ArrayError::Json(e)))
}

/// The outer error is serde_json's (to be placed by the caller), the inner the rest.
fn run_with<'de, R, E, F>(
    mut de: serde_json::Deserializer<R>,
    mut elements: Elements<F, E>,
    seq_only: bool,
) -> Result<Result<(), ArrayError<E>>, serde_json::Error>
where
    R: serde_json::de::Read<'de>,
    F: FnMut(usize, Value) -> Result<(), E>,
{
    let top = if seq_only {
        de.deserialize_seq(&mut elements)
    } else {
        de.deserialize_any(&mut elements)
    }
    .and_then(|top| de.end().map(|()| top))?;
    if let Some(kind) = top {
        return Ok(Err(ArrayError::NotArray(kind)));
    }
    Ok(match elements.first_error {
        Some(e) => Err(ArrayError::Element(e)),
        None => Ok(()),
    })
}

struct Elements<F, E> {
    each: F,
    first_error: Option<E>,
    /// Elements handed over before this parser started (a stream read on by
    /// [`stream::run`] until something needed the parser's own reading).
    done: usize,
    /// The parser's first element is a stand-in for them, not handed over.
    synthetic: bool,
}

impl<E, F: FnMut(usize, Value) -> Result<(), E>> Elements<F, E> {
    /// Hand element `number` (1-based, of the whole array) over; the first error is kept.
    fn take(&mut self, number: usize, value: Value) {
        if self.first_error.is_none()
            && let Err(e) = (self.each)(number, value)
        {
            self.first_error = Some(e);
        }
    }
}

/// `None` for an array, else the kind of the top-level value.
type Top = Option<&'static str>;

impl<'de, E, F: FnMut(usize, Value) -> Result<(), E>> Visitor<'de> for &mut Elements<F, E> {
    type Value = Top;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        // The words `Vec<Value>` uses, so a non-array reads the same.
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Top, A::Error> {
        let mut number = self.done;
        if self.synthetic {
            seq.next_element::<serde::de::IgnoredAny>()?;
        }
        while let Some(value) = seq.next_element::<Value>()? {
            number += 1;
            self.take(number, value);
        }
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
        // Read (and check) the whole object entry by entry, as `Value` would, keeping nothing.
        while map.next_entry::<String, Value>()?.is_some() {}
        Ok(Some("an object"))
    }

    fn visit_unit<X>(self) -> Result<Top, X> {
        Ok(Some("null"))
    }

    fn visit_bool<X>(self, _: bool) -> Result<Top, X> {
        Ok(Some("a boolean"))
    }

    fn visit_i64<X>(self, _: i64) -> Result<Top, X> {
        Ok(Some("a number"))
    }

    fn visit_u64<X>(self, _: u64) -> Result<Top, X> {
        Ok(Some("a number"))
    }

    fn visit_f64<X>(self, _: f64) -> Result<Top, X> {
        Ok(Some("a number"))
    }

    fn visit_str<X>(self, _: &str) -> Result<Top, X> {
        Ok(Some("a string"))
    }
}

/// The stream path. serde_json's reader takes a byte at a time (~100 MB/s here), its slice
/// parser is several times faster: for the usual array (`[` elements separated by `,` `]`), a
/// scanner finds where each element ends and the element is parsed from its slice. Whatever
/// the scanner does not expect — a top level that is not an array, an element that does not
/// parse, a stray byte — hands the rest of the stream to serde_json's reader, started in the
/// state the array is in at that point: a stand-in for the elements already handed over (`[0`)
/// and the line breaks and spaces that put the next byte at its line and column. So the outcome
/// and every message are those of reading the whole stream with serde_json's reader, while a
/// well-formed file never needs it.
#[cfg(not(target_arch = "wasm32"))]
mod stream {
    use std::io::{self, BufRead, Cursor, Read};

    use serde_json::Value;

    use super::{ArrayError, Elements, run_with};

    /// Bytes read from the stream at a time (a few in the tests: every boundary is crossed).
    #[cfg(not(test))]
    const CHUNK: usize = 1 << 20;
    #[cfg(test)]
    const CHUNK: usize = 7;
    /// The longest element looked for by the scanner: past it (or an unterminated string),
    /// serde_json's reader takes over, so a broken file is not read into memory to its end.
    #[cfg(not(test))]
    const MAX_ELEMENT: usize = 64 << 20;
    #[cfg(test)]
    const MAX_ELEMENT: usize = 40;

    /// Where the scanner stopped.
    enum Stop {
        /// Every element handed over, the array closed, only whitespace after it.
        Done,
        /// Something for serde_json's reader, from the `,` or `]` at this index (after the
        /// last element handed over), or from the first byte (`None`: nothing handed over).
        Resume(Option<usize>),
    }

    /// A line and a column (1-based, in bytes), as serde_json counts them.
    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Position {
        line: usize,
        column: usize,
    }

    impl Position {
        /// The position after `bytes`, read from here.
        fn after(self, bytes: &[u8]) -> Self {
            match memchr::memrchr(b'\n', bytes) {
                Some(last) => Position {
                    line: self.line + memchr::memchr_iter(b'\n', bytes).count(),
                    column: bytes.len() - last,
                },
                None => Position {
                    line: self.line,
                    column: self.column + bytes.len(),
                },
            }
        }
    }

    struct Buffer<'a> {
        reader: Box<dyn BufRead + 'a>,
        bytes: Vec<u8>,
        eof: bool,
        /// A read error, for serde_json's reader to meet where it happened (after the bytes
        /// read before it, which may hold an error of their own that comes first).
        pending: Option<io::Error>,
    }

    /// The read error a stream stopped with, then the end.
    struct Pending(Option<io::Error>);

    impl Read for Pending {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            self.0.take().map_or(Ok(0), Err)
        }
    }

    impl Buffer<'_> {
        /// Read up to [`CHUNK`] more bytes; `false` at the end of the stream or at a read error
        /// (kept in `pending`).
        fn more(&mut self) -> bool {
            if self.eof {
                return false;
            }
            let before = self.bytes.len();
            let read = (&mut self.reader)
                .take(CHUNK as u64)
                .read_to_end(&mut self.bytes);
            let n = self.bytes.len() - before;
            if let Err(e) = read {
                self.pending = Some(e);
                self.eof = true;
                return n > 0;
            }
            self.eof = n == 0;
            n > 0
        }

        /// The index of the first non-whitespace byte at or after `at` (reading on as needed),
        /// `None` at the end of the stream.
        fn skip_whitespace(&mut self, mut at: usize) -> Option<usize> {
            loop {
                while let Some(&b) = self.bytes.get(at) {
                    if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                        return Some(at);
                    }
                    at += 1;
                }
                if !self.more() {
                    return None;
                }
            }
        }

        /// The index of the `,` or `]` that ends the element starting at `start` (reading on
        /// as needed); `None` when the stream ends first or the element is longer than
        /// [`MAX_ELEMENT`]. Only strings and nesting are followed: the element's parse checks
        /// the rest.
        fn element_end(&mut self, start: usize) -> Option<usize> {
            let mut at = start;
            let mut depth = 0usize;
            let mut in_string = false;
            loop {
                if at - start > MAX_ELEMENT {
                    return None;
                }
                while at < self.bytes.len() {
                    if in_string {
                        match memchr::memchr2(b'"', b'\\', &self.bytes[at..]) {
                            None => at = self.bytes.len(),
                            Some(k) if self.bytes[at + k] == b'"' => {
                                in_string = false;
                                at += k + 1;
                            }
                            // A backslash: skip it and the byte it escapes.
                            Some(k) if at + k + 1 < self.bytes.len() => at += k + 2,
                            // …which has not been read yet.
                            Some(k) => {
                                at += k;
                                break;
                            }
                        }
                        continue;
                    }
                    match self.bytes[at] {
                        b'"' => in_string = true,
                        b'[' | b'{' => depth += 1,
                        b']' | b'}' if depth > 0 => depth -= 1,
                        b']' | b',' if depth == 0 => return Some(at),
                        _ => {}
                    }
                    at += 1;
                }
                if !self.more() {
                    return None;
                }
            }
        }
    }

    pub(super) fn run<E, F: FnMut(usize, Value) -> Result<(), E>>(
        reader: Box<dyn BufRead + '_>,
        mut elements: Elements<F, E>,
        seq_only: bool,
    ) -> Result<(), ArrayError<E>> {
        let mut buf = Buffer {
            reader,
            bytes: Vec::new(),
            eof: false,
            pending: None,
        };
        // `mark`: the index of the `,` or `]` after the last element handed over (unset
        // before the first), and its position; bytes before it are not needed again.
        let mut mark: Option<(usize, Position)> = None;
        let stop = (|| -> Stop {
            let resume = |mark: Option<(usize, Position)>| Stop::Resume(mark.map(|(m, _)| m));
            let Some(open) = buf.skip_whitespace(0) else {
                return Stop::Resume(None);
            };
            if buf.bytes[open] != b'[' {
                return Stop::Resume(None);
            }
            let mut at = open + 1;
            // The position of byte `counted.0`.
            let mut counted = (0, Position { line: 1, column: 1 });
            loop {
                let Some(start) = buf.skip_whitespace(at) else {
                    return resume(mark);
                };
                if mark.is_none() && buf.bytes[start] == b']' {
                    // `[]`: the reader checks what follows.
                    return Stop::Resume(None);
                }
                let Some(end) = buf.element_end(start) else {
                    return resume(mark);
                };
                let Ok(value) = serde_json::from_slice::<Value>(&buf.bytes[start..end]) else {
                    return resume(mark);
                };
                elements.done += 1;
                elements.take(elements.done, value);
                let position = counted.1.after(&buf.bytes[counted.0..end]);
                counted = (end, position);
                mark = Some((end, position));
                if buf.bytes[end] == b']' {
                    // The end of the array: nothing but whitespace may follow.
                    return match buf.skip_whitespace(end + 1) {
                        None if buf.pending.is_none() => Stop::Done,
                        _ => resume(mark),
                    };
                }
                at = end + 1;
                // Drop what is behind the mark (all of it is kept until an element is handed
                // over: the reader would start from the first byte).
                if end > 4 * CHUNK {
                    buf.bytes.drain(..end);
                    at -= end;
                    counted.0 = 0;
                    mark = Some((0, position));
                }
            }
        })();
        let resume_at = match stop {
            Stop::Done => {
                return match elements.first_error {
                    Some(e) => Err(ArrayError::Element(e)),
                    None => Ok(()),
                };
            }
            Stop::Resume(at) => at,
        };
        // serde_json's reader on the rest, in the state the array is in at `resume_at`.
        let rest = Cursor::new(std::mem::take(&mut buf.bytes));
        let tail = Pending(buf.pending.take()).chain(buf.reader);
        let read = match (resume_at, mark) {
            (Some(at), Some((m, position))) if at == m => {
                let mut head = rest;
                head.set_position(at as u64);
                elements.synthetic = true;
                let stand_in = Cursor::new(stand_in(position));
                run_with(
                    serde_json::Deserializer::from_reader(stand_in.chain(head).chain(tail)),
                    elements,
                    seq_only,
                )
            }
            // Nothing handed over: the reader reads everything from the first byte.
            _ => run_with(
                serde_json::Deserializer::from_reader(rest.chain(tail)),
                elements,
                seq_only,
            ),
        };
        read.unwrap_or_else(|e| Err(ArrayError::Json(e)))
    }

    /// `[0` and the line breaks and spaces after which the next byte is at `at` (after an
    /// element: column 3 at least on line 1).
    fn stand_in(at: Position) -> Vec<u8> {
        let mut bytes = b"[0".to_vec();
        if at.line == 1 {
            bytes.resize(at.column - 1, b' ');
        } else {
            bytes.resize(2 + at.line - 1, b'\n');
            bytes.resize(2 + at.line - 1 + at.column - 1, b' ');
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect_from(text: Text, seq_only: bool) -> Result<Vec<Value>, ArrayError<String>> {
        let mut out = Vec::new();
        let each = |n: usize, v: Value| {
            if v == "bad" {
                return Err(format!("bad at {n}"));
            }
            out.push(v);
            Ok(())
        };
        run(text, each, seq_only).map(|()| out)
    }

    /// The outcome for the whole text, checked to be the same for the text as a stream.
    fn collect(text: &str, seq_only: bool) -> Result<Vec<Value>, ArrayError<String>> {
        let whole = collect_from(Text::Whole(text), seq_only);
        let streamed = collect_from(
            Text::stream(std::io::BufReader::with_capacity(3, text.as_bytes())),
            seq_only,
        );
        assert_eq!(format!("{whole:?}"), format!("{streamed:?}"), "{text:?}");
        whole
    }

    /// serde_json's reader alone on the stream (what the stream path did before it scanned).
    fn by_the_reader(
        reader: impl std::io::Read,
        seq_only: bool,
    ) -> Result<Vec<Value>, ArrayError<String>> {
        let mut out = Vec::new();
        let elements = Elements {
            each: |n: usize, v: Value| {
                if v == "bad" {
                    return Err(format!("bad at {n}"));
                }
                out.push(v);
                Ok(())
            },
            first_error: None,
            done: 0,
            synthetic: false,
        };
        run_with(
            serde_json::Deserializer::from_reader(reader),
            elements,
            seq_only,
        )
        .unwrap_or_else(|e| Err(ArrayError::Json(e)))
        .map(|()| out)
    }

    /// The scanning stream path gives what serde_json's reader gives — the elements, the first
    /// bad one, every message with its line and column — for well-formed arrays and for every
    /// way of breaking them: each prefix, each byte removed, and a stray byte put in at each
    /// place. Chunks are 7 bytes and elements at most 40 in the tests, so every boundary is
    /// crossed, and the buffer is compacted.
    #[test]
    fn the_scanning_stream_is_the_readers() {
        let seeds = [
            "[1, {\"a\": [2, \"]\"]}, null, \"bad\", true]",
            "[\n  {\"id\": \"x,y\", \"t\": \"a \\\" ] } , \\\\\"},\r\n  [[], {}],\n  -1.5e3, \"bad\"\n]\n",
            "  [ \"\\u00e9\\ud83d\\ude00\", \"é😀\" , 12345678901234567890123 , 1e400, 0.1 ]  ",
            "[\"a long string that is longer than forty bytes, so the scanner gives up on it\", 2]",
            "[]",
            " [ ] ",
            "[{\"k\": {\"k\": {\"k\": [1, [2, [3]]]}}}, {\"x\": \"}\"}, {\"y\": \"{\"}]",
        ];
        let mut texts: Vec<String> = Vec::new();
        for seed in seeds {
            let bytes = seed.as_bytes();
            texts.push(seed.to_string());
            for cut in 0..bytes.len() {
                let mut variants = vec![bytes[..cut].to_vec()];
                let mut removed = bytes.to_vec();
                removed.remove(cut);
                variants.push(removed);
                for stray in [b',', b']', b'"', b'\\', b'x', b'\n', b'}'] {
                    let mut put = bytes.to_vec();
                    put.insert(cut, stray);
                    variants.push(put);
                }
                texts.extend(
                    variants
                        .into_iter()
                        .filter_map(|v| String::from_utf8(v).ok()),
                );
            }
        }
        for text in &texts {
            for seq_only in [false, true] {
                let scanned = collect_from(Text::stream(text.as_bytes()), seq_only);
                let read = by_the_reader(text.as_bytes(), seq_only);
                assert_eq!(
                    format!("{scanned:?}"),
                    format!("{read:?}"),
                    "{text:?} (seq_only {seq_only})"
                );
            }
        }
        assert!(texts.len() > 2000, "{}", texts.len());
        // A read error (the command line's reader stops at invalid UTF-8 or past the size
        // limit) comes where the reader meets it: after any error in the bytes before it.
        for seed in &seeds[..3] {
            for at in 0..seed.len() {
                let failing = || FailAt {
                    data: seed.as_bytes(),
                    at,
                    done: 0,
                };
                let scanned = collect_from(Text::stream(std::io::BufReader::new(failing())), true);
                let read = by_the_reader(failing(), true);
                assert_eq!(
                    format!("{scanned:?}"),
                    format!("{read:?}"),
                    "{seed:?} failing at {at}"
                );
            }
        }
    }

    /// `data`, then a read error at byte `at`.
    struct FailAt<'a> {
        data: &'a [u8],
        at: usize,
        done: usize,
    }

    impl std::io::Read for FailAt<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            if self.done >= self.at {
                return Err(std::io::Error::other("stream broke"));
            }
            let n = out.len().min(self.at - self.done).min(3);
            out[..n].copy_from_slice(&self.data[self.done..self.done + n]);
            self.done += n;
            Ok(n)
        }
    }

    /// `find` gives the element `Vec<Value>` has at that place, and its errors.
    #[test]
    fn find_is_the_whole_arrays_element() {
        let text = "[1, {\"id\": \"a\"}, {\"id\": \"b\", \"x\": [2]}, null]";
        let whole = serde_json::from_str::<Vec<Value>>(text).unwrap();
        for n in 1..=5 {
            assert_eq!(
                find(text, |i, _| i == n).unwrap(),
                whole.get(n - 1).cloned(),
                "{n}"
            );
        }
        let by_id = find(text, |_, v| v.get("id").is_some_and(|id| id == "b")).unwrap();
        assert_eq!(by_id, Some(whole[2].clone()));
        for broken in ["[1, 2", "[1, 2] x", "{\"a\": 1}", "3", "", "[{\"a\" 1}]"] {
            let want = serde_json::from_str::<Vec<Value>>(broken)
                .unwrap_err()
                .to_string();
            let got = find(broken, |_, _| true).unwrap_err().to_string();
            assert_eq!(got, want, "{broken:?}");
        }
    }

    #[test]
    fn same_outcome_as_parsing_the_whole_value() {
        assert_eq!(
            collect("[1, {\"a\": [2]}, null]", false).unwrap(),
            serde_json::from_str::<Vec<Value>>("[1, {\"a\": [2]}, null]").unwrap()
        );
        for text in [
            "[1,",
            "[1, 2] x",
            "[\n1,\n{\"a\" 1}\n]",
            "[1e400]",
            "[1e999",
            "[\"\\ud800\"]",
            "",
            "{\"a\": }",
        ] {
            // The same as a stream, but for an error found after peeking at the next byte
            // (see crate::text).
            let ours = match if text == "[1e400]" {
                collect_from(Text::Whole(text), false)
            } else {
                collect(text, false)
            } {
                Err(ArrayError::Json(e)) => e.to_string(),
                other => panic!("{text:?}: {other:?}"),
            };
            let theirs = serde_json::from_str::<Value>(text).unwrap_err().to_string();
            assert_eq!(ours, theirs, "{text:?}");
        }
        // (A stream places "invalid type" one column later: the command line reports a file
        // that fails with the whole text's message.)
        for text in ["{\"a\": 1}", "3", "\"s\"", "null"] {
            let ours = match collect_from(Text::Whole(text), true) {
                Err(ArrayError::Json(e)) => e.to_string(),
                other => panic!("{text:?}: {other:?}"),
            };
            let theirs = serde_json::from_str::<Vec<Value>>(text)
                .unwrap_err()
                .to_string();
            assert_eq!(ours, theirs, "{text:?}");
        }
    }

    #[test]
    fn kinds_of_non_arrays_and_the_first_bad_element() {
        for (text, kind) in [
            ("{\"a\": [1]}", "an object"),
            ("null", "null"),
            ("true", "a boolean"),
            ("-1", "a number"),
            ("1.5", "a number"),
            ("\"s\"", "a string"),
        ] {
            assert!(
                matches!(collect(text, false), Err(ArrayError::NotArray(k)) if k == kind),
                "{text}"
            );
        }
        assert!(
            matches!(collect("[1, \"bad\", \"bad\"]", false), Err(ArrayError::Element(e)) if e == "bad at 2")
        );
        // A syntax error later in the file wins over a bad element before it.
        assert!(matches!(
            collect("[\"bad\", 1,", false),
            Err(ArrayError::Json(_))
        ));
    }
}
