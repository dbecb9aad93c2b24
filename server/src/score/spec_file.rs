//! Benchmark specs read from TOML (`docs/benchmark-spec.md`): the [`Spec`] model and its checks
//! are metrics-core's; this module adds what the file format knows — the line of every error.
//!
//! ```text
//! TOML syntax, an unknown key, a wrong type   toml's own error, at its span
//! a contradiction (Spec::validate)            the path of the key at fault, found in the
//!                                             document (toml_edit keeps every item's span)
//! ```

use std::path::Path;

use metrics_core::InputError;
use metrics_core::spec::Spec;
use sha2::{Digest, Sha256};

use super::files::{self, ScoreError, load_with_limit};

/// The largest spec file read (a spec is a page of TOML).
pub const MAX_SPEC_BYTES: u64 = 1 << 20;

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

/// Parse and check a spec's TOML text; `name` names it in errors.
pub fn parse(name: &str, text: &str) -> Result<Spec, InputError> {
    let spec: Spec = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_at(text, s.start));
        InputError::new(name, line, e.message().trim_end().to_string())
    })?;
    spec.validate().map_err(|e| {
        let line = line_of_path(text, &e.path);
        InputError::new(name, line, e.to_string())
    })?;
    Ok(spec)
}

/// The 1-based line of byte `at`.
fn line_at(text: &str, at: usize) -> usize {
    1 + text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// The line of the deepest item of `path` the document has (a missing key: its table's line).
fn line_of_path(text: &str, path: &[String]) -> Option<usize> {
    let doc = toml_edit::ImDocument::parse(text).ok()?;
    let mut item = doc.as_item();
    let mut span = None;
    for part in path {
        let next = match part.parse::<usize>() {
            Ok(i) => item.get(i),
            Err(_) => {
                if let Some(key_span) = item
                    .as_table_like()
                    .and_then(|t| t.key(part))
                    .and_then(|k| k.span())
                {
                    span = Some(key_span);
                }
                item.get(part.as_str())
            }
        };
        let Some(next) = next else {
            break;
        };
        item = next;
        if let Some(s) = item.span() {
            span = Some(s);
        }
    }
    span.map(|s| line_at(text, s.start))
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

#[cfg(test)]
mod tests {
    use super::*;

    const PAIRS: &str = include_str!("../../../specs/examples/pairs.toml");

    #[test]
    fn errors_carry_the_spec_file_line() {
        let at = |text: &str| {
            let e = parse("s.toml", text).unwrap_err();
            (e.line, e.message)
        };
        // An unknown key (toml's error at its span).
        let text = PAIRS.replace("metric = \"pearson\"", "metric = \"pearson\"\nlables = [1]");
        let (line, message) = at(&text);
        let want = text.lines().position(|l| l.starts_with("lables")).unwrap() + 1;
        assert_eq!(line, Some(want), "{message}");
        assert!(message.contains("unknown field `lables`"), "{message}");
        // A contradiction (the path of the key found in the document).
        let text = PAIRS.replace(
            "metric = \"pearson\"",
            "metric = \"pearson\"\nlabels = [0, 1]",
        );
        let (line, message) = at(&text);
        let want = text.lines().position(|l| l.starts_with("labels")).unwrap() + 1;
        assert_eq!(line, Some(want), "{message}");
        assert_eq!(
            message,
            "metrics[1].labels: `labels` applies to qwk with formula = \"sklearn\" only"
        );
        // A TOML syntax error.
        let (line, _) = at("name = \"x\"\nkey = \n");
        assert_eq!(line, Some(2));
        // A missing required key: the whole file.
        let (_, message) = at("name = \"x\"\n");
        assert!(message.contains("missing field `key`"), "{message}");
    }

    #[test]
    fn the_documented_example_is_valid() {
        let doc = include_str!("../../../docs/benchmark-spec.md");
        let start = doc.find("## A whole example\n\n```toml\n").unwrap();
        let body = &doc[start..];
        let body = &body[body.find("```toml\n").unwrap() + 8..];
        let example = &body[..body.find("```").unwrap()];
        let spec = parse("doc.toml", example).unwrap();
        assert_eq!(spec.overall_keys(), ["qwk", "macro_qwk", "mae"]);
    }

    #[test]
    fn the_shipped_examples_are_valid() {
        for text in [PAIRS, include_str!("../../../specs/examples/asap-aes.toml")] {
            parse("example.toml", text).unwrap();
        }
    }
}
