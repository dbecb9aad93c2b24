//! `scorebench score msqa …` (not built yet: see the issue tracker).

use clap::Args;
use metrics_core::Report;

use super::ScoreError;

#[derive(Args)]
pub struct MsqaArgs {
    /// Input files
    files: Vec<std::path::PathBuf>,
}

pub fn report(_args: MsqaArgs) -> Result<Report, ScoreError> {
    Err(ScoreError::Usage("scoring msqa is not available in this build yet".into()))
}
