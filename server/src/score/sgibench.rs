//! `scorebench score sgi-wet|sgi-dry|sgi-deep-research|sgi-idea LOG.json` (not built yet).

use clap::Args;
use metrics_core::Report;

use super::ScoreError;

#[derive(Args)]
pub struct WetArgs {
    /// The step-1 log
    log: std::path::PathBuf,
}
#[derive(Args)]
pub struct DryArgs {
    /// The step-4 (or step-3) log
    log: std::path::PathBuf,
}
#[derive(Args)]
pub struct DeepResearchArgs {
    /// The step-1 or step-2 log
    log: std::path::PathBuf,
}
#[derive(Args)]
pub struct IdeaArgs {
    /// The step-2 log
    log: std::path::PathBuf,
}

fn unavailable(name: &str) -> ScoreError {
    ScoreError::Usage(format!("scoring {name} is not available in this build yet"))
}
pub fn report_wet(_args: WetArgs) -> Result<Report, ScoreError> {
    Err(unavailable("sgi-wet"))
}
pub fn report_dry(_args: DryArgs) -> Result<Report, ScoreError> {
    Err(unavailable("sgi-dry"))
}
pub fn report_deep_research(_args: DeepResearchArgs) -> Result<Report, ScoreError> {
    Err(unavailable("sgi-deep-research"))
}
pub fn report_idea(_args: IdeaArgs) -> Result<Report, ScoreError> {
    Err(unavailable("sgi-idea"))
}
