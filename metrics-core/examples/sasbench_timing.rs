//! In-process SAS-Bench timing on a golden case directory (`datasets/` with the gold files and
//! `error_type.jsonl`, `datasets_GoldenModel_Scored/` with `*_scored.jsonl` and
//! `*_prediction.jsonl`): `cargo run --release -p metrics-core --example sasbench_timing CASE
//! [RUNS]`. Prints the best (least disturbed) time over RUNS (default 11) of each stage, for both modes.

use std::path::Path;
use std::time::Instant;

use metrics_core::report::InputFile;
use metrics_core::sasbench::{
    self, NamedText, RawFile, RawInputs, ReportOptions, SasInputs, Taxonomy, Variant, format,
    subset_name,
};

fn read_dir(dir: &Path, suffix: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.display().to_string();
        if name.ends_with(suffix) {
            out.push((
                name,
                std::fs::read_to_string(&path).map_err(|e| e.to_string())?,
            ));
        }
    }
    out.sort();
    Ok(out)
}

/// As the CLI calls the library: no samples unless asked, inputs hashed on another thread.
const CLI: ReportOptions = ReportOptions {
    samples: false,
    input_hashes: false,
};

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

fn best(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[0]
}

#[derive(Default)]
struct Stages {
    parse: Vec<f64>,
    ccs: Vec<f64>,
    qwk: Vec<f64>,
    ecs: Vec<f64>,
    sha256: Vec<f64>,
    report: Vec<f64>,
    json: Vec<f64>,
}

impl Stages {
    fn print(self, mode: &str) {
        println!(
            "in-process {mode}: parse {:.2} ms, ccs {:.2} ms, qwk {:.2} ms, ecs {:.2} ms, input sha256 {:.2} ms (CLI: on a second thread); library call as the CLI makes it {:.2} ms + JSON output {:.2} ms",
            best(self.parse),
            best(self.ccs),
            best(self.qwk),
            best(self.ecs),
            best(self.sha256),
            best(self.report),
            best(self.json),
        );
    }
}

/// Time the scorers on parsed files.
fn score_stages(
    stages: &mut Stages,
    taxonomy: &Taxonomy,
    files: &[(String, Vec<sasbench::Response>)],
) -> Result<(), String> {
    let (mut ccs_ms, mut ecs_ms, mut qwk_ms) = (0.0, 0.0, 0.0);
    for (name, responses) in files {
        let slots = taxonomy.slots(format::file_id(&subset_name(name)));
        let t = Instant::now();
        let v = sasbench::ScoreVectors::from_responses(responses).map_err(|e| e.message)?;
        let _ = sasbench::ccs::ccs(&v, Variant::Official);
        ccs_ms += ms(t);
        let t = Instant::now();
        let _ = sasbench::ccs::qwk(responses, Variant::Official);
        qwk_ms += ms(t);
        let t = Instant::now();
        let _ = sasbench::ecs::ecs(responses, &slots, Variant::Official);
        ecs_ms += ms(t);
    }
    stages.ccs.push(ccs_ms);
    stages.qwk.push(qwk_ms);
    stages.ecs.push(ecs_ms);
    Ok(())
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let (case, runs) = match args.as_slice() {
        [_, case] => (case, 11),
        [_, case, runs] => (case, runs.parse().map_err(|e| format!("RUNS: {e}"))?),
        _ => return Err("usage: sasbench_timing CASE_DIR [RUNS]".into()),
    };
    let case = Path::new(case);
    let scored_dir = case.join("datasets_GoldenModel_Scored");
    let predictions = read_dir(&scored_dir, "_prediction.jsonl")?;
    let scored = read_dir(&scored_dir, "_scored.jsonl")?;
    let taxonomy_name = case.join("datasets/error_type.jsonl").display().to_string();
    let taxonomy_text = std::fs::read_to_string(&taxonomy_name).map_err(|e| e.to_string())?;
    let datasets: Vec<(String, String)> = scored
        .iter()
        .map(|(name, _)| {
            let path = case
                .join("datasets")
                .join(format!("{}.jsonl", subset_name(name)));
            let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            Ok((path.display().to_string(), text))
        })
        .collect::<Result<_, String>>()?;
    let taxonomy = NamedText {
        name: &taxonomy_name,
        text: &taxonomy_text,
    };
    let sas_inputs = SasInputs {
        taxonomy,
        predictions: predictions
            .iter()
            .map(|(name, text)| NamedText { name, text })
            .collect(),
    };
    let raw_inputs = RawInputs {
        taxonomy,
        files: datasets
            .iter()
            .zip(&scored)
            .map(|((dn, dt), (sn, st))| RawFile {
                dataset: NamedText { name: dn, text: dt },
                scored: NamedText { name: sn, text: st },
            })
            .collect(),
    };
    let n: usize = predictions.iter().map(|(_, t)| t.lines().count()).sum();
    println!(
        "{n} responses in {} files, best of {runs} runs",
        predictions.len()
    );

    let mut pred = Stages::default();
    let mut raw = Stages::default();
    for _ in 0..runs {
        // Prediction files.
        let t = Instant::now();
        let tax = Taxonomy::parse(taxonomy.name, taxonomy.text).map_err(|e| e.to_string())?;
        let mut files = Vec::new();
        for (name, text) in &predictions {
            let responses = format::parse_predictions(name, text).map_err(|e| e.to_string())?;
            files.push((name.clone(), responses));
        }
        pred.parse.push(ms(t));
        score_stages(&mut pred, &tax, &files)?;
        let t = Instant::now();
        for (name, text) in
            std::iter::once(&(taxonomy_name.clone(), taxonomy_text.clone())).chain(&predictions)
        {
            let _ = InputFile::from_bytes(name.as_str(), text.as_bytes());
        }
        pred.sha256.push(ms(t));
        let t = Instant::now();
        let report = sasbench::score_predictions_with(&sas_inputs, Variant::Official, CLI)
            .map_err(|e| e.to_string())?;
        pred.report.push(ms(t));
        let t = Instant::now();
        let _ = std::hint::black_box(report.to_json_pretty());
        pred.json.push(ms(t));

        // Raw replies.
        let t = Instant::now();
        let mut files = Vec::new();
        for file in &raw_inputs.files {
            let responses = sasbench::process_raw_file(file).map_err(|e| e.to_string())?;
            files.push((file.scored.name.to_string(), responses));
        }
        raw.parse.push(ms(t));
        score_stages(&mut raw, &tax, &files)?;
        let t = Instant::now();
        let _ = InputFile::from_bytes(taxonomy.name, taxonomy.text.as_bytes());
        for file in &raw_inputs.files {
            let _ = InputFile::from_bytes(file.dataset.name, file.dataset.text.as_bytes());
            let _ = InputFile::from_bytes(file.scored.name, file.scored.text.as_bytes());
        }
        raw.sha256.push(ms(t));
        let t = Instant::now();
        let report = sasbench::score_raw_with(&raw_inputs, Variant::Official, CLI)
            .map_err(|e| e.to_string())?;
        raw.report.push(ms(t));
        let t = Instant::now();
        let _ = std::hint::black_box(report.to_json_pretty());
        raw.json.push(ms(t));
    }
    pred.print("prediction files");
    raw.print("raw replies (step 2 included in parse)");
    Ok(())
}
