//! `scorebench`: the workbench server and the command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use server::{score, serve};

/// jemalloc with its background thread: pages freed by large work (a burst of big
/// submissions, a bootstrap) go back to the system within seconds, also while the server idles;
/// glibc's per-thread arenas kept them (2 GB resident after eight 60 MiB submissions,
/// `scripts/bench-hostile.py`).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser)]
#[command(
    name = "scorebench",
    version,
    about = "Score LLM benchmark predictions exactly as the official code does"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the workbench, the JSON API and the SQLite storage
    Serve(serve::ServeArgs),
    /// Score prediction files and print the report
    Score(score::ScoreArgs),
    /// Run a benchmark against a model through the configured upstreams (cached, resumable)
    Run(server::runs::cli::RunArgs),
    /// List the registered benchmarks: key, label, metrics, variants, file roles
    Benchmarks(score::BenchmarksArgs),
    /// Shareable leaderboards on a running server: create, submit, show, verify, remove, import
    Leaderboard(server::leaderboard::cli::LeaderboardArgs),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Serve(args) => serve::run(args),
        Command::Score(args) => score::run(args),
        Command::Run(args) => server::runs::cli::run(args),
        Command::Benchmarks(args) => score::list_benchmarks(&args),
        Command::Leaderboard(args) => server::leaderboard::cli::run(args),
    }
}
