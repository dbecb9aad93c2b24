//! A file's text as the readers take it: whole, from memory (the browser holds the bytes), or as
//! a stream the caller supplies (the command line reads a big file without holding it).
//!
//! The crate does no IO itself: a [`Text::Stream`] is any [`std::io::BufRead`] the caller
//! built (a buffered file on the command line; a `&[u8]` is one too). Readers go through the
//! three operations below, so both kinds give the same records and the same errors:
//!
//! ```text
//! strip_bom        drop a UTF-8 byte-order mark at the start
//! first_non_space  the first character str::trim_start keeps, without consuming it
//! for_each_line    every line as str::lines splits ("\n" or "\r\n"; the last may lack it)
//! ```
//! and JSON is read through `serde_json`'s string reader for [`Text::Whole`] and its IO reader
//! for [`Text::Stream`]: the same parser and messages, except that the IO reader places an
//! error found after peeking at the next byte (a number out of range followed by `,`, a value
//! of the wrong type) one column later. The command line, which streams, reports a file that
//! fails with the whole text's message (it reads that file again, whole).
//!
//! A stream that is not UTF-8 makes a line an error ("not UTF-8 text: …", with the byte index
//! in the stream as `std::str::from_utf8` gives it for the whole file); the JSON reader reports
//! its own error there. A caller that wants the whole-file message first checks the bytes as
//! they pass (the command line does).

use std::io::{self, BufRead, Read};

use crate::error::InputError;

/// `std::str::from_utf8` with the same error (valid prefix, length of the bad sequence, message),
/// checked with SIMD where the target has it (a dropped file is checked whole in the browser).
pub fn from_utf8(bytes: &[u8]) -> Result<&str, simdutf8::compat::Utf8Error> {
    simdutf8::compat::from_utf8(bytes)
}

/// The lines of `text` exactly as [`str::lines`] gives them (split after each `\n`, a `\r`
/// before it dropped; the last line may lack it), the breaks found with `memchr`. The browser's
/// wasm has SIMD for `memchr` and not for core's search, which goes 4 bytes at a time there:
/// 15 → 5 ms for a 97 MB file (measured in V8, 2026-11-28).
pub fn lines(text: &str) -> Lines<'_> {
    Lines { rest: text }
}

/// The iterator of [`lines`].
pub struct Lines<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        let (line, rest) = match memchr::memchr(b'\n', self.rest.as_bytes()) {
            Some(at) => {
                let line = &self.rest[..at];
                (
                    line.strip_suffix('\r').unwrap_or(line),
                    &self.rest[at + 1..],
                )
            }
            None => (self.rest, ""),
        };
        self.rest = rest;
        Some(line)
    }
}

/// A file's text: whole in memory, or a stream read once from start to end.
pub enum Text<'a> {
    Whole(&'a str),
    Stream(Box<dyn BufRead + 'a>),
}

impl<'a> From<&'a str> for Text<'a> {
    fn from(text: &'a str) -> Self {
        Text::Whole(text)
    }
}

impl<'a> From<&&'a str> for Text<'a> {
    fn from(text: &&'a str) -> Self {
        Text::Whole(text)
    }
}

impl<'a> From<&'a String> for Text<'a> {
    fn from(text: &'a String) -> Self {
        Text::Whole(text)
    }
}

impl std::fmt::Debug for Text<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Text::Whole(text) => write!(f, "Text::Whole({} bytes)", text.len()),
            Text::Stream(_) => f.write_str("Text::Stream"),
        }
    }
}

/// The message of a read error in a stream.
pub(crate) fn read_error(file: &str, e: &io::Error) -> InputError {
    InputError::whole_file(file, format!("could not read the file: {e}"))
}

impl<'a> Text<'a> {
    /// The report's record of this text when it is whole (a stream's hash is its reader's to
    /// compute: `None`).
    pub(crate) fn input_file(&self, name: &str) -> Option<crate::report::InputFile> {
        match self {
            Text::Whole(text) => Some(crate::report::InputFile::from_bytes(name, text.as_bytes())),
            Text::Stream(_) => None,
        }
    }

    /// A stream over `reader`.
    pub fn stream(reader: impl BufRead + 'a) -> Self {
        Text::Stream(Box::new(reader))
    }

    /// The text without a UTF-8 byte-order mark at its start.
    pub(crate) fn strip_bom(self) -> io::Result<Self> {
        match self {
            Text::Whole(text) => Ok(Text::Whole(text.strip_prefix('\u{feff}').unwrap_or(text))),
            Text::Stream(mut reader) => {
                let mut head = Vec::with_capacity(3);
                while head.len() < 3 {
                    let buf = reader.fill_buf()?;
                    if buf.is_empty() {
                        break;
                    }
                    let n = buf.len().min(3 - head.len());
                    head.extend_from_slice(&buf[..n]);
                    reader.consume(n);
                    if !b"\xEF\xBB\xBF".starts_with(&head) {
                        break;
                    }
                }
                if head == b"\xEF\xBB\xBF" {
                    Ok(Text::Stream(reader))
                } else {
                    Ok(Text::Stream(Box::new(io::Cursor::new(head).chain(reader))))
                }
            }
        }
    }

    /// The first character that `str::trim_start` keeps (`None` for blank text), consuming
    /// nothing. Bytes that are not UTF-8 before it read as U+FFFD.
    pub(crate) fn first_non_space(&mut self) -> io::Result<Option<char>> {
        let reader = match self {
            Text::Whole(text) => return Ok(text.trim_start().chars().next()),
            Text::Stream(reader) => reader,
        };
        let mut head = Vec::new();
        let first = loop {
            let buf = reader.fill_buf()?;
            if buf.is_empty() {
                break match std::str::from_utf8(&head) {
                    Ok(text) => text.trim_start().chars().next(),
                    Err(_) => Some(char::REPLACEMENT_CHARACTER),
                };
            }
            let n = buf.len();
            head.extend_from_slice(buf);
            reader.consume(n);
            let (valid, rest) = match std::str::from_utf8(&head) {
                Ok(text) => (text, None),
                Err(e) => (
                    // Checked just now: the prefix up to `valid_up_to` is UTF-8.
                    std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
                    Some(e),
                ),
            };
            if let Some(c) = valid.trim_start().chars().next() {
                break Some(c);
            }
            if rest.is_some_and(|e| e.error_len().is_some()) {
                break Some(char::REPLACEMENT_CHARACTER);
            }
        };
        let rest = std::mem::replace(reader, Box::new(io::empty()));
        *reader = Box::new(io::Cursor::new(head).chain(rest));
        Ok(first)
    }

    /// Call `each(line_number, line)` (1-based) for every line, as `str::lines` splits the
    /// text; stops at the first error `each` returns.
    pub(crate) fn for_each_line(
        self,
        file: &str,
        mut each: impl FnMut(usize, &str) -> Result<(), InputError>,
    ) -> Result<(), InputError> {
        let mut reader = match self {
            Text::Whole(text) => {
                for (index, line) in lines(text).enumerate() {
                    each(index + 1, line)?;
                }
                return Ok(());
            }
            Text::Stream(reader) => reader,
        };
        let mut buf = Vec::new();
        let (mut number, mut offset) = (0, 0usize);
        loop {
            buf.clear();
            let n = reader
                .read_until(b'\n', &mut buf)
                .map_err(|e| read_error(file, &e))?;
            if n == 0 {
                return Ok(());
            }
            number += 1;
            let mut line = &buf[..];
            if let Some(l) = line.strip_suffix(b"\n") {
                line = l.strip_suffix(b"\r").unwrap_or(l);
            }
            let text = from_utf8(line).map_err(|e| {
                let at = offset + e.valid_up_to();
                let what = match e.error_len() {
                    Some(len) => format!("invalid utf-8 sequence of {len} bytes from index {at}"),
                    None => format!("incomplete utf-8 byte sequence from index {at}"),
                };
                InputError::at_line(file, number, format!("not UTF-8 text: {what}"))
            })?;
            each(number, text)?;
            offset += n;
        }
    }

    /// Deserialize the whole text as one JSON value of type `T` (trailing whitespace only).
    pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(self) -> serde_json::Result<T> {
        match self {
            Text::Whole(text) => serde_json::from_str(text),
            Text::Stream(reader) => serde_json::from_reader(reader),
        }
    }

    /// The text's bytes as a reader (for formats read as bytes).
    pub fn into_reader(self) -> Box<dyn BufRead + 'a> {
        match self {
            Text::Whole(text) => Box::new(text.as_bytes()),
            Text::Stream(reader) => reader,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(text: Text) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        text.for_each_line("f", |n, l| {
            out.push((n, l.to_string()));
            Ok(())
        })
        .unwrap();
        out
    }

    /// A stream that hands out one byte per read, so every boundary is crossed.
    fn trickle(bytes: &[u8]) -> Text<'_> {
        Text::stream(io::BufReader::with_capacity(1, bytes))
    }

    #[test]
    fn streamed_lines_split_as_str_lines() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\r\n",
            "a\r",
            "a\rb\n",
            "\r\n\r\n",
            "a\n\nb",
            "x\r\r\n",
            "é\n漢\r\n",
        ] {
            let whole = lines_of(Text::Whole(text));
            assert_eq!(lines_of(trickle(text.as_bytes())), whole, "{text:?}");
            assert_eq!(lines_of(Text::stream(text.as_bytes())), whole, "{text:?}");
        }
    }

    proptest::proptest! {
        /// `lines` is `str::lines` on any text of line breaks, carriage returns and characters
        /// of one to three bytes (the whole input class: where a break falls, `\r` before or
        /// apart from it, the last line with or without one).
        #[test]
        fn lines_split_as_str_lines(text in "[a\r\n é漢]{0,40}") {
            proptest::prop_assert_eq!(lines(&text).collect::<Vec<_>>(), text.lines().collect::<Vec<_>>());
        }
    }

    #[test]
    fn streamed_lines_report_invalid_utf8_as_from_utf8_does() {
        let bytes = &b"ok\nab\xffc\n".to_vec();
        let e = trickle(bytes)
            .for_each_line("f", |_, _| Ok(()))
            .unwrap_err();
        let whole = std::str::from_utf8(bytes).unwrap_err();
        assert_eq!(
            e,
            InputError::at_line("f", 2, format!("not UTF-8 text: {whole}"))
        );
        let bytes = &b"ok\n\xe6\xbc".to_vec();
        let e = trickle(bytes)
            .for_each_line("f", |_, _| Ok(()))
            .unwrap_err();
        let whole = std::str::from_utf8(bytes).unwrap_err();
        assert_eq!(
            e,
            InputError::at_line("f", 2, format!("not UTF-8 text: {whole}"))
        );
    }

    #[test]
    fn a_streamed_json_value_fails_as_the_whole_text_does() {
        let message = |r: serde_json::Result<Vec<f64>>| r.unwrap_err().to_string();
        for text in ["[1e999", "1e999", "[1, 2] x", "[1,\n 2,", "[1 2]"] {
            let whole = message(Text::Whole(text).parse_json());
            assert_eq!(
                message(trickle(text.as_bytes()).parse_json()),
                whole,
                "{text:?}"
            );
        }
        // The known difference: an error found after peeking at the next byte.
        let text = "[1e999, 2]";
        assert_eq!(
            message(Text::Whole(text).parse_json()),
            "number out of range at line 1 column 6"
        );
        assert_eq!(
            message(trickle(text.as_bytes()).parse_json()),
            "number out of range at line 1 column 7"
        );
    }

    #[test]
    fn bom_and_first_character_of_a_stream_leave_the_rest_unread() {
        for text in [
            "\u{feff} \n [1]",
            "[1]",
            "\u{feff}",
            "",
            "\u{feff}\u{3000}{",
            "\u{fe}x",
        ] {
            let whole = Text::Whole(text).strip_bom().unwrap();
            let mut whole = whole;
            let expected = whole.first_non_space().unwrap();
            let Text::Whole(rest) = whole else {
                unreachable!()
            };
            let mut streamed = trickle(text.as_bytes()).strip_bom().unwrap();
            assert_eq!(streamed.first_non_space().unwrap(), expected, "{text:?}");
            let Text::Stream(mut reader) = streamed else {
                unreachable!()
            };
            let mut left = String::new();
            reader.read_to_string(&mut left).unwrap();
            assert_eq!(left, rest, "{text:?}");
        }
    }
}
