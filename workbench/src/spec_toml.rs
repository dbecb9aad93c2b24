//! A benchmark spec read from its TOML text (feature `toml`: the CLI, the server and the
//! browser's spec module read the same way): the [`Spec`] model and its checks are
//! metrics-core's; this
//! module adds what the file format knows — the line of every error.
//!
//! ```text
//! TOML syntax, an unknown key, a wrong type   toml's own error, at its span
//! a contradiction (Spec::validate)            the path of the key at fault, found in the
//!                                             document's spanned tables (toml::de::DeTable)
//! ```

use metrics_core::InputError;
use metrics_core::spec::Spec;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// The largest spec file read (a spec is a page of TOML).
pub const MAX_SPEC_BYTES: usize = 1 << 20;

/// Parse and check a spec's TOML text; `name` names it in errors.
pub fn parse(name: &str, text: &str) -> Result<Spec, InputError> {
    if text.len() > MAX_SPEC_BYTES {
        return Err(InputError::whole_file(
            name,
            format!("a spec is at most {MAX_SPEC_BYTES} bytes"),
        ));
    }
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

/// A spec as TOML text (the page's form saves the spec it made as a file the CLI, servers and
/// boards read: [`parse`] gives the same spec back).
pub fn write(spec: &Spec) -> Result<String, String> {
    toml::to_string(spec).map_err(|e| format!("cannot write the spec as TOML: {e}"))
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
    let doc = DeTable::parse(text).ok()?;
    let mut span = None;
    let mut table: Option<&DeTable<'_>> = Some(doc.get_ref());
    let mut array: Option<&[Spanned<DeValue<'_>>]> = None;
    for part in path {
        let next: Option<&Spanned<DeValue<'_>>> = match (table, array, part.parse::<usize>()) {
            (_, Some(items), Ok(i)) => items.get(i),
            (Some(t), _, _) => t.iter().find(|(k, _)| k.get_ref() == part).map(|(k, v)| {
                span = Some(k.span());
                v
            }),
            _ => None,
        };
        let Some(next) = next else {
            break;
        };
        if span.as_ref().is_none_or(|s| next.span().start >= s.start) {
            span = Some(next.span());
        }
        (table, array) = match next.get_ref() {
            DeValue::Table(t) => (Some(t), None),
            DeValue::Array(a) => (None, Some(&a[..])),
            _ => (None, None),
        };
    }
    span.map(|s| line_at(text, s.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAIRS: &str = include_str!("../../specs/examples/pairs.toml");
    const ASAP: &str = include_str!("../../specs/examples/asap-aes.toml");

    fn at(text: &str) -> (Option<usize>, String) {
        let e = parse("s.toml", text).unwrap_err();
        (e.line, e.message)
    }

    fn line_of(text: &str, starts: &str) -> Option<usize> {
        Some(text.lines().position(|l| l.starts_with(starts)).unwrap() + 1)
    }

    #[test]
    fn errors_carry_the_spec_file_line() {
        // An unknown key (toml's error at its span).
        let text = PAIRS.replace("metric = \"pearson\"", "metric = \"pearson\"\nlables = [1]");
        let (line, message) = at(&text);
        assert_eq!(line, line_of(&text, "lables"), "{message}");
        assert!(message.contains("unknown field `lables`"), "{message}");
        // A contradiction in an array of tables (the path of the key, found in the document).
        let text = PAIRS.replace(
            "metric = \"pearson\"",
            "metric = \"pearson\"\nlabels = [0, 1]",
        );
        let (line, message) = at(&text);
        assert_eq!(line, line_of(&text, "labels"), "{message}");
        assert_eq!(
            message,
            "metrics[1].labels: `labels` applies to qwk with formula = \"sklearn\" only"
        );
        // In a variant's inline table.
        let text = ASAP.replace("pred = \"round\"", "pred = \"round\"\nlabels = [1]");
        let (line, message) = at(&text);
        assert_eq!(line, line_of(&text, "labels = [1]"), "{message}");
        assert!(
            message.starts_with("variants[0].metrics.qwk.labels: "),
            "{message}"
        );
        // A key whose value is at fault, at top level.
        let text = ASAP.replace("primary = \"mean_qwk_fisher\"", "primary = \"qwk\"");
        assert_eq!(at(&text).0, line_of(&text, "primary"));
        // A TOML syntax error.
        assert_eq!(at("name = \"x\"\nkey = \n").0, Some(2));
        // A missing required key: the whole file.
        let (_, message) = at("name = \"x\"\n");
        assert!(message.contains("missing field `key`"), "{message}");
    }

    #[test]
    fn the_shipped_examples_and_the_documented_one_are_valid() {
        let doc = include_str!("../../docs/benchmark-spec.md");
        let body = &doc[doc.find("## A whole example").unwrap()..];
        let body = &body[body.find("```toml\n").unwrap() + 8..];
        let example = &body[..body.find("```").unwrap()];
        assert_eq!(
            parse("doc.toml", example).unwrap().overall_keys(),
            ["qwk", "macro_qwk", "mae"]
        );
        for text in [PAIRS, ASAP] {
            parse("example.toml", text).unwrap();
        }
    }
}
