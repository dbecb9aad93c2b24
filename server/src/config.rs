//! The upstream configuration (`--config FILE`, TOML): which OpenAI-compatible servers the proxy
//! may call, for which models, with which key, how hard, and at what price.
//!
//! ```toml
//! [[upstream]]
//! name = "local"
//! base_url = "http://127.0.0.1:8000/v1"
//! api_key_env = "LOCAL_API_KEY"        # optional: the key is read from this variable
//! models = ["qwen3-8b", "judge-model"]
//! max_concurrency = 64                 # optional, default 16
//! request_timeout_secs = 600           # optional, default 600
//! max_retries = 2                      # optional, default 2 (3 attempts in all)
//! retry_backoff_ms = 500               # optional, default 500 (doubles per retry)
//! price_per_million_input_tokens = 0.15   # optional, any currency (reported as "cost")
//! price_per_million_output_tokens = 0.60  # optional
//!
//! [sgi_dry_exec]                       # optional: lets POST /api/v1/runs start `sgi-dry-exec`
//! codes = "/srv/sgi/task_3_dry_experiment/codes"   # the folder official step 1 built
//! python = "/opt/dryexp/bin/python"    # optional, default python3
//! read_only = ["/srv/models"]          # optional: more folders the units may read
//! timeout_s = 300                      # optional limits per unit, the CLI's defaults:
//! cpu_s = 1200                         #   CPU seconds per process
//! memory_mb = 4096                     #   address space per process
//! processes = 256                      #   processes and threads per unit
//! scratch_mb = 1024                    #   the unit's writable tmpfs
//! workers = 4                          # optional: the largest `workers` a request may ask
//! ```
//!
//! Without `[sgi_dry_exec]` the server runs no code: a request (anyone who can reach the API)
//! sends the model code that step 3 executes, so an operator opts in, on a server whose
//! sandbox (`crate::sandbox`) they trust.
//!
//! **Invariant:** the key is held only in [`ApiKey`], whose `Debug` and `Display` print `***`;
//! it is never serialised (the type has no `Serialize`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::sandbox::{Limits, SandboxConfig};

/// An API key. Only [`ApiKey::expose`] gives the text, for the `Authorization` header.
#[derive(Clone, Default)]
pub struct ApiKey(Option<String>);

impl ApiKey {
    pub fn new(key: Option<String>) -> Self {
        ApiKey(key.filter(|k| !k.is_empty()))
    }

    /// The key, to set the `Authorization` header and nothing else.
    pub fn expose(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "***" } else { "None" })
    }
}

impl std::fmt::Display for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// One `[[upstream]]` table, after the key was read from the environment.
#[derive(Debug, Clone)]
pub struct UpstreamConfig {
    pub name: String,
    /// Base URL up to and including `/v1` (no trailing slash).
    pub base_url: String,
    /// The environment variable the key came from (shown in messages; the key never is).
    pub api_key_env: Option<String>,
    pub api_key: ApiKey,
    pub models: Vec<String>,
    pub max_concurrency: usize,
    pub request_timeout_secs: u64,
    pub max_retries: u32,
    pub retry_backoff_ms: u64,
    pub price_per_million_input_tokens: Option<f64>,
    pub price_per_million_output_tokens: Option<f64>,
}

/// The whole configuration file.
#[derive(Debug, Clone)]
pub struct Config {
    pub upstreams: Vec<UpstreamConfig>,
    /// `[sgi_dry_exec]`: SGI-Bench dry-experiment step 3 over HTTP (off without it).
    pub dry_exec: Option<DryExecConfig>,
}

/// `[sgi_dry_exec]`: where step 3's unit folders are and how each unit runs.
#[derive(Debug, Clone)]
pub struct DryExecConfig {
    /// The `codes` folder official step 1 built (`<idx>/unit_test_<k>/`).
    pub codes: PathBuf,
    pub sandbox: SandboxConfig,
    /// The most units a request may run at once.
    pub max_workers: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read the config file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: not a valid config: {message}")]
    Parse { path: String, message: String },
    #[error("{path}: upstream {upstream}: {message}")]
    Invalid {
        path: String,
        upstream: String,
        message: String,
    },
    #[error("{path}: [{section}]: {message}")]
    Section {
        path: String,
        section: &'static str,
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    upstream: Vec<RawUpstream>,
    #[serde(default)]
    sgi_dry_exec: Option<RawDryExec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDryExec {
    codes: PathBuf,
    #[serde(default = "default_python")]
    python: PathBuf,
    #[serde(default)]
    read_only: Vec<PathBuf>,
    #[serde(default = "default_unit_timeout")]
    timeout_s: u64,
    #[serde(default = "default_cpu_s")]
    cpu_s: u64,
    #[serde(default = "default_memory_mb")]
    memory_mb: u64,
    #[serde(default = "default_processes")]
    processes: u64,
    #[serde(default = "default_scratch_mb")]
    scratch_mb: u64,
    #[serde(default = "default_unit_workers")]
    workers: usize,
}

/// Units `sgi-dry-exec` runs at once unless told otherwise.
pub const UNIT_WORKERS: usize = 4;

// The defaults of `[sgi_dry_exec]`, of `scorebench run sgi-dry-exec`'s options and of its HTTP
// form: the sandbox's own limits ([`Limits::default`]), in the options' units.
pub fn default_python() -> PathBuf {
    PathBuf::from("python3")
}
pub fn default_unit_timeout() -> u64 {
    Limits::default().wall.as_secs()
}
pub fn default_cpu_s() -> u64 {
    Limits::default().cpu_s
}
pub fn default_memory_mb() -> u64 {
    Limits::default().memory_bytes >> 20
}
pub fn default_processes() -> u64 {
    Limits::default().processes
}
pub fn default_scratch_mb() -> u64 {
    Limits::default().scratch_bytes >> 20
}
pub fn default_unit_workers() -> usize {
    UNIT_WORKERS
}

/// The sandbox limits of one unit from the options' numbers (seconds, MiB).
pub fn unit_limits(
    timeout_s: u64,
    cpu_s: u64,
    memory_mb: u64,
    processes: u64,
    scratch_mb: u64,
) -> Limits {
    Limits {
        wall: std::time::Duration::from_secs(timeout_s),
        cpu_s,
        memory_bytes: memory_mb << 20,
        processes,
        scratch_bytes: scratch_mb << 20,
        ..Limits::default()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUpstream {
    name: String,
    base_url: String,
    #[serde(default)]
    api_key_env: Option<String>,
    models: Vec<String>,
    #[serde(default = "default_concurrency")]
    max_concurrency: usize,
    #[serde(default = "default_timeout")]
    request_timeout_secs: u64,
    #[serde(default = "default_retries")]
    max_retries: u32,
    #[serde(default = "default_backoff")]
    retry_backoff_ms: u64,
    #[serde(default)]
    price_per_million_input_tokens: Option<f64>,
    #[serde(default)]
    price_per_million_output_tokens: Option<f64>,
}

fn default_concurrency() -> usize {
    16
}
fn default_timeout() -> u64 {
    600
}
fn default_retries() -> u32 {
    2
}
fn default_backoff() -> u64 {
    500
}

/// Largest number of retries a config may ask for.
pub const MAX_RETRIES: u32 = 10;

impl Config {
    /// Read and check a config file; keys come from the environment.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: shown.clone(),
            source,
        })?;
        Config::parse(&shown, &text, |name| std::env::var(name).ok())
    }

    /// Parse config text; `env` looks up the key variables.
    pub fn parse(
        path: &str,
        text: &str,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_string(),
            message: e.message().to_string(),
        })?;
        if raw.upstream.is_empty() {
            return Err(ConfigError::Parse {
                path: path.to_string(),
                message: "no [[upstream]] table".into(),
            });
        }
        let mut seen_models: HashMap<String, String> = HashMap::new();
        let mut upstreams = Vec::new();
        for u in raw.upstream {
            let invalid = |message: String| ConfigError::Invalid {
                path: path.to_string(),
                upstream: u.name.clone(),
                message,
            };
            if upstreams.iter().any(|x: &UpstreamConfig| x.name == u.name) {
                return Err(invalid("the name is used twice".into()));
            }
            let base_url = u.base_url.trim_end_matches('/').to_string();
            let parsed = reqwest::Url::parse(&base_url)
                .map_err(|e| invalid(format!("base_url is not a URL: {e}")))?;
            if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
                return Err(invalid(
                    "base_url must be an http(s) URL with a host".into(),
                ));
            }
            if !parsed.username().is_empty() || parsed.password().is_some() {
                return Err(invalid(
                    "base_url must not hold credentials: use api_key_env".into(),
                ));
            }
            // `{base_url}/{endpoint}` would put the endpoint inside the query or fragment, and
            // a query often holds a key (`?api-key=…`): refused, without echoing the URL.
            if parsed.query().is_some() || parsed.fragment().is_some() {
                return Err(invalid(
                    "base_url must not have a query string (?…) or a fragment (#…): \
                     give the key with api_key_env"
                        .into(),
                ));
            }
            if u.models.is_empty() {
                return Err(invalid("models is empty".into()));
            }
            for m in &u.models {
                if let Some(other) = seen_models.insert(m.clone(), u.name.clone()) {
                    return Err(invalid(format!(
                        "model {m:?} is also listed by upstream {other}"
                    )));
                }
            }
            if u.max_concurrency == 0 || u.max_concurrency > 100_000 {
                return Err(invalid(
                    "max_concurrency must be between 1 and 100000".into(),
                ));
            }
            if u.request_timeout_secs == 0 {
                return Err(invalid("request_timeout_secs must be at least 1".into()));
            }
            if u.max_retries > MAX_RETRIES {
                return Err(invalid(format!(
                    "max_retries must be at most {MAX_RETRIES}"
                )));
            }
            for price in [
                u.price_per_million_input_tokens,
                u.price_per_million_output_tokens,
            ]
            .into_iter()
            .flatten()
            {
                if !price.is_finite() || price < 0.0 {
                    return Err(invalid("prices must be finite and not negative".into()));
                }
            }
            let api_key = match &u.api_key_env {
                Some(var) => match env(var) {
                    Some(k) => ApiKey::new(Some(k)),
                    None => {
                        return Err(invalid(format!(
                            "the environment variable {var} (api_key_env) is not set"
                        )));
                    }
                },
                None => ApiKey::default(),
            };
            upstreams.push(UpstreamConfig {
                name: u.name.clone(),
                base_url,
                api_key_env: u.api_key_env.clone(),
                api_key,
                models: u.models.clone(),
                max_concurrency: u.max_concurrency,
                request_timeout_secs: u.request_timeout_secs,
                max_retries: u.max_retries,
                retry_backoff_ms: u.retry_backoff_ms,
                price_per_million_input_tokens: u.price_per_million_input_tokens,
                price_per_million_output_tokens: u.price_per_million_output_tokens,
            });
        }
        let dry_exec = raw
            .sgi_dry_exec
            .map(|d| {
                let invalid = |message: String| ConfigError::Section {
                    path: path.to_string(),
                    section: "sgi_dry_exec",
                    message,
                };
                if !d.codes.is_dir() {
                    return Err(invalid(format!(
                        "codes {} is not a folder (the `codes` folder official step 1 built)",
                        d.codes.display()
                    )));
                }
                if d.workers == 0 || d.workers > crate::sandbox::MAX_JOBS {
                    return Err(invalid(format!(
                        "workers must be between 1 and {}",
                        crate::sandbox::MAX_JOBS
                    )));
                }
                if d.timeout_s == 0 {
                    return Err(invalid("timeout_s must be at least 1".into()));
                }
                Ok(DryExecConfig {
                    codes: d.codes,
                    sandbox: SandboxConfig {
                        python: d.python,
                        extra_ro: d.read_only,
                        limits: unit_limits(
                            d.timeout_s,
                            d.cpu_s,
                            d.memory_mb,
                            d.processes,
                            d.scratch_mb,
                        ),
                    },
                    max_workers: d.workers,
                })
            })
            .transpose()?;
        Ok(Config {
            upstreams,
            dry_exec,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"
[[upstream]]
name = "local"
base_url = "http://127.0.0.1:8000/v1/"
api_key_env = "K"
models = ["a", "b"]
price_per_million_input_tokens = 1.5
"#;

    #[test]
    fn reads_the_key_from_the_environment_and_redacts_it() {
        let config = Config::parse("c.toml", TEXT, |_| Some("sk-secret-123".into())).unwrap();
        let u = &config.upstreams[0];
        assert_eq!(u.base_url, "http://127.0.0.1:8000/v1");
        assert_eq!(u.api_key.expose(), Some("sk-secret-123"));
        assert_eq!(u.max_concurrency, 16);
        let debug = format!("{config:?} {}", u.api_key);
        assert!(!debug.contains("sk-secret"), "{debug}");
        assert!(debug.contains("***"));
    }

    #[test]
    fn refuses_bad_configs_naming_the_upstream() {
        let missing = Config::parse("c.toml", TEXT, |_| None).unwrap_err();
        assert!(
            missing
                .to_string()
                .contains("c.toml: upstream local: the environment variable K"),
            "{missing}"
        );
        let twice = TEXT.to_string() + &TEXT.replace("local", "other");
        let err = Config::parse("c.toml", &twice, |_| Some("k".into())).unwrap_err();
        assert!(err.to_string().contains("also listed"), "{err}");
        let bad_url = TEXT.replace("http://127.0.0.1:8000/v1/", "file:///etc");
        let err = Config::parse("c.toml", &bad_url, |_| Some("k".into())).unwrap_err();
        assert!(err.to_string().contains("http(s)"), "{err}");
        for url in [
            "http://127.0.0.1:8000/v1?api-key=SECRET-Q",
            "http://127.0.0.1:8000/v1/?",
            "http://127.0.0.1:8000/v1#SECRET-Q",
        ] {
            let text = TEXT.replace("http://127.0.0.1:8000/v1/", url);
            let err = Config::parse("c.toml", &text, |_| Some("k".into())).unwrap_err();
            let message = err.to_string();
            assert!(
                message.starts_with("c.toml: upstream local: base_url must not have a query"),
                "{message}"
            );
            assert!(
                !message.contains("SECRET-Q"),
                "the URL is not echoed: {message}"
            );
        }
        let err = Config::parse("c.toml", "x = 1", |_| None).unwrap_err();
        assert!(
            err.to_string().starts_with("c.toml: not a valid config"),
            "{err}"
        );
    }
}
