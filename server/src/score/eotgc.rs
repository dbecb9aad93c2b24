//! `scorebench score eotgc …` (not built yet: see the issue tracker).

use clap::Args;
use metrics_core::Report;

use super::ScoreError;

#[derive(Args)]
pub struct EotgcArgs {
    /// Input files
    files: Vec<std::path::PathBuf>,
}

pub fn report(_args: EotgcArgs) -> Result<Report, ScoreError> {
    Err(ScoreError::Usage("scoring eotgc is not available in this build yet".into()))
}
