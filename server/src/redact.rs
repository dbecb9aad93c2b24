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
//! **Invariant:** no byte sequence equal to a configured key (of at least [`MIN_SECRET_BYTES`])
//! leaves [`Redactor::reply`] or [`Redactor::stream`], even when the key is split across
//! chunks.

use std::collections::VecDeque;

use bytes::{Bytes, BytesMut};
use futures_util::{Stream, StreamExt};
use memchr::memmem;

/// What a redacted secret is replaced with.
pub const MASK: &str = "***";

/// Keys shorter than this are placeholders, not secrets, in successful replies.
pub const MIN_SECRET_BYTES: usize = 8;

/// The configured keys, longest first.
#[derive(Clone, Default)]
pub struct Redactor {
    keys: Vec<Vec<u8>>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redactor {{ {} key(s) }}", self.keys.len())
    }
}

/// Replace every occurrence of each key (longest first) with [`MASK`].
fn replace_all(bytes: &[u8], keys: &[&[u8]]) -> Option<Vec<u8>> {
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
        Redactor { keys }
    }

    fn secrets(&self) -> Vec<&[u8]> {
        self.keys
            .iter()
            .filter(|k| k.len() >= MIN_SECRET_BYTES)
            .map(Vec::as_slice)
            .collect()
    }

    /// A successful reply body with the keys masked (the same `Bytes` when none occurs).
    pub fn reply(&self, bytes: Bytes) -> Bytes {
        match replace_all(&bytes, &self.secrets()) {
            Some(masked) => Bytes::from(masked),
            None => bytes,
        }
    }

    /// An error text (upstream body or header value) with every key and bearer token masked.
    pub fn error_text(&self, text: &str) -> String {
        let keys: Vec<&[u8]> = self.keys.iter().map(Vec::as_slice).collect();
        let unmasked = match replace_all(text.as_bytes(), &keys) {
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
            keys: self.secrets().into_iter().map(<[u8]>::to_vec).collect(),
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
                        let keys: Vec<&[u8]> = st.keys.iter().map(Vec::as_slice).collect();
                        if let Some(masked) = replace_all(&st.pending, &keys) {
                            st.pending = BytesMut::from(&masked[..]);
                        }
                        let keep = held_back(&st.pending, &keys);
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

/// How many trailing bytes of `pending` could begin a key (a proper prefix of one).
fn held_back(pending: &[u8], keys: &[&[u8]]) -> usize {
    let longest = keys.iter().map(|k| k.len()).max().unwrap_or(0);
    let from = pending.len().saturating_sub(longest.saturating_sub(1));
    (from..pending.len())
        .find(|&i| {
            let tail = &pending[i..];
            keys.iter()
                .any(|k| k.len() > tail.len() && k.starts_with(tail))
        })
        .map_or(0, |i| pending.len() - i)
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

    #[tokio::test]
    async fn streams_mask_keys_split_across_chunks_without_delaying_events() {
        let r = Redactor::new([KEY]);
        let text = format!("data: {{\"a\": \"{KEY}\"}}\n\ndata: [DONE]\n\n");
        for split in 0..text.len() {
            let chunks = vec![
                Ok::<_, std::io::Error>(Bytes::from(text[..split].to_string())),
                Ok(Bytes::from(text[split..].to_string())),
            ];
            let out: Vec<Bytes> = r
                .stream(futures_util::stream::iter(chunks))
                .map(|c| c.unwrap())
                .collect()
                .await;
            let joined: Vec<u8> = out.concat();
            assert_eq!(
                String::from_utf8(joined).unwrap(),
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

    #[test]
    fn debug_shows_no_key() {
        let debug = format!("{:?}", Redactor::new([KEY]));
        assert!(!debug.contains(KEY), "{debug}");
    }
}
