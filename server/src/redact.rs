//! Keys out of upstream replies: an upstream (or something between it and us) may echo the
//! `Authorization` header it received into its reply. Every upstream body passes through a
//! [`Redactor`] before it is stored, logged or sent on.
//!
//! - Error bodies ([`Redactor::error_text`]): every configured key and any `Bearer <token>`
//!   become `***`.
//! - Successful bodies ([`Redactor::reply`], [`Redactor::stream`]): configured keys of at least
//!   [`MIN_SECRET_BYTES`] bytes become `***`. `Bearer …` is left alone there (a model may
//!   legitimately write it), and so are placeholder keys such as `EMPTY` (replacing them would
//!   change model output).
//!
//! Keys are found in the text as a JSON reader decodes it, ignoring ASCII case: a reply that
//! writes a key as `\u0073\u006b-…` escapes, or in another case, is masked like a plain one
//! (the escaped bytes are replaced as a whole).
//!
//! **Invariant:** no text that decodes (JSON string escapes) to a configured key (of at least
//! [`MIN_SECRET_BYTES`]), in any ASCII case, leaves [`Redactor::reply`] or
//! [`Redactor::stream`], even when it is split across chunks.

use std::collections::VecDeque;

use bytes::{Bytes, BytesMut};
use futures_util::{Stream, StreamExt};
use memchr::memmem;

/// What a redacted secret is replaced with.
pub const MASK: &str = "***";

/// Keys shorter than this are placeholders, not secrets, in successful replies.
pub const MIN_SECRET_BYTES: usize = 8;

/// The configured keys, split once: the secrets (at least [`MIN_SECRET_BYTES`]) lower-cased for
/// the decoded, case-blind search, and the short placeholders matched only as written.
#[derive(Clone, Default)]
pub struct Redactor {
    secrets: Vec<Vec<u8>>,
    placeholders: Vec<Vec<u8>>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Redactor {{ {} key(s) }}",
            self.secrets.len() + self.placeholders.len()
        )
    }
}

/// The text as a JSON reader would decode it, one unit per decoded character: its byte (ASCII
/// lower-cased; `0xFF` for an escaped non-ASCII character; other raw bytes as they are) and the
/// raw byte range it came from. `incomplete` is set to the raw start of a trailing escape the
/// bytes so far do not finish (a stream's next chunk may), when it is reached.
struct Units<'a> {
    raw: &'a [u8],
    at: usize,
    incomplete: Option<usize>,
}

fn units(raw: &[u8]) -> Units<'_> {
    Units {
        raw,
        at: 0,
        incomplete: None,
    }
}

fn hex4(raw: &[u8]) -> Option<u32> {
    if !raw.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(raw).ok()?, 16).ok()
}

impl Iterator for Units<'_> {
    type Item = (u8, usize, usize);

    fn next(&mut self) -> Option<(u8, usize, usize)> {
        let (raw, i) = (self.raw, self.at);
        let b = *raw.get(i)?;
        if b == b'\\' {
            let simple = match raw.get(i + 1) {
                Some(b'"') => Some(b'"'),
                Some(b'\\') => Some(b'\\'),
                Some(b'/') => Some(b'/'),
                Some(b'b') => Some(8),
                Some(b'f') => Some(12),
                Some(b'n') => Some(b'\n'),
                Some(b'r') => Some(b'\r'),
                Some(b't') => Some(b'\t'),
                _ => None,
            };
            if let Some(c) = simple {
                self.at = i + 2;
                return Some((c, i, i + 2));
            }
            if raw.get(i + 1) == Some(&b'u') {
                if let Some(code) = raw.get(i + 2..i + 6).and_then(hex4) {
                    let c = u8::try_from(code)
                        .ok()
                        .filter(u8::is_ascii)
                        .map_or(0xFF, |c| c.to_ascii_lowercase());
                    self.at = i + 6;
                    return Some((c, i, i + 6));
                }
                if raw.len() < i + 6 && raw[i + 2..].iter().all(u8::is_ascii_hexdigit) {
                    self.incomplete = Some(i);
                }
            } else if i + 1 == raw.len() {
                self.incomplete = Some(i);
            }
        }
        self.at = i + 1;
        Some((b.to_ascii_lowercase(), i, i + 1))
    }
}

/// The decoded bytes of `raw` (one copy of the text, whatever its escapes), and the (raw start,
/// decoded index) of an unfinished trailing escape.
fn decode(raw: &[u8]) -> (Vec<u8>, Option<(usize, usize)>) {
    let mut bytes = Vec::with_capacity(raw.len());
    let mut incomplete = None;
    let mut walk = units(raw);
    while let Some((b, _, _)) = walk.next() {
        if incomplete.is_none()
            && let Some(start) = walk.incomplete
        {
            incomplete = Some((start, bytes.len()));
        }
        bytes.push(b);
    }
    (bytes, incomplete)
}

/// The raw ranges of the decoded characters at `indices` (ascending), in one walk.
fn raw_ranges(raw: &[u8], indices: &[usize]) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(indices.len());
    let mut wanted = indices.iter().peekable();
    for (d, (_, start, end)) in units(raw).enumerate() {
        while wanted.peek() == Some(&&d) {
            out.push((start, end));
            wanted.next();
        }
        if wanted.peek().is_none() {
            break;
        }
    }
    out
}

/// The raw byte ranges where a key occurs in the decoded text, merged, in order.
fn key_ranges(raw: &[u8], decoded: &[u8], keys: &[Vec<u8>]) -> Vec<(usize, usize)> {
    let mut found: Vec<(usize, usize)> = Vec::new();
    for key in keys {
        for at in memmem::find_iter(decoded, key) {
            found.push((at, at + key.len() - 1));
        }
    }
    if found.is_empty() {
        return Vec::new();
    }
    let mut indices: Vec<usize> = found.iter().flat_map(|&(a, b)| [a, b]).collect();
    indices.sort_unstable();
    indices.dedup();
    let ranges_of = raw_ranges(raw, &indices);
    let range = |d: usize| ranges_of[indices.binary_search(&d).unwrap_or(0)];
    let mut ranges: Vec<(usize, usize)> = found
        .into_iter()
        .map(|(first, last)| (range(first).0, range(last).1))
        .collect();
    ranges.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// `bytes` with every key (lower-cased keys; found in the decoded text) replaced by [`MASK`];
/// `None` when none occurs.
fn replace_all(bytes: &[u8], keys: &[Vec<u8>]) -> Option<Vec<u8>> {
    if keys.is_empty() {
        return None;
    }
    let ranges = key_ranges(bytes, &decode(bytes).0, keys);
    if ranges.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    for (start, end) in ranges {
        out.extend_from_slice(&bytes[at..start]);
        out.extend_from_slice(MASK.as_bytes());
        at = end;
    }
    out.extend_from_slice(&bytes[at..]);
    Some(out)
}

/// `bytes` with every occurrence of each key, exactly as written, replaced by [`MASK`].
fn replace_exact(bytes: &[u8], keys: &[Vec<u8>]) -> Option<Vec<u8>> {
    let mut current: Option<Vec<u8>> = None;
    for key in keys {
        let haystack = current.as_deref().unwrap_or(bytes);
        let finder = memmem::Finder::new(key);
        if finder.find(haystack).is_none() {
            continue;
        }
        let mut out = Vec::with_capacity(haystack.len());
        let mut at = 0;
        for start in finder.find_iter(haystack) {
            if start < at {
                continue;
            }
            out.extend_from_slice(&haystack[at..start]);
            out.extend_from_slice(MASK.as_bytes());
            at = start + key.len();
        }
        out.extend_from_slice(&haystack[at..]);
        current = Some(out);
    }
    current
}

/// `Bearer <token>` (any case, any run of spaces or tabs) → `Bearer ***`.
fn mask_bearer(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut search = 0;
    while let Some(found) = lower[search..].find("bearer") {
        let word = search + found;
        let mut token = word + "bearer".len();
        let spaces = text[token..]
            .bytes()
            .take_while(|b| *b == b' ' || *b == b'\t')
            .count();
        token += spaces;
        // The token68 characters of RFC 7235 (and `*`, so a masked token stays masked).
        let len = text[token..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || b"-._~+/=*".contains(b))
            .count();
        if spaces == 0 || len == 0 {
            search = word + "bearer".len();
            continue;
        }
        out.push_str(&text[at..token]);
        out.push_str(MASK);
        at = token + len;
        search = at;
    }
    out.push_str(&text[at..]);
    out
}

impl Redactor {
    pub fn new<'a>(keys: impl IntoIterator<Item = &'a str>) -> Redactor {
        let mut keys: Vec<Vec<u8>> = keys
            .into_iter()
            .filter(|k| !k.is_empty())
            .map(|k| k.as_bytes().to_vec())
            .collect();
        keys.sort_by_key(|k| std::cmp::Reverse(k.len()));
        keys.dedup();
        let (mut secrets, placeholders): (Vec<Vec<u8>>, Vec<Vec<u8>>) =
            keys.into_iter().partition(|k| k.len() >= MIN_SECRET_BYTES);
        for secret in &mut secrets {
            secret.make_ascii_lowercase();
        }
        Redactor {
            secrets,
            placeholders,
        }
    }

    /// A successful reply body with the keys masked (the same `Bytes` when none occurs).
    pub fn reply(&self, bytes: Bytes) -> Bytes {
        match replace_all(&bytes, &self.secrets) {
            Some(masked) => Bytes::from(masked),
            None => bytes,
        }
    }

    /// An error text (upstream body or header value) with every key and bearer token masked.
    pub fn error_text(&self, text: &str) -> String {
        // Secrets through escapes and in any case; short placeholder keys (`EMPTY`) only as
        // written, so the word "empty" in a message stays.
        let text = match replace_all(text.as_bytes(), &self.secrets) {
            Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            None => text.to_string(),
        };
        let unmasked = match replace_exact(text.as_bytes(), &self.placeholders) {
            // Replacing whole UTF-8 sequences by ASCII keeps the text UTF-8.
            Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            None => text.to_string(),
        };
        mask_bearer(&unmasked)
    }

    /// A streamed successful body with the keys masked. Bytes that could be the start of a key
    /// are held back until the next chunk shows they are not (so SSE events, which end in a
    /// newline, are never delayed by a plain key).
    pub fn stream<S, E>(&self, inner: S) -> impl Stream<Item = Result<Bytes, E>> + Send + 'static
    where
        S: Stream<Item = Result<Bytes, E>> + Send + 'static,
        E: Send + 'static,
    {
        struct State<S> {
            inner: std::pin::Pin<Box<S>>,
            keys: Vec<Vec<u8>>,
            pending: BytesMut,
            out: VecDeque<Bytes>,
            done: bool,
        }
        let state = State {
            inner: Box::pin(inner),
            keys: self.secrets.clone(),
            pending: BytesMut::new(),
            out: VecDeque::new(),
            done: false,
        };
        futures_util::stream::unfold(state, |mut st| async move {
            loop {
                if let Some(chunk) = st.out.pop_front() {
                    return Some((Ok(chunk), st));
                }
                if st.done {
                    return None;
                }
                match st.inner.next().await {
                    Some(Ok(chunk)) => {
                        st.pending.extend_from_slice(&chunk);
                        if let Some(masked) = replace_all(&st.pending, &st.keys) {
                            st.pending = BytesMut::from(&masked[..]);
                        }
                        let keep = held_back(&st.pending, &st.keys);
                        let ready = st.pending.split_to(st.pending.len() - keep);
                        if !ready.is_empty() {
                            st.out.push_back(ready.freeze());
                        }
                    }
                    Some(Err(e)) => {
                        st.done = true;
                        return Some((Err(e), st));
                    }
                    None => {
                        st.done = true;
                        if !st.pending.is_empty() {
                            st.out.push_back(st.pending.split().freeze());
                        }
                    }
                }
            }
        })
    }
}

/// How many trailing bytes of `pending` could begin a key: the decoded text's longest suffix
/// that is a proper prefix of a key, or an escape the next chunk finishes.
fn held_back(pending: &[u8], keys: &[Vec<u8>]) -> usize {
    if keys.is_empty() {
        return 0;
    }
    let (decoded, incomplete) = decode(pending);
    let longest = keys.iter().map(Vec::len).max().unwrap_or(0);
    // An unfinished escape may continue the text before it.
    let n = incomplete.map_or(decoded.len(), |(_, index)| index);
    let from = n.saturating_sub(longest.saturating_sub(1));
    let prefix_start = (from..n)
        .find(|&i| {
            let tail = &decoded[i..n];
            keys.iter()
                .any(|k| k.len() > tail.len() && k.starts_with(tail))
        })
        .and_then(|i| raw_ranges(pending, &[i]).first().map(|r| r.0));
    let start = match (prefix_start, incomplete.map(|(raw, _)| raw)) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => match a.or(b) {
            Some(s) => s,
            None => return 0,
        },
    };
    pending.len() - start
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-live-0123456789abcdef";

    #[test]
    fn error_text_masks_keys_and_bearer_tokens() {
        let r = Redactor::new([KEY, "EMPTY"]);
        let text =
            format!("invalid key: Bearer {KEY}; also {KEY} and EMPTY; bearer   other-tok, ok");
        let masked = r.error_text(&text);
        assert_eq!(
            masked,
            "invalid key: Bearer ***; also *** and ***; bearer   ***, ok"
        );
        assert_eq!(r.error_text("a bearer, no token"), "a bearer, no token");
    }

    #[test]
    fn replies_mask_secrets_but_not_placeholders() {
        let r = Redactor::new([KEY, "EMPTY"]);
        let body = Bytes::from(format!("{{\"content\": \"EMPTY {KEY} Bearer x\"}}"));
        assert_eq!(&r.reply(body)[..], b"{\"content\": \"EMPTY *** Bearer x\"}");
        let clean = Bytes::from_static(b"{\"content\": \"fine\"}");
        assert_eq!(r.reply(clean.clone()), clean);
    }

    /// `text` streamed through `r` in two chunks split at `split`, as the client receives it.
    async fn streamed(r: &Redactor, text: &str, split: usize) -> String {
        let chunks = vec![
            Ok::<_, std::io::Error>(Bytes::from(text[..split].to_string())),
            Ok(Bytes::from(text[split..].to_string())),
        ];
        let out: Vec<Bytes> = r
            .stream(futures_util::stream::iter(chunks))
            .map(|c| c.unwrap())
            .collect()
            .await;
        String::from_utf8(out.concat()).unwrap()
    }

    #[tokio::test]
    async fn streams_mask_keys_split_across_chunks_without_delaying_events() {
        let r = Redactor::new([KEY]);
        let text = format!("data: {{\"a\": \"{KEY}\"}}\n\ndata: [DONE]\n\n");
        for split in 0..text.len() {
            assert_eq!(
                streamed(&r, &text, split).await,
                "data: {\"a\": \"***\"}\n\ndata: [DONE]\n\n",
                "split at {split}"
            );
        }
        // A chunk ending in a complete event is passed on at once.
        let event = Bytes::from_static(b"data: {\"a\": \"s\"}\n\n");
        let mut stream = Box::pin(r.stream(futures_util::stream::iter(vec![Ok::<
            _,
            std::io::Error,
        >(
            event.clone()
        )])));
        assert_eq!(stream.next().await.unwrap().unwrap(), event);
    }

    /// `text` with every ASCII character written as a `\u00XX` escape.
    fn escaped(text: &str) -> String {
        text.chars()
            .map(|c| format!("\\u{:04x}", c as u32))
            .collect()
    }

    /// …with upper-case hex digits.
    fn escaped_upper(text: &str) -> String {
        text.chars()
            .map(|c| format!("\\u{:04X}", c as u32))
            .collect()
    }

    #[test]
    fn keys_are_found_through_json_escapes_and_in_any_case() {
        let r = Redactor::new([KEY]);
        let mixed = format!("{}{}", &KEY[..3], escaped_upper(&KEY[3..].to_uppercase()));
        for written in [
            escaped(KEY),
            KEY.to_ascii_lowercase(),
            KEY.to_ascii_uppercase(),
            mixed,
            format!("sk\\u002dlive\\/{}", &KEY[8..]).replace("\\/", "-"),
        ] {
            let body = format!("{{\"content\": \"a {written} b\", \"n\": 1}}");
            let masked = r.reply(Bytes::from(body.clone()));
            assert_eq!(
                &masked[..],
                b"{\"content\": \"a *** b\", \"n\": 1}",
                "{body}"
            );
            let decoded: serde_json::Value = serde_json::from_slice(&masked).unwrap();
            assert_eq!(decoded["content"], "a *** b");
        }
        // An escaped backslash before `u0073…` is text, not an escape: left as it is.
        let text = format!(
            "{{\"c\": \"\\\\{}\"}}",
            escaped(KEY).trim_start_matches('\\')
        );
        assert!(
            r.reply(Bytes::from(text.clone()))
                .starts_with(text.as_bytes())
        );
        // Error texts too.
        assert_eq!(
            r.error_text(&format!("bad {}", KEY.to_uppercase())),
            "bad ***"
        );
    }

    #[tokio::test]
    async fn streams_mask_escaped_keys_split_anywhere() {
        let r = Redactor::new([KEY]);
        let text = format!("data: {{\"a\": \"{}\"}}\n\n", escaped(KEY));
        for split in 0..text.len() {
            assert_eq!(
                streamed(&r, &text, split).await,
                "data: {\"a\": \"***\"}\n\n",
                "split at {split}"
            );
        }
    }

    #[test]
    fn debug_shows_no_key() {
        let debug = format!("{:?}", Redactor::new([KEY]));
        assert!(!debug.contains(KEY), "{debug}");
    }
}
