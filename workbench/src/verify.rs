//! Bit-for-bit comparison of two reports of the same files: what `scorebench leaderboard verify`,
//! the server's check of a client's numbers on publish, and the page's "Verify in my browser"
//! all use, so the three agree on what "the same number" means (the same `f64` bits).

use metrics_core::Report;
use metrics_core::report::{MetricValue, Metrics};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One value two reports disagree on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// `overall.score`, `subsets[7_Math_ShortAns].qwk`, `overall.n`, …
    pub at: String,
    pub server: Value,
    pub other: Value,
}

fn same_bits(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(p), Some(q)) if x.is_f64() || y.is_f64() => p.to_bits() == q.to_bits(),
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_bits(p, q))
        }
        _ => a == b,
    }
}

/// One file a board publishes, as a verifier found it. The rule `scorebench leaderboard verify`
/// and the page's "Verify in my browser" follow:
/// every published file is downloaded and hashed, and its SHA-256 must be the published one,
/// whether or not the entry's scoring job reads it (SAS-Bench prediction files do not read the
/// dataset files a board's gold also holds: such a file is "not used by this entry", its hash
/// checked all the same).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCheck {
    pub name: String,
    /// The SHA-256 the board lists.
    pub published: String,
    /// The SHA-256 of the bytes the verifier downloaded (`None`: not downloaded or not hashed).
    pub computed: Option<String>,
    /// The re-scoring read the file (it is among the report's inputs).
    pub used: bool,
}

/// What a [`FileCheck`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileStatus {
    /// The published hash, and the entry's scoring read the file.
    Same,
    /// The published hash; the entry's scoring does not read the file.
    SameNotUsed,
    /// Another hash: the file is not the one the board published.
    Differs,
    /// No hash was computed (the download failed).
    NotHashed,
}

impl FileCheck {
    pub fn status(&self) -> FileStatus {
        match &self.computed {
            None => FileStatus::NotHashed,
            Some(sha) if *sha != self.published => FileStatus::Differs,
            Some(_) if self.used => FileStatus::Same,
            Some(_) => FileStatus::SameNotUsed,
        }
    }

    /// The hash is the published one.
    pub fn same(&self) -> bool {
        matches!(self.status(), FileStatus::Same | FileStatus::SameNotUsed)
    }
}

/// Check every published file — `(name, published SHA-256, the SHA-256 the verifier computed of
/// the bytes it downloaded for that listing)`, paired by the listing, not by name (an entry file
/// may carry a gold file's name) — `used` when the report's inputs name it.
pub fn check_files<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a str, Option<String>)>,
    report: Option<&Report>,
) -> Vec<FileCheck> {
    files
        .into_iter()
        .map(|(name, published, computed)| FileCheck {
            name: name.to_string(),
            published: published.to_string(),
            computed,
            used: report.is_some_and(|r| r.inputs.iter().any(|i| i.path == name)),
        })
        .collect()
}

/// The outcome of verifying one entry: its files, the metric differences and a failed
/// re-scoring.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub files: Vec<FileCheck>,
    pub differences: Vec<Difference>,
    /// The re-scoring failed (the message names the file).
    pub error: Option<String>,
}

impl Verdict {
    /// Compare the published report and files ([`check_files`]) with what the verifier
    /// computed (`ours`: the re-scoring's report, or why it failed).
    pub fn new<'a>(
        published_report: &Report,
        files: impl IntoIterator<Item = (&'a str, &'a str, Option<String>)>,
        ours: Result<&Report, String>,
    ) -> Verdict {
        let report = ours.as_ref().ok().copied();
        Verdict {
            files: check_files(files, report),
            differences: report.map_or_else(Vec::new, |r| metric_differences(published_report, r)),
            error: ours.err(),
        }
    }

    /// Every file has its published hash, the re-scoring ran, and no value differs.
    pub fn identical(&self) -> bool {
        self.error.is_none()
            && self.differences.is_empty()
            && self.files.iter().all(FileCheck::same)
    }

    /// The files whose hash is not the published one (or was not computed).
    pub fn bad_files(&self) -> impl Iterator<Item = &FileCheck> {
        self.files.iter().filter(|f| !f.same())
    }
}

type Section<'a> = (String, Option<&'a Metrics>, Option<usize>);

/// Every metric (overall and per subset, scalars and vectors) and every `n` on which `other`
/// differs from `server` in any bit; a metric or subset missing on one side is a difference.
pub fn metric_differences(server: &Report, other: &Report) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut compare = |at: String, a: Value, b: Value| {
        if !same_bits(&a, &b) {
            out.push(Difference {
                at,
                server: a,
                other: b,
            });
        }
    };
    let value = |v: Option<&MetricValue>| {
        v.map_or(Value::String("(missing)".into()), |v| {
            serde_json::to_value(v).unwrap_or(Value::Null)
        })
    };
    let mut sections: Vec<Section<'_>> = vec![(
        "overall".into(),
        Some(&server.overall.metrics),
        Some(server.overall.n),
    )];
    let mut theirs: Vec<Section<'_>> = vec![(
        "overall".into(),
        Some(&other.overall.metrics),
        Some(other.overall.n),
    )];
    let mut names: Vec<&str> = server.subsets.iter().map(|s| s.name.as_str()).collect();
    for s in &other.subsets {
        if !names.contains(&s.name.as_str()) {
            names.push(&s.name);
        }
    }
    for name in names {
        let a = server.subsets.iter().find(|s| s.name == name);
        let b = other.subsets.iter().find(|s| s.name == name);
        sections.push((
            format!("subsets[{name}]"),
            a.map(|s| &s.metrics),
            a.map(|s| s.n),
        ));
        theirs.push((
            format!("subsets[{name}]"),
            b.map(|s| &s.metrics),
            b.map(|s| s.n),
        ));
    }
    for ((at, a, an), (_, b, bn)) in sections.into_iter().zip(theirs) {
        compare(
            format!("{at}.n"),
            an.map_or(Value::Null, Value::from),
            bn.map_or(Value::Null, Value::from),
        );
        let mut keys: Vec<&String> = a.map(|m| m.keys().collect()).unwrap_or_default();
        for k in b.map(|m| m.keys().collect::<Vec<_>>()).unwrap_or_default() {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        for k in keys {
            compare(
                format!("{at}.{k}"),
                value(a.and_then(|m| m.get(k))),
                value(b.and_then(|m| m.get(k))),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use metrics_core::report::{Overall, Subset};

    fn report(score: f64, subset_n: usize) -> Report {
        let mut metrics = metrics_core::report::Metrics::new();
        metrics.insert("score".into(), MetricValue::Scalar(Some(score)));
        Report {
            benchmark: "pairs".into(),
            variant: "official".into(),
            inputs: vec![],
            overall: Overall {
                n: 3,
                metrics: metrics.clone(),
            },
            subsets: vec![Subset {
                name: "a".into(),
                n: subset_n,
                metrics,
            }],
            samples: None,
            warnings: vec![],
        }
    }

    fn input(path: &str, sha: &str) -> metrics_core::InputFile {
        metrics_core::InputFile {
            path: path.into(),
            sha256: sha.into(),
        }
    }

    #[test]
    fn a_file_the_job_does_not_read_is_checked_not_accused() {
        let mut ours = report(0.5, 3);
        ours.inputs = vec![input("a_prediction.jsonl", "aa")];
        let published = [
            ("a_prediction.jsonl", "aa"),
            ("7_Math_ShortAns.jsonl", "dd"),
            ("error_type.jsonl", "ee"),
        ];
        let with = |computed: [&str; 3]| {
            published
                .iter()
                .zip(computed)
                .map(|((name, sha), c)| (*name, *sha, (!c.is_empty()).then(|| c.to_string())))
                .collect::<Vec<_>>()
        };
        let v = Verdict::new(&ours, with(["aa", "dd", "ee"]), Ok(&ours));
        let status: Vec<FileStatus> = v.files.iter().map(FileCheck::status).collect();
        assert_eq!(
            status,
            [
                FileStatus::Same,
                FileStatus::SameNotUsed,
                FileStatus::SameNotUsed
            ]
        );
        assert!(v.identical());

        // An unused file altered after publishing still fails, named.
        let v = Verdict::new(&ours, with(["aa", "d0", "ee"]), Ok(&ours));
        assert!(!v.identical());
        let bad: Vec<&str> = v.bad_files().map(|f| f.name.as_str()).collect();
        assert_eq!(bad, ["7_Math_ShortAns.jsonl"]);
        assert_eq!(v.files[1].status(), FileStatus::Differs);

        // Two files of one name are each checked against their own listing.
        let twins = [
            ("p.json", "11", Some("11".into())),
            ("p.json", "22", Some("11".into())),
        ];
        let v = Verdict::new(&ours, twins, Ok(&ours));
        assert_eq!(v.bad_files().count(), 1);

        // A file that could not be hashed is not "the same"; a failed re-scoring is not identical.
        let v = Verdict::new(&ours, with(["", "", ""]), Err("x.jsonl:3: bad".into()));
        assert!(v.files.iter().all(|f| f.status() == FileStatus::NotHashed));
        assert!(!v.identical());
    }

    #[test]
    fn differences_are_found_in_the_last_bit() {
        let a = report(0.1 + 0.2, 3);
        assert!(metric_differences(&a, &a.clone()).is_empty());
        let b = report(0.3, 3);
        let d = metric_differences(&a, &b);
        assert_eq!(
            d.iter().map(|d| d.at.as_str()).collect::<Vec<_>>(),
            ["overall.score", "subsets[a].score"]
        );
        let c = report(0.1 + 0.2, 4);
        assert_eq!(metric_differences(&a, &c)[0].at, "subsets[a].n");
    }
}
