//! Benchmark spec files (`docs/benchmark-spec.md`): read (at most 1 MiB), parsed by
//! [`workbench::spec_toml`] (errors at the spec file's line), registered (the registry keeps
//! the bytes and their SHA-256); and
//! `score --spec`'s files given their roles.

use std::path::Path;

use metrics_core::InputError;
use metrics_core::spec::Spec;

use super::files::{self, ScoreError, load_with_limit};

/// The largest spec file read (a spec is a page of TOML).
pub const MAX_SPEC_BYTES: u64 = workbench::spec_toml::MAX_SPEC_BYTES as u64;

/// Parse, check and register the spec in a file's bytes (`name` names it in errors): UTF-8
/// TOML, at most [`MAX_SPEC_BYTES`]; its registry entry keeps the bytes and their SHA-256 (what a
/// board publishes). The same spec again is the entry already registered; a key in use by a
/// built-in benchmark or by another spec is an error naming the file.
pub fn register(
    name: &str,
    bytes: Vec<u8>,
) -> Result<&'static workbench::benchmarks::spec::SpecBenchmark, InputError> {
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| InputError::whole_file(name, format!("a spec is UTF-8 text: {e}")))?;
    let spec = parse(name, text)?;
    workbench::registry::register_spec(spec, bytes).map_err(|why| InputError::whole_file(name, why))
}

/// Read the spec file at `path` and [`register`] it (so its reports have the spec's table and
/// `benchmarks` lists it).
pub fn load_registered(
    path: &Path,
) -> Result<&'static workbench::benchmarks::spec::SpecBenchmark, ScoreError> {
    let file = load_with_limit(path, MAX_SPEC_BYTES)?;
    Ok(register(&file.name, file.bytes)?)
}

/// Parse and check a spec's TOML text; `name` names it in errors (the workbench's reader,
/// the one the browser worker uses).
pub fn parse(name: &str, text: &str) -> Result<Spec, InputError> {
    workbench::spec_toml::parse(name, text)
}

/// `scorebench score --spec FILE.toml FILE…`: the files given to their roles, scored.
///
/// Files go to roles by what their heads show ([`metrics_core::spec::read::recognises`]: a
/// header or first object with the role's fields): the first assignment in which every file
/// is recognised by its role, else the spec's order of roles.
pub fn score(
    path: &Path,
    spec: &Spec,
    paths: &[std::path::PathBuf],
    variant: &str,
    samples: bool,
) -> Result<metrics_core::Report, ScoreError> {
    let roles: Vec<&str> = spec.files.keys().map(String::as_str).collect();
    if paths.len() != roles.len() {
        return Err(ScoreError::Usage(format!(
            "{}: the spec `{}` takes {} file{} ({}), given {}",
            path.display(),
            spec.key,
            roles.len(),
            if roles.len() == 1 { "" } else { "s" },
            roles.join(", "),
            paths.len()
        )));
    }
    if !spec.variant_names().contains(&variant) {
        return Err(ScoreError::Usage(format!(
            "{}: the spec `{}` has no variant `{variant}` (it has: {})",
            path.display(),
            spec.key,
            spec.variant_names().join(", ")
        )));
    }
    let files = paths
        .iter()
        .map(|p| files::load(p))
        .collect::<Result<Vec<_>, _>>()?;
    let heads: Vec<String> = files
        .iter()
        .map(|f| {
            let head = &f.bytes[..f.bytes.len().min(64 * 1024)];
            String::from_utf8_lossy(head).into_owned()
        })
        .collect();
    let order = assign(spec, &heads).unwrap_or_else(|| (0..roles.len()).collect());
    let given: Vec<(&str, &str, &[u8])> = order
        .iter()
        .zip(&roles)
        .map(|(&i, role)| (*role, files[i].name.as_str(), files[i].bytes.as_slice()))
        .collect();
    Ok(metrics_core::spec::score(spec, &given, variant, samples)?.report)
}

/// For each role in order, the index of the file it reads: the first permutation in which
/// every role recognises its file.
fn assign(spec: &Spec, heads: &[String]) -> Option<Vec<usize>> {
    let fits: Vec<Vec<bool>> = spec
        .files
        .values()
        .map(|f| {
            heads
                .iter()
                .map(|h| metrics_core::spec::read::recognises(f, h))
                .collect()
        })
        .collect();
    fn search(fits: &[Vec<bool>], role: usize, used: &mut Vec<bool>, out: &mut Vec<usize>) -> bool {
        if role == fits.len() {
            return true;
        }
        for file in 0..used.len() {
            if !used[file] && fits[role][file] {
                used[file] = true;
                out.push(file);
                if search(fits, role + 1, used, out) {
                    return true;
                }
                out.pop();
                used[file] = false;
            }
        }
        false
    }
    let mut out = Vec::new();
    search(&fits, 0, &mut vec![false; heads.len()], &mut out).then_some(out)
}
