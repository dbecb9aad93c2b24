//! A benchmark's `score` subcommand as one value: its key, its clap arguments and how they
//! become a report.

use clap::{ArgMatches, Args, FromArgMatches};
use metrics_core::Report;

use super::files::ScoreError;

/// A benchmark's `score` subcommand: its key (the benchmark's key in the workbench registry),
/// its clap arguments and how they become a report.
pub trait ScoreCommand: Sync {
    fn key(&self) -> &'static str;
    /// The subcommand with its arguments.
    fn command(&self) -> clap::Command;
    /// Read the files the arguments name and score them.
    fn report(&self, matches: &ArgMatches) -> Result<Report, ScoreError>;
}

/// A [`ScoreCommand`] from a clap `Args` type and the function that scores it.
pub struct Command<A> {
    pub key: &'static str,
    pub about: &'static str,
    pub run: fn(A) -> Result<Report, ScoreError>,
}

impl<A: Args + FromArgMatches> ScoreCommand for Command<A> {
    fn key(&self) -> &'static str {
        self.key
    }

    fn command(&self) -> clap::Command {
        A::augment_args(clap::Command::new(self.key).about(self.about))
    }

    fn report(&self, matches: &ArgMatches) -> Result<Report, ScoreError> {
        let args = A::from_arg_matches(matches).map_err(|e| ScoreError::Usage(e.to_string()))?;
        (self.run)(args)
    }
}
