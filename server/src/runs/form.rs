//! A run's one description of its inputs ([`workbench::runs::Param`]) as the server reads it:
//! the flags of `scorebench run <key>` (clap), and the JSON body of `POST /api/v1/runs`, both
//! into [`RunValues`] for the run's plan.

use std::path::PathBuf;

use crate::gateway::Gateway;
use clap::{ArgAction, ArgMatches};
use serde::de::DeserializeOwned;
use serde_json::Value;
use workbench::runs::{NamedFile, On, Param, ParamKind, RunError, RunSpec, RunValue, RunValues};

/// `scorebench run <key>`'s arguments, in the order of the params.
pub fn clap_args(spec: &RunSpec, command: clap::Command) -> clap::Command {
    spec.params
        .iter()
        .filter(|p| p.on != On::Http)
        .fold(command, |command, p| command.arg(clap_arg(p)))
}

fn clap_arg(p: &Param) -> clap::Arg {
    let long = p.long();
    let value_name = p
        .value_name
        .map_or_else(|| long.replace('-', "_").to_uppercase(), str::to_string);
    let mut a = clap::Arg::new(p.name).long(long);
    if !p.help.is_empty() {
        a = a.help(p.help);
    }
    let value = |a: clap::Arg| a.value_name(value_name.clone()).action(ArgAction::Set);
    match p.kind {
        ParamKind::Path { required, default } => {
            let a = value(a)
                .value_parser(clap::value_parser!(PathBuf))
                .required(required);
            match default {
                Some(d) => a.default_value(d),
                None => a,
            }
        }
        ParamKind::Paths => a
            .value_name(value_name)
            .action(ArgAction::Append)
            .value_parser(clap::value_parser!(PathBuf)),
        ParamKind::Records | ParamKind::Files => value(a)
            .value_parser(clap::value_parser!(PathBuf))
            .required(true),
        ParamKind::Model | ParamKind::Text => value(a).required(true),
        ParamKind::OptionalModel => value(a),
        ParamKind::Models => a
            .value_name(value_name)
            .action(ArgAction::Append)
            .value_delimiter(',')
            .required(true),
        ParamKind::Texts => a.value_name(value_name).action(ArgAction::Append),
        ParamKind::Count {
            default, missing, ..
        } => {
            let a = value(a)
                .value_parser(clap::value_parser!(u64))
                .default_value(default.to_string());
            match missing {
                Some(m) => a.num_args(0..=1).default_missing_value(m.to_string()),
                None => a,
            }
        }
        ParamKind::OptionalCount { required } => value(a)
            .value_parser(clap::value_parser!(u64))
            .required(required),
        ParamKind::Pick { .. } => value(a)
            .value_parser(clap::value_parser!(u64))
            .required(true),
        ParamKind::Number { default } => {
            let a = value(a).value_parser(clap::value_parser!(f64));
            match default {
                Some(d) => a.default_value(d.to_string()),
                None => a,
            }
        }
        ParamKind::Switch { .. } => a.action(ArgAction::SetTrue),
    }
}

/// What clap parsed, as the plan reads it.
pub fn from_matches(spec: &RunSpec, matches: &ArgMatches) -> RunValues {
    let mut values = RunValues::new(false);
    for p in spec.params.iter().filter(|p| p.on != On::Http) {
        let id = p.name;
        let one_path = || matches.get_one::<PathBuf>(id).cloned();
        let one_text = || matches.get_one::<String>(id).cloned();
        let value = match p.kind {
            ParamKind::Path { .. } | ParamKind::Records | ParamKind::Files => {
                one_path().map(RunValue::Path)
            }
            ParamKind::Paths => Some(RunValue::Paths(
                matches
                    .get_many::<PathBuf>(id)
                    .map(|v| v.cloned().collect())
                    .unwrap_or_default(),
            )),
            ParamKind::Model | ParamKind::OptionalModel | ParamKind::Text => {
                one_text().map(RunValue::Text)
            }
            ParamKind::Models | ParamKind::Texts => Some(RunValue::Texts(
                matches
                    .get_many::<String>(id)
                    .map(|v| v.cloned().collect())
                    .unwrap_or_default(),
            )),
            ParamKind::Count { .. } | ParamKind::OptionalCount { .. } | ParamKind::Pick { .. } => {
                matches.get_one::<u64>(id).copied().map(RunValue::Count)
            }
            ParamKind::Number { .. } => Some(RunValue::Number(matches.get_one::<f64>(id).copied())),
            ParamKind::Switch { .. } => Some(RunValue::Switch(matches.get_flag(id))),
        };
        if let Some(value) = value {
            values.set(id, value);
        }
    }
    // Fields of the body only hold their defaults on the command line.
    for p in spec.params.iter().filter(|p| p.on == On::Http) {
        if let Ok(value) = read_field(p, None) {
            values.set(p.name, value);
        }
    }
    values
}

/// The body of `POST /api/v1/runs` (the whole object, `benchmark` included; other keys are
/// ignored), read field by field: a missing required field, a value of the wrong type, or a
/// model no upstream serves (`served` says which are) is an input error naming the field.
pub fn from_body(
    spec: &RunSpec,
    body: &Value,
    served: &dyn Fn(&str) -> bool,
) -> Result<RunValues, RunError> {
    let mut values = RunValues::new(true);
    let object = body
        .as_object()
        .ok_or_else(|| RunError::Input("not a run request: expected a JSON object".into()))?;
    for p in spec.params.iter().filter(|p| p.in_body()) {
        let field = object.get(p.name);
        let value = read_field(p, field)?;
        match &value {
            RunValue::Text(model)
                if matches!(p.kind, ParamKind::Model | ParamKind::OptionalModel) =>
            {
                check_served(served, model)?
            }
            RunValue::Texts(models) if matches!(p.kind, ParamKind::Models) => {
                for model in models {
                    check_served(served, model)?;
                }
            }
            _ => {}
        }
        values.set(p.name, value);
    }
    Ok(values)
}

fn read_field(p: &Param, field: Option<&Value>) -> Result<RunValue, RunError> {
    let name = p.name;
    let missing = || RunError::Input(format!("not a run request: missing field `{name}`"));
    // Absent and (for optional fields) null are the same.
    let given = field.filter(|v| !v.is_null());
    Ok(match p.kind {
        ParamKind::Records => RunValue::Records(typed(name, field.ok_or_else(missing)?)?),
        ParamKind::Files => {
            RunValue::Files(typed::<Vec<NamedFile>>(name, field.ok_or_else(missing)?)?)
        }
        ParamKind::Model | ParamKind::Text => {
            RunValue::Text(typed(name, field.ok_or_else(missing)?)?)
        }
        ParamKind::Models => RunValue::Texts(typed(name, field.ok_or_else(missing)?)?),
        ParamKind::OptionalModel => match given {
            Some(v) => RunValue::Text(typed(name, v)?),
            None => RunValue::Absent,
        },
        ParamKind::Texts => match given {
            Some(v) => RunValue::Texts(typed(name, v)?),
            None => RunValue::Texts(Vec::new()),
        },
        ParamKind::Paths => RunValue::Paths(Vec::new()),
        ParamKind::Path { .. } => RunValue::Absent,
        ParamKind::Count { default, .. } => RunValue::Count(match field {
            Some(v) => typed(name, v)?,
            None => default,
        }),
        ParamKind::OptionalCount { required } => match given {
            Some(v) => RunValue::Count(typed(name, v)?),
            None if required => return Err(missing()),
            None => RunValue::Absent,
        },
        ParamKind::Pick { .. } => RunValue::Count(typed(name, field.ok_or_else(missing)?)?),
        // Absent: the default; null: none.
        ParamKind::Number { default } => RunValue::Number(match field {
            None => default,
            Some(v) => typed::<Option<f64>>(name, v)?,
        }),
        ParamKind::Switch { default } => RunValue::Switch(match field {
            Some(v) => typed(name, v)?,
            None => default,
        }),
    })
}

fn typed<T: DeserializeOwned>(name: &str, value: &Value) -> Result<T, RunError> {
    T::deserialize(value).map_err(|e| RunError::Input(format!("not a run request: {name}: {e}")))
}

/// The model of an HTTP run request must be served by a configured upstream.
fn check_served(served: &dyn Fn(&str) -> bool, model: &str) -> Result<(), RunError> {
    if !served(model) {
        return Err(RunError::Input(format!(
            "model {model:?} is not served here: GET /api/v1/models lists the allowed models"
        )));
    }
    Ok(())
}

/// Whether an upstream of `gateway` serves `model`.
pub fn served_by(gateway: &Gateway) -> impl Fn(&str) -> bool + '_ {
    |model| gateway.upstreams.route(model).is_some()
}

/// The run named `key` as the workbench describes it.
pub fn spec(key: &str) -> Option<&'static RunSpec> {
    workbench::registry::run(key).map(|(_, spec)| spec)
}
