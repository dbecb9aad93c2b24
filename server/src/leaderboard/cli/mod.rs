//! `scorebench leaderboard create|submit|show|verify|remove|import`: an HTTP client of a running
//! server (`--server`, default `http://127.0.0.1:8080`). Errors (unknown board, files of another
//! benchmark, a bad token, an unreachable server) exit 2 with the message on stderr; `verify`
//! exits 1 when a value differs and names it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use base64::Engine as _;
use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::scoring;

mod client;
mod receipts;

use client::{Client, Failure, out};
use metrics_core::Report;
use workbench::detect::Role;
use workbench::session::WorkFile;
use workbench::verify::Verdict;

#[derive(Args, Debug)]
pub struct LeaderboardArgs {
    /// The scorebench server
    #[arg(
        long,
        global = true,
        env = "SCOREBENCH_SERVER",
        default_value = "http://127.0.0.1:8080"
    )]
    server: String,
    #[command(subcommand)]
    command: LeaderboardCommand,
}

#[derive(Subcommand, Debug)]
enum LeaderboardCommand {
    /// Create a board; prints {"slug", "owner_token", "url"} (keep the owner token: it is shown once)
    Create(CreateArgs),
    /// Submit prediction files; prints {"entry", "entry_token", "report"}
    Submit(SubmitArgs),
    /// The ranked board
    Show(ShowArgs),
    /// Download the entries' files and the gold, re-score locally, compare every value
    Verify(VerifyArgs),
    /// Remove an entry: the owner token deletes it, its entry token withdraws it
    Remove(RemoveArgs),
    /// Import a CSV or Markdown results table as "reported, not verified" entries (owner token)
    Import(ImportArgs),
    /// Competition teams: `team add` issues a team token (owner token; shown once)
    #[command(subcommand)]
    Team(TeamCommand),
    /// Competition phase: change the window, quotas, counting, or close it (owner token)
    Phase(PhaseArgs),
    /// A competition's submissions with their queue status (owner: all; team token: the team's)
    Submissions(TokenArgs),
    /// Cancel a queued competition submission (team, entry or owner token)
    Cancel(EntryTokenArgs),
    /// Make a scored submission the team's chosen one (team or entry token)
    Choose(EntryTokenArgs),
    /// Webhooks: `add` (prints the signing secret, shown once), `list` (with the delivery
    /// log), `delete` (owner token)
    #[command(subcommand)]
    Webhook(WebhookCommand),
}

#[derive(Subcommand, Debug)]
enum TeamCommand {
    /// Issue a team token; prints {"team", "team_token"}
    Add(TeamAddArgs),
    /// The teams with their submission counts (owner token)
    List(TokenArgs),
}

#[derive(Subcommand, Debug)]
enum WebhookCommand {
    /// Add a webhook; prints {"id", "url", "secret"}
    Add(WebhookAddArgs),
    /// The board's webhooks and their latest deliveries
    List(TokenArgs),
    /// Delete a webhook and its deliveries
    Delete(WebhookDeleteArgs),
}

#[derive(Args, Debug)]
struct WebhookAddArgs {
    #[arg(long)]
    slug: String,
    /// The owner token
    #[arg(long)]
    token: String,
    /// Where to POST the events (a host the server allows: `serve --webhook-hosts`)
    #[arg(long)]
    url: String,
}

#[derive(Args, Debug)]
struct WebhookDeleteArgs {
    #[arg(long)]
    slug: String,
    /// The owner token
    #[arg(long)]
    token: String,
    /// The webhook's id
    #[arg(long)]
    id: i64,
}

#[derive(Args, Debug)]
struct TeamAddArgs {
    #[arg(long)]
    slug: String,
    /// The owner token
    #[arg(long)]
    token: String,
    /// The team's name
    #[arg(long)]
    name: String,
}

/// A competition's phase settings (absent: unchanged; defaults at creation).
#[derive(Args, Debug, Default)]
struct PhaseSettingsArgs {
    /// Share of the items scored during the phase (default 0.3)
    #[arg(long)]
    public_share: Option<f64>,
    /// Seed of the public share (default: random)
    #[arg(long)]
    seed: Option<u64>,
    /// Submission window start, UTC (2026-05-01T00:00:00Z)
    #[arg(long)]
    opens: Option<String>,
    /// Submission window end, UTC
    #[arg(long)]
    closes: Option<String>,
    /// Submissions per team per UTC day
    #[arg(long)]
    daily_quota: Option<i64>,
    /// Submissions per team in total
    #[arg(long)]
    total_quota: Option<i64>,
    /// Which of a team's entries counts: best, latest or chosen
    #[arg(long)]
    counts: Option<String>,
}

impl PhaseSettingsArgs {
    fn json(&self) -> Value {
        let mut v = json!({});
        let mut set = |k: &str, x: Value| {
            if !x.is_null() {
                v[k] = x;
            }
        };
        set("public_share", json!(self.public_share));
        set("seed", json!(self.seed));
        set("opens", json!(self.opens));
        set("closes", json!(self.closes));
        set("daily_quota", json!(self.daily_quota));
        set("total_quota", json!(self.total_quota));
        set("counts", json!(self.counts));
        v
    }
}

#[derive(Args, Debug)]
struct PhaseArgs {
    #[arg(long)]
    slug: String,
    /// The owner token
    #[arg(long)]
    token: String,
    #[command(flatten)]
    settings: PhaseSettingsArgs,
    /// Close the phase: reveal the private scores, freeze the ranking
    #[arg(long)]
    close: bool,
}

#[derive(Args, Debug)]
struct TokenArgs {
    #[arg(long)]
    slug: String,
    /// The owner or a team token
    #[arg(long)]
    token: String,
}

#[derive(Args, Debug)]
struct EntryTokenArgs {
    #[arg(long)]
    slug: String,
    #[arg(long)]
    entry: i64,
    #[arg(long)]
    token: String,
}

#[derive(Args, Debug)]
struct CreateArgs {
    #[arg(long)]
    slug: String,
    #[arg(long)]
    title: String,
    /// A benchmark key (`scorebench benchmarks`); without it, the key of the spec (`.toml`)
    /// among the gold files (docs/benchmark-spec.md)
    #[arg(long, default_value = "")]
    benchmark: String,
    /// The variant's name in reports (default: the official one)
    #[arg(long)]
    variant: Option<String>,
    /// The ranking metric (default: the benchmark's first metric)
    #[arg(long)]
    primary: Option<String>,
    /// The metrics shown (repeat; default: the benchmark's headline metrics)
    #[arg(long = "metric")]
    metrics: Vec<String>,
    /// Description (Markdown)
    #[arg(long, default_value = "")]
    description: String,
    /// Gold files (the benchmark's shared files: gold, taxonomy)
    gold: Vec<PathBuf>,
    /// A competition: these gold files are stored but never served; submissions are queued
    /// and scored on a public share of the items until the owner closes the phase
    #[arg(long = "hidden-gold", num_args = 1.., value_name = "GOLD")]
    hidden_gold: Vec<PathBuf>,
    #[command(flatten)]
    phase: PhaseSettingsArgs,
}

#[derive(Args, Debug)]
struct SubmitArgs {
    #[arg(long)]
    slug: String,
    #[arg(long)]
    model: String,
    /// Metadata: organisation, parameters, open_weights (yes/no), link, date, notes, …
    #[arg(long = "meta", value_name = "KEY=VALUE")]
    meta: Vec<String>,
    /// Prediction files
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// A competition's team token
    #[arg(long)]
    token: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ShowFormat {
    Table,
    Json,
    Csv,
    Markdown,
    Latex,
}

#[derive(Args, Debug)]
struct ShowArgs {
    #[arg(long)]
    slug: String,
    /// The board as JSON (same as --format json)
    #[arg(long)]
    json: bool,
    #[arg(long, value_enum, default_value_t = ShowFormat::Table)]
    format: ShowFormat,
    /// The owner token: also list hidden and withdrawn entries
    #[arg(long)]
    token: Option<String>,
}

#[derive(Args, Debug)]
struct VerifyArgs {
    #[arg(long)]
    slug: String,
    /// One entry (default: every verified entry)
    #[arg(long)]
    entry: Option<i64>,
    /// Check the entries' signed receipts against the server's public key instead of
    /// re-scoring them
    #[arg(long)]
    receipt: bool,
}

#[derive(Args, Debug)]
struct RemoveArgs {
    #[arg(long)]
    slug: String,
    #[arg(long)]
    entry: i64,
    /// The owner token (delete) or the entry's token (withdraw)
    #[arg(long)]
    token: String,
}

#[derive(Args, Debug)]
struct ImportArgs {
    #[arg(long)]
    slug: String,
    /// The owner token
    #[arg(long)]
    token: String,
    /// Stored value = written value / scale (100 for a table in percent)
    #[arg(long)]
    scale: Option<f64>,
    /// The metric a table whose number columns are subsets holds (then Avg./Overall columns
    /// are its overall value)
    #[arg(long, value_name = "M")]
    metric: Option<String>,
    /// What a column holds: a metric, a subset, overall, meta:KEY, ignore or model
    /// (repeatable)
    #[arg(long = "map", value_name = "COLUMN=TARGET")]
    map: Vec<String>,
    /// Which table of a document with several (1-based)
    #[arg(long = "table", value_name = "N")]
    table_number: Option<usize>,
    /// TABLE.csv or TABLE.md (a Markdown document: its tables are found among the prose)
    table: PathBuf,
}

pub fn run(args: LeaderboardArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let client = Client {
        base: args.server.trim_end_matches('/').to_string(),
        http: reqwest::Client::new(),
    };
    let result = runtime.block_on(async {
        match args.command {
            LeaderboardCommand::Create(a) => create(&client, a).await,
            LeaderboardCommand::Submit(a) => submit(&client, a).await,
            LeaderboardCommand::Show(a) => show(&client, a).await,
            LeaderboardCommand::Verify(a) => verify(&client, a).await,
            LeaderboardCommand::Remove(a) => remove(&client, a).await,
            LeaderboardCommand::Import(a) => import(&client, a).await,
            LeaderboardCommand::Team(TeamCommand::Add(a)) => team_add(&client, a).await,
            LeaderboardCommand::Team(TeamCommand::List(a)) => owner_get(&client, a, "teams").await,
            LeaderboardCommand::Webhook(WebhookCommand::Add(a)) => webhook_add(&client, a).await,
            LeaderboardCommand::Webhook(WebhookCommand::List(a)) => {
                owner_get(&client, a, "webhooks").await
            }
            LeaderboardCommand::Webhook(WebhookCommand::Delete(a)) => {
                webhook_delete(&client, a).await
            }
            LeaderboardCommand::Phase(a) => phase(&client, a).await,
            LeaderboardCommand::Submissions(a) => submissions(&client, a).await,
            LeaderboardCommand::Cancel(a) => entry_post(&client, a, "cancel").await,
            LeaderboardCommand::Choose(a) => entry_post(&client, a, "choose").await,
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Error(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(2)
        }
        Err(Failure::Differs(m)) => {
            eprintln!("{m}");
            ExitCode::from(1)
        }
    }
}

fn read_file(path: &Path) -> Result<Value, Failure> {
    let loaded = crate::score::load(path).map_err(|e| Failure::Error(e.to_string()))?;
    let name = path
        .file_name()
        .map_or_else(|| loaded.name.clone(), |n| n.to_string_lossy().into_owned());
    Ok(json!({
        "name": name,
        "base64": base64::engine::general_purpose::STANDARD.encode(&loaded.bytes),
    }))
}

fn print_json(v: &Value) -> Result<(), Failure> {
    out(&format!("{}\n", serde_json::to_string_pretty(v)?))
}

async fn create(c: &Client, a: CreateArgs) -> Result<(), Failure> {
    let gold = a
        .gold
        .iter()
        .map(|p| read_file(p))
        .collect::<Result<Vec<_>, _>>()?;
    let hidden_gold = a
        .hidden_gold
        .iter()
        .map(|p| read_file(p))
        .collect::<Result<Vec<_>, _>>()?;
    let mut body = json!({
        "slug": a.slug, "title": a.title, "benchmark": a.benchmark,
        "description": a.description, "gold": gold,
    });
    if !hidden_gold.is_empty() {
        body["hidden_gold"] = hidden_gold.into();
        body["competition"] = a.phase.json();
    }
    if let Some(v) = a.variant {
        body["variant"] = v.into();
    }
    if let Some(p) = a.primary {
        body["primary"] = p.into();
    }
    if !a.metrics.is_empty() {
        body["metrics"] = a.metrics.into();
    }
    let reply = c
        .json(c.http.post(c.url("/api/v1/leaderboards")).json(&body))
        .await?;
    print_json(&json!({
        "slug": reply["slug"], "owner_token": reply["owner_token"], "url": reply["url"],
    }))
}

async fn submit(c: &Client, a: SubmitArgs) -> Result<(), Failure> {
    let mut meta = BTreeMap::new();
    for kv in &a.meta {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| Failure::Error(format!("--meta `{kv}`: expected KEY=VALUE")))?;
        meta.insert(k.to_string(), v.to_string());
    }
    let files = a
        .files
        .iter()
        .map(|p| read_file(p))
        .collect::<Result<Vec<_>, _>>()?;
    let body = json!({"model": a.model, "meta": meta, "files": files});
    let mut request = c
        .http
        .post(c.url(&format!("/api/v1/leaderboards/{}/entries", a.slug)))
        .json(&body);
    if let Some(t) = &a.token {
        request = request.bearer_auth(t);
    }
    let reply = c.json(request).await?;
    if reply["status"] == "queued" {
        // A competition: scored by the server's queue.
        return print_json(&json!({
            "entry": reply["entry"], "entry_token": reply["entry_token"],
            "status": reply["status"], "team": reply["team"], "inputs": reply["inputs"],
            "url": reply["url"],
        }));
    }
    print_json(&json!({
        "entry": reply["entry"], "entry_token": reply["entry_token"], "report": reply["report"],
        "url": reply["url"],
    }))
}

async fn show(c: &Client, a: ShowArgs) -> Result<(), Failure> {
    let format = if a.json { ShowFormat::Json } else { a.format };
    let path = format!("/api/v1/leaderboards/{}", a.slug);
    let with_token = |r: reqwest::RequestBuilder| match &a.token {
        Some(t) => r.bearer_auth(t),
        None => r,
    };
    match format {
        ShowFormat::Json => print_json(&c.json(with_token(c.http.get(c.url(&path)))).await?),
        ShowFormat::Table | ShowFormat::Markdown | ShowFormat::Csv | ShowFormat::Latex => {
            let name = match format {
                ShowFormat::Csv => "csv",
                ShowFormat::Latex => "latex",
                _ => "markdown",
            };
            let text = c
                .send(c.http.get(c.url(&format!("{path}/export?format={name}"))))
                .await?
                .text()
                .await?;
            out(&text)
        }
    }
}

async fn remove(c: &Client, a: RemoveArgs) -> Result<(), Failure> {
    let reply = c
        .json(
            c.http
                .delete(c.url(&format!(
                    "/api/v1/leaderboards/{}/entries/{}",
                    a.slug, a.entry
                )))
                .bearer_auth(&a.token),
        )
        .await?;
    print_json(&reply)
}

async fn import(c: &Client, a: ImportArgs) -> Result<(), Failure> {
    let ext = a
        .table
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let format = match ext.as_str() {
        "csv" => "csv",
        "md" | "markdown" => "markdown",
        _ => {
            return Err(Failure::Error(format!(
                "{}: expected a .csv or .md table",
                a.table.display()
            )));
        }
    };
    let loaded = crate::score::load(&a.table)?;
    let text = String::from_utf8(loaded.bytes)
        .map_err(|e| Failure::Error(format!("{}: not UTF-8: {e}", a.table.display())))?;
    let mut body = json!({"format": format, "text": text, "map": a.map});
    if let Some(s) = a.scale {
        body["scale"] = s.into();
    }
    if let Some(m) = a.metric {
        body["metric"] = m.into();
    }
    if let Some(n) = a.table_number {
        body["table"] = n.into();
    }
    let reply = c
        .json(
            c.http
                .post(c.url(&format!("/api/v1/leaderboards/{}/import", a.slug)))
                .bearer_auth(&a.token)
                .json(&body),
        )
        .await?;
    print_json(&reply)
}

/// A downloaded file: its bytes with the role the board lists, the SHA-256 the board lists and
/// the one of the bytes.
struct Downloaded {
    file: WorkFile,
    published: String,
    computed: String,
}

/// Download `files` (each `{name, role, sha256, url}`) and hash them; the hashes are compared
/// by [`workbench::verify::Verdict`], the rule the page's "Verify in my browser" follows too.
async fn download(c: &Client, files: &[Value]) -> Result<Vec<Downloaded>, Failure> {
    let mut out = Vec::new();
    for f in files {
        let name = f["name"].as_str().unwrap_or("");
        let bytes = c.bytes(f["url"].as_str().unwrap_or("")).await?;
        let computed = metrics_core::InputFile::from_bytes(name, &bytes).sha256;
        let role = Role::from_key(f["role"].as_str().unwrap_or("")).unwrap_or(Role::UNKNOWN);
        out.push(Downloaded {
            file: WorkFile::with_role(name, bytes, role),
            published: f["sha256"].as_str().unwrap_or("").to_string(),
            computed,
        });
    }
    Ok(out)
}

/// A board of a benchmark defined by a spec publishes the spec among its gold files (role
/// `<key>:spec`): downloaded, parsed and registered here, so the entries are re-scored by this
/// machine's reading of the spec. Its SHA-256 is checked with every other published file's (a
/// spec that is not the published one fails the verdict, naming it).
async fn register_board_spec(c: &Client, key: &str, gold: &[Value]) -> Result<(), Failure> {
    let role = format!("{key}{}", workbench::benchmarks::spec::SPEC_ROLE_SUFFIX);
    let Some(f) = gold
        .iter()
        .find(|f| f["role"].as_str() == Some(role.as_str()))
    else {
        return Ok(());
    };
    let name = f["name"].as_str().unwrap_or("spec.toml");
    let bytes = c.bytes(f["url"].as_str().unwrap_or("")).await?;
    scoring::register_spec_file(name, &bytes)?;
    Ok(())
}

async fn verify(c: &Client, a: VerifyArgs) -> Result<(), Failure> {
    if a.receipt {
        return receipts::verify(c, &a.slug, a.entry).await;
    }
    let path = format!("/api/v1/leaderboards/{}", a.slug);
    let board = c.json(c.http.get(c.url(&path))).await?;
    let info = &board["board"];
    if info["competition"].is_object() {
        return Err(Failure::Error(format!(
            "`{}` is a competition: its gold is hidden, so entries cannot be re-scored here; each \
             entry publishes the SHA-256 of its prediction files and the scorer version (`show \
             --json`: inputs, scorer) to check against the files you hold",
            a.slug
        )));
    }
    let key = info["benchmark"].as_str().unwrap_or("");
    let gold_list = info["gold"].as_array().map_or(&[][..], Vec::as_slice);
    if workbench::registry::get(key).is_none() {
        register_board_spec(c, key, gold_list).await?;
    }
    let bench = scoring::benchmark(key)?;
    let variant = scoring::variant(bench, info["variant"].as_str().unwrap_or(""))?;
    let gold = download(c, gold_list).await?;
    let entries: Vec<&Value> = board["entries"]
        .as_array()
        .map(|v| v.iter().collect())
        .unwrap_or_default();
    let chosen: Vec<&Value> = match a.entry {
        Some(id) => {
            let e = entries
                .iter()
                .find(|e| e["entry"].as_i64() == Some(id))
                .ok_or_else(|| Failure::Error(format!("no entry {id} on `{}`", a.slug)))?;
            if e["status"] != "verified" {
                return Err(Failure::Error(format!(
                    "entry {id} is reported, not verified: it has no files to re-score"
                )));
            }
            vec![*e]
        }
        None => entries
            .iter()
            .copied()
            .filter(|e| e["status"] == "verified")
            .collect(),
    };
    let reported = entries.iter().filter(|e| e["status"] == "reported").count();
    let mut problems = Vec::new();
    for e in &chosen {
        let id = e["entry"].as_i64().unwrap_or_default();
        let detail = c
            .json(
                c.http
                    .get(c.url(&format!("{path}/entries/{id}?samples=true"))),
            )
            .await?;
        let stored: Report = serde_json::from_value(detail["report"].clone())
            .map_err(|e| Failure::Error(format!("entry {id}: the stored report: {e}")))?;
        let files = download(c, e["inputs"].as_array().map_or(&[][..], Vec::as_slice)).await?;
        let (gold_files, entry_files): (Vec<WorkFile>, Vec<WorkFile>) = (
            gold.iter().map(|d| d.file.clone()).collect(),
            files.iter().map(|d| d.file.clone()).collect(),
        );
        let local = scoring::score_entry(bench, variant, &gold_files, &entry_files)
            .map(|scored| scored.report)
            .map_err(|err| err.to_string());
        // Every published file (the gold and the entry's), read by this entry's job or not,
        // each against the hash of its own download.
        let verdict = Verdict::new(
            &stored,
            gold.iter().chain(&files).map(|d| {
                (
                    d.file.name.as_str(),
                    d.published.as_str(),
                    Some(d.computed.clone()),
                )
            }),
            local.as_ref().map_err(Clone::clone),
        );
        let mut differences: Vec<String> = verdict
            .bad_files()
            .map(|f| {
                format!(
                    "{}: downloaded SHA-256 {}, the board lists {}",
                    f.name,
                    f.computed.as_deref().unwrap_or("(none)"),
                    f.published
                )
            })
            .collect();
        if let Some(err) = &verdict.error {
            differences.push(format!("re-scoring failed: {err}"));
        }
        differences.extend(
            verdict
                .differences
                .iter()
                .map(|d| format!("{}: server {} vs local {}", d.at, d.server, d.other)),
        );
        if let Ok(local) = &local {
            // The board's listed numbers are the stored report's overall metrics.
            for (k, v) in e["metrics"].as_object().into_iter().flatten() {
                let mine = local
                    .overall
                    .metrics
                    .get(k)
                    .and_then(metrics_core::report::MetricValue::as_scalar);
                if v.as_f64().map(f64::to_bits) != mine.map(f64::to_bits) {
                    differences.push(format!("listed {k}: server {v} vs local {mine:?}"));
                }
            }
            if stored.samples != local.samples {
                differences.push("per-sample results differ".into());
            }
            let stored_inputs: Vec<&str> =
                stored.inputs.iter().map(|i| i.sha256.as_str()).collect();
            let local_inputs: Vec<&str> = local.inputs.iter().map(|i| i.sha256.as_str()).collect();
            if stored_inputs != local_inputs {
                differences.push("input SHA-256s differ".into());
            }
        }
        let model = e["model"].as_str().unwrap_or("");
        if let (true, Ok(local)) = (differences.is_empty(), &local) {
            let values = 1 + stored.subsets.len();
            let unused: Vec<String> = verdict
                .files
                .iter()
                .filter(|f| !f.used)
                .map(|f| format!("{} {}", f.name, f.published))
                .collect();
            out(&format!(
                "entry {id} ({model}): identical — {} metrics over {values} rows, {} samples; inputs {}{}\n",
                stored.overall.metrics.len(),
                stored.samples.as_ref().map_or(0, Vec::len),
                local
                    .inputs
                    .iter()
                    .map(|i| format!("{} {}", i.path, i.sha256))
                    .collect::<Vec<_>>()
                    .join(", "),
                if unused.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; published, not used by this entry, same SHA-256: {}",
                        unused.join(", ")
                    )
                }
            ))?;
        } else {
            problems.push(format!(
                "entry {id} ({model}) differs:\n  {}",
                differences.join("\n  ")
            ));
        }
    }
    if reported > 0 && a.entry.is_none() {
        out(&format!(
            "{reported} reported entries skipped (no files to re-score)\n"
        ))?;
    }
    out(&format!(
        "scorer {} {}\n",
        env!("CARGO_PKG_VERSION"),
        option_env!("SCOREBENCH_GIT_COMMIT").unwrap_or("unknown")
    ))?;
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::Differs(problems.join("\n")))
    }
}

async fn team_add(c: &Client, a: TeamAddArgs) -> Result<(), Failure> {
    let reply = c
        .json(
            c.http
                .post(c.url(&format!("/api/v1/leaderboards/{}/teams", a.slug)))
                .bearer_auth(&a.token)
                .json(&json!({"name": a.name})),
        )
        .await?;
    print_json(&json!({"team": reply["team"], "team_token": reply["team_token"]}))
}

/// `GET /api/v1/leaderboards/{slug}/{what}` with a token, printed.
async fn owner_get(c: &Client, a: TokenArgs, what: &str) -> Result<(), Failure> {
    let reply = c
        .json(
            c.http
                .get(c.url(&format!("/api/v1/leaderboards/{}/{what}", a.slug)))
                .bearer_auth(&a.token),
        )
        .await?;
    print_json(&reply)
}

async fn webhook_add(c: &Client, a: WebhookAddArgs) -> Result<(), Failure> {
    let reply = c
        .json(
            c.http
                .post(c.url(&format!("/api/v1/leaderboards/{}/webhooks", a.slug)))
                .bearer_auth(&a.token)
                .json(&json!({"url": a.url})),
        )
        .await?;
    print_json(&reply)
}

async fn webhook_delete(c: &Client, a: WebhookDeleteArgs) -> Result<(), Failure> {
    let reply = c
        .json(
            c.http
                .delete(c.url(&format!(
                    "/api/v1/leaderboards/{}/webhooks/{}",
                    a.slug, a.id
                )))
                .bearer_auth(&a.token),
        )
        .await?;
    print_json(&reply)
}

async fn phase(c: &Client, a: PhaseArgs) -> Result<(), Failure> {
    let mut body = a.settings.json();
    if a.close {
        body["close"] = true.into();
    }
    let reply = c
        .json(
            c.http
                .post(c.url(&format!("/api/v1/leaderboards/{}/phase", a.slug)))
                .bearer_auth(&a.token)
                .json(&body),
        )
        .await?;
    print_json(&reply)
}

async fn submissions(c: &Client, a: TokenArgs) -> Result<(), Failure> {
    let reply = c
        .json(
            c.http
                .get(c.url(&format!("/api/v1/leaderboards/{}/submissions", a.slug)))
                .bearer_auth(&a.token),
        )
        .await?;
    print_json(&reply)
}

async fn entry_post(c: &Client, a: EntryTokenArgs, what: &str) -> Result<(), Failure> {
    let reply = c
        .json(
            c.http
                .post(c.url(&format!(
                    "/api/v1/leaderboards/{}/entries/{}/{what}",
                    a.slug, a.entry
                )))
                .bearer_auth(&a.token),
        )
        .await?;
    print_json(&reply)
}
