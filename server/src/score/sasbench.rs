//! `scorebench score sasbench …` (not built yet: see the issue tracker).

use clap::Args;
use metrics_core::Report;

use super::ScoreError;

#[derive(Args)]
pub struct SasbenchArgs {
    /// Input files
    files: Vec<std::path::PathBuf>,
}

pub fn report(_args: SasbenchArgs) -> Result<Report, ScoreError> {
    Err(ScoreError::Usage("scoring sasbench is not available in this build yet".into()))
}

/// The paper's table layout, when the report is a SAS-Bench report.
pub fn render_table(_report: &Report) -> Option<String> {
    None
}
