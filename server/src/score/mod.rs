//! `scorebench score <benchmark> …`: read files, hand their text to metrics-core, print the report.
//!
//! Each benchmark has one module here with its clap arguments and a `report(args)` function;
//! this file only dispatches and prints. Bad input exits with status 2, nothing on stdout and
//! a `file:line: message` on stderr. A report that cannot be written exits 1 saying why (141,
//! silently, when the reader closed the pipe).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use metrics_core::{InputError, InputFile};

pub mod eotgc;
pub mod msqa;
pub mod pairs;
pub mod sasbench;
pub mod sgibench;
pub mod table;

#[derive(Args)]
pub struct ScoreArgs {
    #[command(subcommand)]
    benchmark: Benchmark,
    /// Print the report as JSON (the contract in specs/report.md); same as `--format json`
    #[arg(long, global = true)]
    json: bool,
    /// Output: a readable table, the JSON report, or the page's exports (csv, markdown, latex)
    #[arg(long, global = true, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Include per-record results (`samples`) in the JSON report
    #[arg(long, global = true)]
    samples: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Table,
    Json,
    Csv,
    Markdown,
    Latex,
}

#[derive(Subcommand)]
enum Benchmark {
    /// A generic gold/pred JSONL or CSV file: qwk, pearson, spearman, kendall_tau_b, accuracy
    Pairs(pairs::PairsArgs),
    /// SAS-Bench: QWK, CCS, ECS per prediction file
    Sasbench(sasbench::SasbenchArgs),
    /// NLPCC 2025 EOTGC Track 1 (ACC_A, Pearson, Score), Track 2 and the total
    Eotgc(eotgc::EotgcArgs),
    /// MSQA_Short: accuracy, answer coverage, completion tokens from an evaluation.json
    Msqa(msqa::MsqaArgs),
    /// SGI-Bench wet experiment: action similarity, parameter accuracy, final
    SgiWet(sgibench::WetArgs),
    /// SGI-Bench dry experiment: PassAll@5/3/1, AET, SER
    SgiDry(sgibench::DryArgs),
    /// SGI-Bench deep research: exact match, step-level accuracy
    SgiDeepResearch(sgibench::DeepResearchArgs),
    /// SGI-Bench idea generation: effectiveness, novelty, detailedness, feasibility, final
    SgiIdea(sgibench::IdeaArgs),
}

/// Why scoring stopped. Every variant is the user's input, so the exit status is 2.
#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    #[error("{}: {message}", path.display())]
    Io { path: PathBuf, message: String },
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{0}")]
    Usage(String),
}

/// A file read into memory: its name as given (for messages and the report), bytes and text.
pub struct LoadedFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

impl LoadedFile {
    /// The file's text; invalid UTF-8 is an input error naming the file.
    pub fn text(&self) -> Result<&str, ScoreError> {
        std::str::from_utf8(&self.bytes).map_err(|e| {
            ScoreError::Input(InputError::whole_file(
                &self.name,
                format!("not UTF-8 text: {e}"),
            ))
        })
    }

    pub fn input_file(&self) -> InputFile {
        InputFile::from_bytes(self.name.clone(), &self.bytes)
    }
}

pub use metrics_core::MAX_FILE_BYTES;

/// Read a file of at most [`MAX_FILE_BYTES`]. The limit is on the bytes read, not on the size
/// the file system reports: a FIFO, `/dev/zero` or a file that grows while it is read reports
/// a size of 0 and must not be read forever.
pub fn load(path: &Path) -> Result<LoadedFile, ScoreError> {
    load_with_limit(path, MAX_FILE_BYTES)
}

/// [`load`] with another limit (tests use a small one).
pub fn load_with_limit(path: &Path, max_bytes: u64) -> Result<LoadedFile, ScoreError> {
    use std::io::Read;
    let io = |message: String| ScoreError::Io {
        path: path.to_path_buf(),
        message,
    };
    let too_big = || {
        io(format!(
            "file is larger than the limit of {max_bytes} bytes"
        ))
    };
    let meta = std::fs::metadata(path).map_err(|e| io(describe_io(&e)))?;
    if meta.is_dir() {
        return Err(io("is a directory, expected a file".into()));
    }
    if meta.len() > max_bytes {
        return Err(io(format!(
            "file is {} bytes, the limit is {max_bytes} bytes",
            meta.len()
        )));
    }
    let file = std::fs::File::open(path).map_err(|e| io(describe_io(&e)))?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| io(describe_io(&e)))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_big());
    }
    Ok(LoadedFile {
        name: path.display().to_string(),
        bytes,
    })
}

fn describe_io(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

pub fn run(args: ScoreArgs) -> ExitCode {
    let result = match args.benchmark {
        Benchmark::Pairs(a) => pairs::report(a),
        Benchmark::Sasbench(a) => sasbench::report(a),
        Benchmark::Eotgc(a) => eotgc::report(a),
        Benchmark::Msqa(a) => msqa::report(a),
        Benchmark::SgiWet(a) => sgibench::report_wet(a),
        Benchmark::SgiDry(a) => sgibench::report_dry(a),
        Benchmark::SgiDeepResearch(a) => sgibench::report_deep_research(a),
        Benchmark::SgiIdea(a) => sgibench::report_idea(a),
    };
    match result {
        Ok(mut report) => {
            if !args.samples {
                report.samples = None;
            }
            let format = if args.json { Format::Json } else { args.format };
            // The exports are the page's: same view model, same text (metrics_core::workbench).
            let view = || metrics_core::workbench::table(&report);
            let text = match format {
                Format::Json => format!("{}\n", report.to_json_pretty()),
                Format::Table => table::render(&report),
                Format::Csv => metrics_core::workbench::to_csv(&view()),
                Format::Markdown => metrics_core::workbench::to_markdown(&view()),
                Format::Latex => metrics_core::workbench::to_latex(&view()),
            };
            let written = crate::output::write_stdout(&text);
            for w in &report.warnings {
                let at = w.line.map(|l| format!(":{l}")).unwrap_or_default();
                eprintln!("warning: {}{at}: {}", w.path, w.message);
            }
            match written {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => crate::output::write_failed(&e),
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
