//! Webhooks (issue 27): an owner registers a URL; when the board has news the server POSTs it
//! there as JSON, signed with the hook's secret, retrying with backoff, and keeps a delivery log.
//!
//! ```text
//! events          entry.created    an entry became visible and ranked (a verified submission,
//!                                  a competition submission scored)
//!                 leader.changed   the leading group changed: the entries ranked first, with
//!                                  those statistically tied with the leader once the board's
//!                                  intervals are computed (checked when none is pending)
//! signature       X-Scorebench-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>
//!                 (RFC 2104; the scheme GitHub's webhooks use), with X-Scorebench-Event and
//!                 X-Scorebench-Delivery (the delivery's id: a receiver drops repeats)
//! hosts           only to the hosts `serve --webhook-hosts` allows (none by default); checked
//!                 when the hook is added and again at every attempt; redirects not followed
//! attempts        a 2xx answer delivers; otherwise again after base·2^(n−1) (base 10 s,
//!                 at most 1 h), at most 6 attempts, then `failed`; each attempt's status or
//!                 error is in the log
//! at most once    a delivery is claimed with a lease in the store, so servers sharing a
//!                 PostgreSQL store make each attempt once; a server killed mid-attempt
//!                 leaves the claim to lapse and another attempt is made (at-least-once)
//! ```
//! The secret is kept in the store in clear (the server must sign with it) and shown to the
//! owner once; the URL and the secret never reach a page or a log. This module holds the rules;
//! `super::delivery` runs the deliveries, `super::service` queues the events.

use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Hooks one board may have.
pub const MAX_HOOKS: usize = 5;
/// Deliveries the log shows.
pub const LOG_LINES: i64 = 100;

/// How the server delivers (`serve --webhook-hosts`, and the testing knobs).
#[derive(Debug, Clone)]
pub struct HookConfig {
    /// Hosts a hook may point at: `name` (any port) or `name:port`, lower case.
    pub allowed_hosts: Vec<String>,
    /// Backoff base: the wait before the second attempt.
    pub retry_base: Duration,
    pub max_attempts: i64,
    /// Per attempt (connect, send, answer).
    pub timeout: Duration,
    /// `serve --public-url`: events carry absolute links when it is set (else paths).
    pub public_url: Option<String>,
}

impl Default for HookConfig {
    fn default() -> Self {
        Self {
            allowed_hosts: Vec::new(),
            retry_base: Duration::from_secs(10),
            max_attempts: 6,
            timeout: Duration::from_secs(10),
            public_url: None,
        }
    }
}

impl HookConfig {
    /// The hosts of a comma-separated list (`serve --webhook-hosts`).
    pub fn hosts(list: &str) -> Vec<String> {
        list.split(',')
            .map(|h| h.trim().to_ascii_lowercase())
            .filter(|h| !h.is_empty())
            .collect()
    }

    /// Why `url` may not receive deliveries, if it may not.
    pub fn refusal(&self, url: &str) -> Option<String> {
        let parsed = match reqwest::Url::parse(url) {
            Ok(u) => u,
            Err(e) => return Some(format!("`{url}` is not a URL: {e}")),
        };
        if !matches!(parsed.scheme(), "http" | "https") {
            return Some("a webhook URL must be http(s)".into());
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Some("a webhook URL must not carry credentials".into());
        }
        let Some(host) = parsed.host_str().map(str::to_ascii_lowercase) else {
            return Some("a webhook URL needs a host".into());
        };
        let port = parsed.port_or_known_default().unwrap_or(0);
        let with_port = format!("{host}:{port}");
        if self.allowed_hosts.is_empty() {
            return Some(
                "this server sends webhooks to no host (its operator allows hosts with \
                 `serve --webhook-hosts`)"
                    .into(),
            );
        }
        if self
            .allowed_hosts
            .iter()
            .any(|a| *a == host || *a == with_port)
        {
            None
        } else {
            Some(format!(
                "this server does not send webhooks to `{host}` (allowed: {})",
                self.allowed_hosts.join(", ")
            ))
        }
    }

    /// The wait after `attempts` failed attempts: base·2^(attempts−1), at most an hour.
    pub fn backoff(&self, attempts: i64) -> Duration {
        let exp = (attempts - 1).clamp(0, 20) as u32;
        self.retry_base
            .saturating_mul(1 << exp)
            .min(Duration::from_secs(3600))
    }
}

/// `sha256=` and the hex HMAC-SHA256 of `body` under `secret`.
pub fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// A new hook secret: `whsec_` and 32 random bytes, hex.
pub fn new_secret() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(format!("whsec_{}", hex::encode(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_sha256_is_rfc_4231_case_2() {
        assert_eq!(
            signature("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn only_allowed_hosts_and_plain_http_urls() {
        let c = HookConfig {
            allowed_hosts: HookConfig::hosts("hooks.example.org, 127.0.0.1:9000"),
            ..HookConfig::default()
        };
        assert_eq!(c.refusal("https://hooks.example.org/x"), None);
        assert_eq!(c.refusal("http://HOOKS.example.org:8080/x"), None);
        assert_eq!(c.refusal("http://127.0.0.1:9000/in"), None);
        assert!(
            c.refusal("http://127.0.0.1:9001/in")
                .unwrap()
                .contains("127.0.0.1")
        );
        assert!(c.refusal("http://evil.example.org/").is_some());
        assert!(
            c.refusal("ftp://hooks.example.org/")
                .unwrap()
                .contains("http(s)")
        );
        assert!(
            c.refusal("https://u:p@hooks.example.org/")
                .unwrap()
                .contains("credentials")
        );
        assert!(c.refusal("not a url").is_some());
        let none = HookConfig::default();
        assert!(
            none.refusal("https://hooks.example.org/")
                .unwrap()
                .contains("--webhook-hosts")
        );
    }

    #[test]
    fn backoff_doubles_up_to_an_hour() {
        let c = HookConfig::default();
        assert_eq!(c.backoff(1), Duration::from_secs(10));
        assert_eq!(c.backoff(2), Duration::from_secs(20));
        assert_eq!(c.backoff(5), Duration::from_secs(160));
        assert_eq!(c.backoff(30), Duration::from_secs(3600));
    }
}
