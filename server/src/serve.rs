//! `scorebench serve`: open the database, bind, print the URL, serve until Ctrl-C or SIGTERM.
//!
//! Connections are served by hyper's HTTP/1.1 server directly (axum's `serve` has no timeouts):
//! a client must send its request headers within `--header-timeout-secs` of connecting or of
//! its previous response (slow-loris and idle connections are closed), and a JSON body within
//! `--body-timeout-secs` ([`crate::api::JsonBody`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;

use crate::api::AppState;
use crate::guard::{ApiToken, Guard};
use crate::http::app_with;

/// How long open connections get to finish after Ctrl-C or SIGTERM.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the URL is printed)
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// SQLite database file, created and migrated if needed; or a PostgreSQL URL
    /// (`postgres://user@host:port/db`) holding the leaderboards, shared by several servers
    #[arg(long, default_value = "data/scorebench.sqlite3")]
    pub db: PathBuf,
    /// Where board files and entries' full reports go: a folder, or `s3://bucket/prefix`
    /// (S3-compatible storage; endpoint, region and credentials from the AWS_* environment
    /// variables). Default: a folder beside the SQLite file (`data/scorebench.files`; with PostgreSQL,
    /// beside --local-db: give several servers one shared place)
    #[arg(long, value_name = "DIR|s3://BUCKET/PREFIX")]
    pub files: Option<String>,
    /// With `--db postgres://…`: the SQLite file for this process's own data (reply cache, runs)
    #[arg(long, default_value = "data/scorebench.sqlite3")]
    pub local_db: PathBuf,
    /// The built app to serve (output of `trunk build`)
    #[arg(long, env = "SCOREBENCH_DIST", default_value = "dist")]
    pub dist: PathBuf,
    /// Upstream configuration (TOML, see server/API.md): enables the proxy and the runs
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Where runs started over HTTP write their files (`DIR/{run id}/`)
    #[arg(long, default_value = "data/runs")]
    pub runs_dir: PathBuf,
    /// Also answer to this host name (repeatable; IP addresses and localhost always work,
    /// other names are refused against DNS rebinding)
    #[arg(long = "allowed-host", value_name = "NAME")]
    pub allowed_hosts: Vec<String>,
    /// Also accept state-changing requests from pages of this origin, e.g.
    /// https://tools.example (repeatable; the server's own origin always works)
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<String>,
    /// Who may frame the board embeds (`/embed/leaderboard/{slug}`): a CSP frame-ancestors
    /// source list, e.g. "https://lab.example https://*.example.org"; `'none'` turns framing off
    #[arg(long, value_name = "SOURCES", default_value = "*", value_parser = embed_ancestors)]
    pub embed_ancestors: String,
    /// Require this environment variable's value as a bearer token on /api/v1/* (see
    /// server/API.md: API clients send it as their api_key, the browser opens /?token=… once)
    #[arg(long, value_name = "VAR")]
    pub api_token_env: Option<String>,
    /// Seconds a client may take to send its request headers (connections idle that long
    /// between requests are closed too)
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout_secs: u64,
    /// Seconds a client may take to send a request body (every route; a streamed upload:
    /// the longest pause between two of its chunks)
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub body_timeout_secs: u64,
    /// MiB of request bodies all requests may hold at once (every route); a request waits for
    /// room and gets 503 after the body timeout
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(16..=65_536))]
    pub body_budget_mb: u64,
    /// Largest leaderboard request in MiB (a submission's files, base64 in JSON); 413 above it,
    /// before the body is read when it declares its length. The budget grows to hold one
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=4_095))]
    pub max_upload_mb: u64,
    /// The server's public base URL, e.g. https://boards.example (absolute URLs in replies,
    /// OpenGraph and canonical links use it; without it the request's Host, if allowed)
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,
    /// Believe the reverse proxy in front (only when one is): `X-Forwarded-Proto: https` for
    /// absolute URLs, the last address of `X-Forwarded-For` as the client's (anonymous
    /// submission limits)
    #[arg(long)]
    pub trust_proxy: bool,
    /// Submissions one client address (IPv6: its /64) may send to one board per hour without
    /// a team token
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub anon_submits_per_hour: u64,
    /// Submissions without a team token one board takes per hour, from all clients
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub board_submits_per_hour: u64,
    /// Boards one client address (IPv6: its /64) may create per hour (counted in this process)
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub anon_boards_per_hour: u64,
    /// Largest file in MiB sent on its own to `POST /api/v1/leaderboards/{slug}/uploads`
    /// (streamed to the file store, never whole in memory; submissions then name it by its
    /// SHA-256)
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub max_file_mb: u64,
    /// MiB a board's files (gold and every entry's, each file once) may take
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub board_max_mb: u64,
    /// Samples one scored entry may have (the server stores each with its report); an entry
    /// with more is refused (422)
    #[arg(long, default_value_t = 250_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub max_entry_samples: u64,
    /// Scoring jobs this process runs at once (submissions, competition jobs, bootstrap
    /// batches; others wait their turn): each holds a scored entry in memory
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub scoring_jobs: u64,
    /// Workers scoring the competition queue in this process
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub queue_workers: u64,
    /// Milliseconds a claimed scoring job stays leased without renewal (a dead worker's job
    /// is retried after this)
    #[arg(long, default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(200..))]
    pub queue_lease_ms: u64,
    /// Testing: wait this many milliseconds inside each scoring job (kill a server mid-job)
    #[arg(long, default_value_t = 0, hide = true)]
    pub queue_job_delay_ms: u64,
    /// Hosts board owners may point webhooks at, comma-separated: `name` (any port) or
    /// `name:port`, e.g. "hooks.slack.com,ci.example.org:8443" (default: none, no webhooks)
    #[arg(
        long,
        env = "SCOREBENCH_WEBHOOK_HOSTS",
        value_name = "HOSTS",
        default_value = ""
    )]
    pub webhook_hosts: String,
    /// Register every benchmark spec (`*.toml`, docs/benchmark-spec.md) in this folder at
    /// start: boards can then be made of them (a bad spec stops the start, naming its line);
    /// repeatable
    #[arg(long = "spec", value_name = "DIR")]
    pub spec_dirs: Vec<PathBuf>,
    /// Attempts of a webhook delivery before it is given up (backoff 10 s, doubling)
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u64).range(1..=20))]
    pub webhook_attempts: u64,
    /// Testing: the webhook backoff's base, milliseconds
    #[arg(long, default_value_t = 10_000, hide = true)]
    pub webhook_retry_ms: u64,
}

impl ServeArgs {
    /// The access policy these arguments ask for; the token is read from the environment.
    pub fn guard(&self) -> anyhow::Result<Guard> {
        let api_token = match &self.api_token_env {
            None => None,
            Some(var) => {
                let token = std::env::var(var).map_err(|_| {
                    anyhow::anyhow!("the environment variable {var} (--api-token-env) is not set")
                })?;
                Some(ApiToken::new(&token).map_err(|e| anyhow::anyhow!("{var}: {e}"))?)
            }
        };
        for origin in &self.allowed_origins {
            let url = reqwest::Url::parse(origin)
                .map_err(|e| anyhow::anyhow!("--allowed-origin {origin:?}: {e}"))?;
            if url.origin().ascii_serialization() != origin.trim_end_matches('/') {
                anyhow::bail!(
                    "--allowed-origin {origin:?}: expected scheme://host[:port], nothing more"
                );
            }
        }
        let public_url = match &self.public_url {
            None => None,
            Some(raw) => {
                let url = reqwest::Url::parse(raw)
                    .map_err(|e| anyhow::anyhow!("--public-url {raw:?}: {e}"))?;
                if !matches!(url.scheme(), "http" | "https")
                    || url.host_str().is_none()
                    || url.query().is_some()
                    || url.fragment().is_some()
                    || !url.username().is_empty()
                {
                    anyhow::bail!(
                        "--public-url {raw:?}: expected http(s)://host[:port][/path], nothing more"
                    );
                }
                Some(url.as_str().trim_end_matches('/').to_string())
            }
        };
        let mut guard = Guard::new(
            self.allowed_hosts.clone(),
            self.allowed_origins.clone(),
            api_token,
            (self.body_budget_mb as usize) << 20,
            Duration::from_secs(self.body_timeout_secs),
        )
        .with_upload_limit((self.max_upload_mb as usize) << 20);
        guard.public_url = public_url;
        guard.trust_proxy = self.trust_proxy;
        Ok(guard)
    }
}

/// Logging to stderr (`RUST_LOG` overrides `default_filter`) and a multi-threaded runtime, for the
/// commands that run async code (`serve`, `run`). `None` when the runtime cannot start (said on
/// stderr).
pub fn start_runtime(default_filter: &str) -> Option<tokio::runtime::Runtime> {
    let mut filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| default_filter.into());
    // tokio-postgres logs every statement's parameters at debug level: stored files (a
    // competition's hidden gold) and token hashes. Never below info, whatever RUST_LOG says
    // (a directive for the same target replaces the user's).
    if let Ok(quiet) = "tokio_postgres=info".parse() {
        filter = filter.add_directive(quiet);
    }
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    match tokio::runtime::Runtime::new() {
        Ok(rt) => Some(rt),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            None
        }
    }
}

pub fn run(args: ServeArgs) -> ExitCode {
    let Some(runtime) = start_runtime("info,tower_http=warn") else {
        return ExitCode::FAILURE;
    };
    match runtime.block_on(serve(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let guard = args.guard()?;
    for dir in &args.spec_dirs {
        let specs = register_specs(dir)?;
        tracing::info!(dir = %dir.display(), specs = specs.join(", "), "benchmark specs registered");
    }
    let db_arg = args.db.to_string_lossy().into_owned();
    let postgres = crate::store::backend::is_postgres_url(&db_arg);
    let local_db = if postgres { &args.local_db } else { &args.db };
    let conn = crate::db::open(local_db)?;
    let boards = crate::store::backend::open(&db_arg).await?;
    let files = match &args.files {
        Some(place) => crate::files::Files::open(place)?,
        None => {
            if postgres {
                tracing::warn!(
                    "--db postgres://… without --files: board files go to a folder beside \
                     --local-db, which only this server reads; several servers need one shared \
                     place (--files DIR or --files s3://bucket/prefix)"
                );
            }
            crate::files::Files::folder(&crate::files::beside(local_db))?
        }
    };
    let (moved_files, moved_reports) = files.migrate(&*boards).await?;
    if moved_files + moved_reports > 0 {
        tracing::info!(
            files = moved_files,
            reports = moved_reports,
            to = files.shown(),
            "moved stored files and reports out of the database"
        );
    }
    let files = Arc::new(files);
    if !args.dist.join("index.html").is_file() {
        tracing::warn!(
            "{} has no index.html: the page will say the app is not built",
            args.dist.display()
        );
    }
    let llm = match &args.config {
        Some(path) => {
            let config = crate::config::Config::load(path)?;
            let gateway = crate::gateway::Gateway::open(&config, local_db)?;
            tracing::info!(
                upstreams = config.upstreams.len(),
                models = gateway.upstreams.models().len(),
                "proxy enabled"
            );
            Some(Arc::new(crate::runs::engine::Llm::new(
                gateway,
                args.runs_dir.clone(),
            )))
        }
        None => None,
    };
    let token_required = guard.api_token.is_some();
    let state = AppState {
        dist: args.dist.clone(),
        db: Arc::new(Mutex::new(conn)),
        llm,
        guard: Arc::new(guard),
    };
    let guard = Arc::clone(&state.guard);
    let shares = crate::share::router(Arc::clone(&boards), Arc::clone(&state.guard));
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", args.addr))?;
    let addr = listener.local_addr()?;
    // Ctrl-C and SIGTERM are listened for before anyone can know the URL: a signal sent as soon
    // as a client sees it shuts down cleanly instead of killing the process.
    let shutdown = shutdown_signal();
    // The URL goes to stdout on its own line: people read it, scripts and tests parse it. A
    // server started with stdout closed still serves.
    if let Err(e) =
        crate::output::write_stdout(&format!("scorebench listening on http://{addr}/\n"))
    {
        tracing::warn!("cannot print the URL on stdout: {e}");
    }
    if token_required {
        tracing::info!(
            "the API needs the token: clients send Authorization: Bearer <token>; open \
             http://{addr}/?token=<token> once in the browser"
        );
    }
    // A PostgreSQL URL may hold a password: it is not logged.
    let shown = if postgres {
        "postgres"
    } else {
        db_arg.as_str()
    };
    tracing::info!(db = shown, leaderboards = boards.kind(), files = files.shown(), dist = %args.dist.display(), "serving");
    serve_connections(
        listener,
        app_with(
            state,
            crate::leaderboard::router(
                boards,
                files,
                Arc::clone(&guard),
                crate::leaderboard::limits::SubmitLimits {
                    per_client_hour: args.anon_submits_per_hour as i64,
                    per_board_hour: args.board_submits_per_hour as i64,
                    max_board_bytes: (args.board_max_mb as i64) << 20,
                    max_entry_samples: args.max_entry_samples as usize,
                    scoring_jobs: args.scoring_jobs as usize,
                    boards_per_client_hour: args.anon_boards_per_hour as i64,
                    max_file_bytes: args.max_file_mb << 20,
                },
                crate::leaderboard::queue::QueueConfig {
                    workers: args.queue_workers as usize,
                    lease: Duration::from_millis(args.queue_lease_ms),
                    job_delay: Duration::from_millis(args.queue_job_delay_ms),
                },
                crate::leaderboard::hooks::HookConfig {
                    allowed_hosts: crate::leaderboard::hooks::HookConfig::hosts(
                        &args.webhook_hosts,
                    ),
                    retry_base: Duration::from_millis(args.webhook_retry_ms),
                    max_attempts: args.webhook_attempts as i64,
                    ..Default::default()
                },
                &args.embed_ancestors,
            )
            .merge(shares),
        ),
        Duration::from_secs(args.header_timeout_secs),
        shutdown,
    )
    .await;
    tracing::info!("shut down cleanly");
    Ok(())
}

/// Accept connections until `shutdown` ends (Ctrl-C or SIGTERM), each served by hyper's HTTP/1.1
/// server with a header read timeout; then let open connections finish (at most
/// [`SHUTDOWN_GRACE`]).
async fn serve_connections(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    header_timeout: Duration,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        // Out of file descriptors, or the peer left: wait a little, go on.
                        tracing::warn!("accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                // The client's address, as axum's ConnectInfo: the proxy counts identical
                // requests per client (sampling.rs).
                let service = TowerToHyperService::new(tower::ServiceExt::map_request(
                    app.clone(),
                    move |mut request: axum::http::Request<hyper::body::Incoming>| {
                        request
                            .extensions_mut()
                            .insert(axum::extract::ConnectInfo(peer));
                        request
                    },
                ));
                let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
                tokio::spawn(async move {
                    if let Err(e) = connection.await {
                        tracing::debug!("connection closed: {e}");
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(SHUTDOWN_GRACE) => {
            tracing::warn!("connections still open after {} s: closing them", SHUTDOWN_GRACE.as_secs());
        }
    }
}

/// Ctrl-C or SIGTERM, listened for from this call on (the handlers are installed here, not when
/// the future is first polled); the future ends at the first of them.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{Signal, SignalKind, signal};
        let wait = |listener: std::io::Result<Signal>| async move {
            match listener {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        let (terminate, interrupt) = (
            wait(signal(SignalKind::terminate())),
            wait(signal(SignalKind::interrupt())),
        );
        async move {
            tokio::select! {
                () = terminate => {},
                () = interrupt => {},
            }
        }
    }
    #[cfg(not(unix))]
    async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// `--embed-ancestors`: CSP sources only (no `;` or `,` that would end the directive, no
/// control characters).
fn embed_ancestors(value: &str) -> Result<String, String> {
    let value = value.trim();
    if value.is_empty() {
        return Err("an empty list: use 'none' to forbid framing".into());
    }
    if value
        .chars()
        .any(|c| c == ';' || c == ',' || c.is_control() || !c.is_ascii())
    {
        return Err("CSP sources separated by spaces (no ';', ',' or control characters)".into());
    }
    Ok(value.to_string())
}

/// Register every `*.toml` spec in `dir` (sorted by name); their keys.
fn register_specs(dir: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("--spec {}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.is_file())
        .collect();
    paths.sort();
    if paths.is_empty() {
        anyhow::bail!("--spec {}: no .toml spec in this folder", dir.display());
    }
    paths
        .iter()
        .map(|p| {
            crate::score::spec_file::load_registered(p)
                .map(|loaded| loaded.spec.key.clone())
                .map_err(|e| anyhow::anyhow!("{e}"))
        })
        .collect()
}
