//! Benchmark spec files on disk (`docs/benchmark-spec.md`): read (at most 1 MiB), parsed by
//! [`workbench::spec_toml`] (errors at the spec file's line), hashed, registered; and
//! `score --spec`'s files given their roles.

use std::path::Path;

use metrics_core::InputError;
use metrics_core::spec::Spec;
use sha2::{Digest, Sha256};

use super::files::{self, ScoreError, load_with_limit};

/// The largest spec file read (a spec is a page of TOML).
pub const MAX_SPEC_BYTES: u64 = workbench::spec_toml::MAX_SPEC_BYTES as u64;

/// A spec read from a file: the spec, and the SHA-256 of the file's bytes (what a board shows
/// and what a visitor's browser checks).
#[derive(Debug, Clone)]
pub struct LoadedSpec {
    pub spec: Spec,
    pub sha256: String,
    /// The file's text, as published with a board.
    pub text: String,
}

/// Read and check the spec file at `path`.
pub fn load(path: &Path) -> Result<LoadedSpec, ScoreError> {
    let file = load_with_limit(path, MAX_SPEC_BYTES)?;
    let text = file.text()?.to_string();
    let spec = parse(&file.name, &text)?;
    Ok(LoadedSpec {
        spec,
        sha256: hex::encode(Sha256::digest(&file.bytes)),
        text,
    })
}

/// [`load`], then register the spec in the workbench's registry (so its reports have the
/// spec's table and `benchmarks` lists it). A key in use by a built-in benchmark or by another
/// spec is an error naming the file.
pub fn load_registered(path: &Path) -> Result<LoadedSpec, ScoreError> {
    let loaded = load(path)?;
    workbench::registry::register_spec(loaded.spec.clone(), loaded.text.clone().into_bytes())
        .map_err(|why| {
            ScoreError::Input(InputError::whole_file(&path.display().to_string(), why))
        })?;
    Ok(loaded)
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
    loaded: &LoadedSpec,
    paths: &[std::path::PathBuf],
    variant: &str,
    samples: bool,
) -> Result<metrics_core::Report, ScoreError> {
    let spec = &loaded.spec;
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
