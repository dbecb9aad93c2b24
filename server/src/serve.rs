//! `scorebench serve` (filled in by the skeleton work).

use std::process::ExitCode;

use clap::Args;

#[derive(Args)]
pub struct ServeArgs {}

pub fn run(_args: ServeArgs) -> ExitCode {
    ExitCode::SUCCESS
}
