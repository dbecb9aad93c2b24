//! `scorebench serve`: open the database, bind, print the URL, serve until Ctrl-C or SIGTERM.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use clap::Args;

use crate::http::{AppState, app};

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the URL is printed)
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// SQLite database file, created and migrated if needed; or a PostgreSQL URL
    /// (`postgres://user@host:port/db`) holding the leaderboards, shared by several servers
    #[arg(long, default_value = "data/scorebench.sqlite3")]
    pub db: PathBuf,
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
}

/// Logging to stderr (`RUST_LOG` overrides `default_filter`) and a multi-threaded runtime, for the
/// commands that run async code (`serve`, `run`). `None` when the runtime cannot start (said on
/// stderr).
pub fn start_runtime(default_filter: &str) -> Option<tokio::runtime::Runtime> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| default_filter.into());
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
    let db_arg = args.db.to_string_lossy().into_owned();
    let postgres = crate::store::is_postgres_url(&db_arg);
    let local_db = if postgres { &args.local_db } else { &args.db };
    let conn = crate::db::open(local_db)?;
    let boards = crate::store::open(&db_arg).await?;
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
            Some(Arc::new(crate::runs::Llm::new(
                gateway,
                args.runs_dir.clone(),
            )))
        }
        None => None,
    };
    let state = AppState {
        dist: args.dist.clone(),
        db: Arc::new(Mutex::new(conn)),
        llm,
    };
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", args.addr))?;
    let addr = listener.local_addr()?;
    // The URL goes to stdout on its own line: people read it, scripts and tests parse it.
    println!("scorebench listening on http://{addr}/");
    // A PostgreSQL URL may hold a password: it is not logged.
    let shown = if postgres {
        "postgres"
    } else {
        db_arg.as_str()
    };
    tracing::info!(db = shown, leaderboards = boards.kind(), dist = %args.dist.display(), "serving");
    axum::serve(
        listener,
        app(state).merge(crate::leaderboard::router(boards)),
    )
    .with_graceful_shutdown(shutdown_signal())
    .await?;
    tracing::info!("shut down cleanly");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
}
