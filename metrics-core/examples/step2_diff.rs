//! The Rust side of `scripts/diff-json-repair.sh`: SAS-Bench step 2 on replies read from stdin.
//!
//! One JSON object per input line, one per output line, in order:
//! - `{"op": "step2", "field": F, "n": N}` (F: the second TAB field of a `_scored.jsonl` line) →
//!   `{"process": {"pred_label", "pred_steps"} | {"error"}, "predict": {"label",
//!   "step_scores", "errors"} | {"error"}}`; `pred_steps` is `json.dumps(…, ensure_ascii=False)`
//!   of the processed steps, so Python and Rust output compare as text;
//! - `{"op": "loads", "text": T}` → `{"value": json.dumps(json_repair.loads(T))}`.

use std::io::{BufRead, Write};

use metrics_core::python::PyValue;
use metrics_core::sasbench::{format, lenient_json, step2};
use serde_json::{Value, json};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let request: Value = serde_json::from_str(&line?)?;
        let answer = match request["op"].as_str() {
            Some("loads") => {
                let text = request["text"].as_str().unwrap_or_default();
                match lenient_json::repair_loads(text) {
                    Ok(v) => json!({"value": v.json_dumps()}),
                    Err(e) => json!({"error": e.to_string()}),
                }
            }
            Some("step2") => step2_answer(&request),
            _ => json!({"error": "unknown op"}),
        };
        writeln!(out, "{answer}")?;
    }
    Ok(())
}

fn step2_answer(request: &Value) -> Value {
    let field = request["field"].as_str().unwrap_or_default();
    let n = request["n"].as_u64().unwrap_or(0) as usize;
    // Through the file readers, as `scorebench score sasbench` reads a `_scored.jsonl` line.
    let line = format!("id\t{field}\n");
    let reply = match format::parse_scored("scored", &line) {
        Ok(mut lines) if lines.len() == 1 => lines.remove(0),
        other => return json!({"field_error": format!("{other:?}")}),
    };
    let process = match step2::process_reply_text(&reply.reply_text, n) {
        Ok(out) => json!({
            "pred_label": out.pred_label,
            "pred_steps": PyValue::from_value(&Value::Array(out.pred_steps)).json_dumps(),
        }),
        Err(e) => json!({"error": e}),
    };
    let mut text = None;
    if let Err(e) = format::for_each_scored("scored", &line, |_, t| text = Some(t.into_owned())) {
        return json!({"field_error": e.to_string()});
    }
    let predict = match step2::predict(&text.unwrap_or_default(), n) {
        Ok(p) => json!({"label": p.label, "step_scores": p.step_scores, "errors": p.errors}),
        Err(e) => json!({"error": e}),
    };
    json!({"process": process, "predict": predict})
}
