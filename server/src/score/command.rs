//! A benchmark's `score` subcommand in clap, built from its adapter's description
//! ([`workbench::cli::Command`]), and the values clap parsed handed back as
//! [`workbench::cli::Values`].

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{ArgAction, ArgMatches};
use workbench::cli::{Command, Kind, Value, Values};

/// `scorebench score <key>`, with the arguments `command` describes.
pub fn clap_command(key: &'static str, command: &Command) -> clap::Command {
    command
        .args
        .iter()
        .fold(clap::Command::new(key).about(command.about), |cmd, arg| {
            cmd.arg(clap_arg(arg))
        })
}

fn clap_arg(arg: &workbench::cli::Arg) -> clap::Arg {
    let upper = arg.name.to_uppercase();
    let value_name = arg.value_name.map_or(upper, str::to_string);
    let long = arg.name.replace('_', "-");
    let mut a = clap::Arg::new(arg.name).help(arg.help);
    a = match &arg.kind {
        Kind::File {
            positional,
            required,
            many,
        } => {
            let a = a
                .value_name(value_name)
                .value_parser(clap::value_parser!(PathBuf))
                .required(*required);
            let a = if *positional { a } else { a.long(long) };
            if *many {
                a.action(ArgAction::Append).num_args(1..)
            } else {
                a.action(ArgAction::Set)
            }
        }
        Kind::Choice { values, default } => a
            .long(long)
            .value_name(value_name)
            .action(ArgAction::Set)
            .default_value(*default)
            .value_parser(PossibleValuesParser::new(values.iter().map(
                |(name, help)| {
                    let value = PossibleValue::new(*name);
                    if help.is_empty() {
                        value
                    } else {
                        value.help(*help)
                    }
                },
            ))),
        Kind::Flag => a.long(long).action(ArgAction::SetTrue),
        Kind::Numbers => a
            .long(long)
            .value_name(value_name)
            .action(ArgAction::Append)
            .value_delimiter(',')
            .value_parser(clap::value_parser!(f64)),
    };
    for id in arg.requires {
        a = a.requires(*id);
    }
    if !arg.conflicts.is_empty() {
        a = a.conflicts_with_all(arg.conflicts.iter().copied());
    }
    if !arg.required_unless_all.is_empty() {
        a = a.required_unless_present_all(arg.required_unless_all.iter().copied());
    }
    a
}

/// What clap parsed for `command`'s arguments.
pub fn values(command: &Command, matches: &ArgMatches, samples: bool) -> Values {
    let mut values = Values::new(samples);
    for arg in command.args {
        let id = arg.name;
        let value = match arg.kind {
            Kind::File { .. } => Value::Paths(
                matches
                    .get_many::<PathBuf>(id)
                    .map(|p| p.cloned().collect())
                    .unwrap_or_default(),
            ),
            Kind::Choice { .. } => {
                Value::Choice(matches.get_one::<String>(id).cloned().unwrap_or_default())
            }
            Kind::Flag => Value::Flag(matches.get_flag(id)),
            Kind::Numbers => match matches.get_many::<f64>(id) {
                Some(n) => Value::Numbers(n.copied().collect()),
                None => continue,
            },
        };
        values.set(id, value);
    }
    values
}
