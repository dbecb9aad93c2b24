//! Repeated sampling through the proxy: the k-th identical request of a session gets the k-th
//! sample (its own cache entry), so a client asking n times for the same prompt gets n
//! samples on its first run and the same n replies, in the same order, when it runs again.
//!
//! ```text
//! session  = the run named by `x-scorebench-run`, else the client's IP address
//! request  = sha256(upstream, endpoint, body with keys sorted, without stream)
//! sample k = the smallest index of `request` not yet taken in the session; taken when the
//!            reply is stored or served, given back when the call fails (a retry reuses it)
//! a client session ends after IDLE_MS with nothing in flight, when the next request has been
//! asked as often as the most asked one (IDLE_AFTER_FAILURE_MS when the last call failed: a
//! client waiting to retry is not a new run); a run's session ends when the run is resumed
//! ```
//! Why an idle gap: official clients send no run identity (the MSQA toolkit builds a new
//! OpenAI client, hence a new connection, for every call, with the same headers every time).
//! Within a run some request is in flight, or the pause is the client's own work between
//! calls (measured: up to ~0.6 s while 64 threads build their clients, in the middle of a pass,
//! which the "asked as often as the most asked" rule keeps in the session); a new process needs
//! its interpreter and imports first (~1 s for a lean `openai` script, ~3 s for the toolkit).
//! An explicit `x-scorebench-sample: N` bypasses the counting.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;

/// A client session ends after this long with nothing in flight.
pub const IDLE_MS: u64 = 500;
/// … or this long when its last call failed (the official toolkit waits 10 s to retry).
pub const IDLE_AFTER_FAILURE_MS: u64 = 30_000;
/// Sessions idle this long are forgotten (bounds the table).
const FORGET_AFTER: Duration = Duration::from_secs(600);

/// Whose requests are counted together.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SessionKey {
    /// `x-scorebench-run: ID` (a stored run).
    Run(String),
    /// The client's address; `None` when the server does not know it (in-process tests).
    Client(Option<IpAddr>),
}

/// The client's IP address, when the server was started with connection info.
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Infallible> {
        Ok(ClientAddr(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| c.0.ip()),
        ))
    }
}

/// All sessions of the proxy.
#[derive(Debug)]
pub struct Sampler {
    sessions: Mutex<HashMap<SessionKey, Arc<Session>>>,
    idle: Duration,
    idle_after_failure: Duration,
}

impl Default for Sampler {
    fn default() -> Sampler {
        Sampler::new(
            Duration::from_millis(IDLE_MS),
            Duration::from_millis(IDLE_AFTER_FAILURE_MS),
        )
    }
}

impl Sampler {
    pub fn new(idle: Duration, idle_after_failure: Duration) -> Sampler {
        Sampler {
            sessions: Mutex::new(HashMap::new()),
            idle,
            idle_after_failure,
        }
    }

    /// The session of `key` (made on first use).
    pub fn session(&self, key: SessionKey) -> Arc<Session> {
        let Ok(mut sessions) = self.sessions.lock() else {
            // A poisoned table: count this request on its own (sample 0).
            return Arc::new(Session::new(key, self.idle, self.idle_after_failure));
        };
        if sessions.len() > 64 {
            sessions.retain(|_, s| !s.forgettable());
        }
        sessions
            .entry(key.clone())
            .or_insert_with(|| Arc::new(Session::new(key, self.idle, self.idle_after_failure)))
            .clone()
    }

    /// Start a session over (a resumed run replays its samples from the first).
    pub fn reset(&self, key: &SessionKey) {
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.remove(key);
        }
    }
}

/// One session's counts.
#[derive(Debug)]
pub struct Session {
    key: SessionKey,
    idle: Duration,
    idle_after_failure: Duration,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// Per request digest: the samples taken.
    slots: HashMap<[u8; 16], Slots>,
    in_flight: usize,
    last_end: Instant,
    last_failed: bool,
    /// The most samples handed out for one request (the passes the session has begun).
    most_asked: u64,
}

#[derive(Debug, Default)]
struct Slots {
    /// Indices below `next` not in `free` are taken.
    next: u64,
    /// Given back by failed calls, ascending.
    free: Vec<u64>,
}

impl Session {
    fn new(key: SessionKey, idle: Duration, idle_after_failure: Duration) -> Session {
        Session {
            key,
            idle,
            idle_after_failure,
            state: Mutex::new(State {
                slots: HashMap::new(),
                in_flight: 0,
                last_end: Instant::now(),
                last_failed: false,
                most_asked: 0,
            }),
        }
    }

    fn forgettable(&self) -> bool {
        self.state
            .lock()
            .map(|s| s.in_flight == 0 && s.last_end.elapsed() > FORGET_AFTER)
            .unwrap_or(true)
    }

    /// Take the next sample of the request with `digest`.
    pub fn claim(self: &Arc<Self>, digest: [u8; 16]) -> Claim {
        let index = match self.state.lock() {
            Ok(mut state) => {
                let gap = if state.last_failed {
                    self.idle_after_failure
                } else {
                    self.idle
                };
                // Only a request asked as often as the most asked one can start a new run: a
                // run that stalls mid-pass goes on with requests asked fewer times.
                let asked = state.slots.get(&digest).map_or(0, |s| s.next);
                let ended = matches!(self.key, SessionKey::Client(_))
                    && state.in_flight == 0
                    && asked >= state.most_asked
                    && state.last_end.elapsed() > gap;
                if ended {
                    state.most_asked = 0;
                    tracing::debug!(
                        session = ?self.key,
                        idle_ms = state.last_end.elapsed().as_millis() as u64,
                        requests = state.slots.len(),
                        "sampling session ended; identical requests count from sample 0 again"
                    );
                    state.slots.clear();
                }
                state.in_flight += 1;
                let slots = state.slots.entry(digest).or_default();
                let index = if slots.free.is_empty() {
                    slots.next += 1;
                    slots.next - 1
                } else {
                    slots.free.remove(0)
                };
                let asked = slots.next;
                state.most_asked = state.most_asked.max(asked);
                index
            }
            Err(_) => 0,
        };
        Claim {
            session: self.clone(),
            digest,
            index,
            kept: false,
        }
    }
}

/// One sample of one request, held while its call is in flight.
#[derive(Debug)]
pub struct Claim {
    session: Arc<Session>,
    digest: [u8; 16],
    index: u64,
    kept: bool,
}

impl Claim {
    /// The sample index (part of the cache key).
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The call answered: the sample stays taken.
    pub fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Claim {
    /// Not kept (the call failed or was dropped): the index is given back for the retry.
    fn drop(&mut self) {
        let Ok(mut state) = self.session.state.lock() else {
            return;
        };
        state.in_flight = state.in_flight.saturating_sub(1);
        state.last_end = Instant::now();
        state.last_failed = !self.kept;
        if !self.kept
            && let Some(slots) = state.slots.get_mut(&self.digest)
        {
            let at = slots.free.partition_point(|&i| i < self.index);
            slots.free.insert(at, self.index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(idle_ms: u64) -> Arc<Session> {
        Sampler::new(Duration::from_millis(idle_ms), Duration::from_secs(60))
            .session(SessionKey::Client(None))
    }

    #[test]
    fn identical_requests_take_successive_samples_and_failures_give_theirs_back() {
        let s = session(60_000);
        let (a, b) = ([1; 16], [2; 16]);
        let first = s.claim(a);
        let second = s.claim(a);
        let other = s.claim(b);
        assert_eq!((first.index(), second.index(), other.index()), (0, 1, 0));
        first.keep();
        drop(second); // failed: its retry gets sample 1 again
        let retry = s.claim(a);
        assert_eq!(retry.index(), 1);
        retry.keep();
        other.keep();
        assert_eq!(s.claim(a).index(), 2);
    }

    #[test]
    fn a_client_session_ends_after_an_idle_gap_with_nothing_in_flight() {
        let s = session(30);
        s.claim([1; 16]).keep();
        let held = s.claim([1; 16]);
        assert_eq!(held.index(), 1);
        std::thread::sleep(Duration::from_millis(60));
        // Still one in flight: the session goes on.
        let third = s.claim([1; 16]);
        assert_eq!(third.index(), 2);
        held.keep();
        third.keep();
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(
            s.claim([1; 16]).index(),
            0,
            "a new session replays from sample 0"
        );
    }

    #[test]
    fn a_stall_in_the_middle_of_a_pass_does_not_end_the_session() {
        let s = session(30);
        let (a, b) = ([1; 16], [2; 16]);
        s.claim(a).keep();
        s.claim(b).keep();
        s.claim(a).keep(); // the second pass has begun
        std::thread::sleep(Duration::from_millis(60));
        // b was asked fewer times than a: the same run goes on after its stall.
        let b2 = s.claim(b);
        assert_eq!(b2.index(), 1);
        b2.keep();
        std::thread::sleep(Duration::from_millis(60));
        // Every request asked as often as the most asked one: a new run starts over.
        assert_eq!(s.claim(a).index(), 0);
    }

    #[test]
    fn after_a_failure_the_session_waits_longer() {
        let sampler = Sampler::new(Duration::from_millis(30), Duration::from_secs(60));
        let s = sampler.session(SessionKey::Client(None));
        s.claim([1; 16]).keep();
        drop(s.claim([1; 16])); // failed
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(
            s.claim([1; 16]).index(),
            1,
            "the retry continues the session"
        );
    }

    #[test]
    fn run_sessions_end_only_when_reset() {
        let sampler = Sampler::new(Duration::from_millis(1), Duration::from_millis(1));
        let key = SessionKey::Run("0123456789abcdef".into());
        sampler.session(key.clone()).claim([1; 16]).keep();
        std::thread::sleep(Duration::from_millis(10));
        assert_eq!(sampler.session(key.clone()).claim([1; 16]).index(), 1);
        sampler.reset(&key);
        assert_eq!(sampler.session(key).claim([1; 16]).index(), 0);
    }
}
