//! Limits on anonymous writers: per-client counters of refused submissions and created boards,
//! and the client key (address, IPv6 /64, hashed with the board).

use std::collections::HashMap;

use sha2::Digest;

/// Limits of anonymous submission and of a board's size (`scorebench serve` flags), counted in
/// the store's transaction with the insert ([`crate::store::Limits`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubmitLimits {
    /// Submissions one client address (IPv6: its /64) may send to one board per hour without
    /// a team token (`--anon-submits-per-hour`).
    pub per_client_hour: i64,
    /// Submissions without a team token one board takes per hour (`--board-submits-per-hour`).
    pub per_board_hour: i64,
    /// Bytes a board's distinct files may take (`--board-max-mb`).
    pub max_board_bytes: i64,
    /// Samples one scored entry may have (`--max-entry-samples`): the server stores each.
    pub max_entry_samples: usize,
    /// Scoring jobs at once (`--scoring-jobs`).
    pub scoring_jobs: usize,
    /// Boards one client address may create per hour (`--anon-boards-per-hour`).
    pub boards_per_client_hour: i64,
    /// Bytes one streamed upload may have (`--max-file-mb`).
    pub max_file_bytes: u64,
}

impl Default for SubmitLimits {
    fn default() -> Self {
        SubmitLimits {
            per_client_hour: 30,
            per_board_hour: 600,
            max_board_bytes: 1 << 30,
            max_entry_samples: 250_000,
            max_file_bytes: 1 << 30,
            scoring_jobs: 1,
            boards_per_client_hour: 60,
        }
    }
}

pub(crate) const HOUR_MS: i64 = 3_600_000;

/// Keys tracked at most by a [`Recent`] (older ones are dropped first when it is full).
const RECENT_KEYS: usize = 100_000;

/// Anonymous work that leaves no entry to count in the store — submissions scored and then
/// refused, boards created — counted in this process per key over the last hour.
#[derive(Default)]
pub(crate) struct Recent {
    at: std::sync::Mutex<HashMap<String, Vec<i64>>>,
}

impl Recent {
    pub(crate) fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<i64>>> {
        self.at
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// How many times `key` was added since `since_ms`.
    pub(crate) fn count(&self, key: &str, since_ms: i64) -> i64 {
        self.map().get(key).map_or(0, |times| {
            times.iter().filter(|&&t| t >= since_ms).count() as i64
        })
    }

    /// Take back one time `at` of `key` (the work it counted left an entry after all).
    pub(crate) fn remove(&self, key: &str, at: i64) {
        if let Some(times) = self.map().get_mut(key)
            && let Some(i) = times.iter().rposition(|&t| t == at)
        {
            times.remove(i);
        }
    }

    pub(crate) fn add(&self, key: &str, now_ms: i64) {
        let mut map = self.map();
        if map.len() >= RECENT_KEYS {
            map.retain(|_, times| {
                times.retain(|&t| t >= now_ms - HOUR_MS);
                !times.is_empty()
            });
            if map.len() >= RECENT_KEYS {
                map.clear();
            }
        }
        let times = map.entry(key.to_string()).or_default();
        times.retain(|&t| t >= now_ms - HOUR_MS);
        times.push(now_ms);
    }
}

/// Who sends a request, for the anonymous limits: its address (the peer, or the proxy's
/// `X-Forwarded-For` when trusted), if known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Client(pub Option<std::net::IpAddr>);

impl Client {
    /// The key of the address alone (for limits across boards, kept in memory only).
    pub(crate) fn address_key(&self) -> String {
        self.key("")
    }

    /// The stored key: a hash of the address (IPv6: its /64, which one subscriber holds) and the
    /// board, so entries of different boards cannot be linked by it and no address is stored.
    pub(crate) fn key(&self, slug: &str) -> String {
        use std::net::IpAddr;
        let net = match self.0 {
            None => "unknown".to_string(),
            Some(IpAddr::V4(a)) => a.to_string(),
            Some(IpAddr::V6(a)) => match a.to_ipv4_mapped() {
                Some(v4) => v4.to_string(),
                None => {
                    let s = a.segments();
                    format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
                }
            },
        };
        let digest = sha2::Sha256::digest(format!("scorebench-client\0{slug}\0{net}"));
        hex::encode(&digest[..16])
    }
}
