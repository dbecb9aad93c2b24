//! In-process SAS-Bench timing on a directory of `*_prediction.jsonl` files and a taxonomy:
//! `cargo run --release -p metrics-core --example sasbench_timing DIR TAXONOMY`.

use std::time::Instant;

use metrics_core::sasbench::{self, Taxonomy, Variant, format, subset_name};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, taxonomy] = args.as_slice() else {
        return Err("usage: sasbench_timing DIR TAXONOMY".into());
    };
    let mut texts = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.display().to_string();
        if name.ends_with("_prediction.jsonl") {
            texts.push((
                name,
                std::fs::read_to_string(&path).map_err(|e| e.to_string())?,
            ));
        }
    }
    let taxonomy_text = std::fs::read_to_string(taxonomy).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let taxonomy = Taxonomy::parse(taxonomy, &taxonomy_text).map_err(|e| e.to_string())?;
    let mut files = Vec::new();
    for (name, text) in &texts {
        files.push((
            name,
            format::parse_predictions(name, text).map_err(|e| e.to_string())?,
        ));
    }
    let parse_ms = start.elapsed().as_secs_f64() * 1e3;
    let (mut ccs_ms, mut ecs_ms, mut qwk_ms) = (0.0, 0.0, 0.0);
    let mut n = 0;
    for (name, responses) in &files {
        n += responses.len();
        let slots = taxonomy.slots(format::file_id(&subset_name(name)));
        let t = Instant::now();
        let v = sasbench::ScoreVectors::from_responses(responses).map_err(|e| e.message)?;
        let _ = sasbench::ccs::ccs(&v, Variant::Official);
        ccs_ms += t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let _ = sasbench::ccs::qwk(responses, Variant::Official);
        qwk_ms += t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let _ = sasbench::ecs::ecs(responses, &slots, Variant::Official);
        ecs_ms += t.elapsed().as_secs_f64() * 1e3;
    }
    println!(
        "{n} responses in {} files: parse {parse_ms:.2} ms, ccs {ccs_ms:.2} ms, qwk {qwk_ms:.2} ms, ecs {ecs_ms:.2} ms",
        files.len()
    );
    Ok(())
}
