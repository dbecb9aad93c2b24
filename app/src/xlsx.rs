//! The class as an XLSX workbook, written by `rust_xlsxwriter` in a wasm module of its own
//! (`src/bin/xlsx.rs`, built by Trunk as `xlsx_loader.js`). The page starts that worker only
//! when the teacher exports and ends it after, so neither the page nor the scoring worker
//! loads the spreadsheet writer.
//!
//! ```text
//! page → xlsx worker   "ready" first; then JSON {"sheet", "rows": [[cell, …], …]}
//! xlsx worker → page   the workbook's bytes (Uint8Array), or a string "error: …"
//! ```
//! Cells are the CSV's (`workbench::class::class_table`); a cell that is a plain non-negative
//! integer (no sign, no leading zero) is written as a number, everything else as text.

use js_sys::Uint8Array;
use rust_xlsxwriter::{Format, Workbook, XlsxError};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::download::download_blob;

/// What the page sends the XLSX worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct XlsxRequest {
    pub sheet: String,
    /// The header row first.
    pub rows: Vec<Vec<String>>,
}

const MIME: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// A cell that is a plain integer (as Python's `str(int)` would print it).
fn as_integer(cell: &str) -> Option<f64> {
    let n: u64 = cell.parse().ok()?;
    (n.to_string() == cell && n < (1 << 53)).then_some(n as f64)
}

/// The workbook's bytes: one sheet, bold header, frozen header row, an autofilter.
pub fn workbook(request: &XlsxRequest) -> Result<Vec<u8>, XlsxError> {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    sheet.set_name(&request.sheet)?;
    let bold = Format::new().set_bold();
    let mut widths: Vec<usize> = Vec::new();
    for (r, row) in request.rows.iter().enumerate() {
        let r = u32::try_from(r).map_err(|_| XlsxError::RowColumnLimitError)?;
        for (c, cell) in row.iter().enumerate() {
            let c = u16::try_from(c).map_err(|_| XlsxError::RowColumnLimitError)?;
            if r == 0 {
                sheet.write_string_with_format(r, c, cell, &bold)?;
            } else if let Some(n) = as_integer(cell) {
                sheet.write_number(r, c, n)?;
            } else {
                sheet.write_string(r, c, cell)?;
            }
            let width = cell
                .chars()
                .map(|ch| if ch.is_ascii() { 1 } else { 2 })
                .sum();
            match widths.get_mut(usize::from(c)) {
                Some(w) => *w = (*w).max(width),
                None => widths.push(width),
            }
        }
    }
    for (c, w) in widths.iter().enumerate() {
        let c = u16::try_from(c).map_err(|_| XlsxError::RowColumnLimitError)?;
        sheet.set_column_width(c, (*w).clamp(6, 60) as f64 + 1.0)?;
    }
    if let (Some(last_row), Some(first)) = (request.rows.len().checked_sub(1), request.rows.first())
        && !first.is_empty()
    {
        sheet.set_freeze_panes(1, 0)?;
        let last_col =
            u16::try_from(first.len() - 1).map_err(|_| XlsxError::RowColumnLimitError)?;
        let last_row = u32::try_from(last_row).map_err(|_| XlsxError::RowColumnLimitError)?;
        sheet.autofilter(0, 0, last_row, last_col)?;
    }
    book.save_to_buffer()
}

/// The XLSX worker's entry point (`src/bin/xlsx.rs`).
pub fn worker_main() {
    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply_to = scope.clone();
    let handler =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let answer: JsValue = match event
                .data()
                .as_string()
                .map(|t| serde_json::from_str::<XlsxRequest>(&t))
            {
                Some(Ok(request)) => match workbook(&request) {
                    Ok(bytes) => Uint8Array::from(bytes.as_slice()).into(),
                    Err(e) => format!("error: cannot write the workbook: {e}").into(),
                },
                Some(Err(e)) => format!("error: bad request: {e}").into(),
                None => "error: the request is not text".into(),
            };
            let _ = reply_to.post_message(&answer);
        });
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    let _ = scope.post_message(&"ready".into());
}

/// Start the XLSX worker, have it write `text` (an [`XlsxRequest`] as JSON: the scoring worker
/// makes it, `workbench::norming::NormingAnswer::xlsx`) and download the result as `file_name`;
/// `done` is told how it went. The worker is ended afterwards.
pub fn export(file_name: String, text: String, done: impl FnOnce(Result<(), String>) + 'static) {
    let worker = match web_sys::Worker::new("/xlsx_loader.js") {
        Ok(w) => w,
        Err(e) => return done(Err(format!("cannot start the XLSX writer: {e:?}"))),
    };
    let mut done = Some(done);
    let w = worker.clone();
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let data = event.data();
            if data.as_string().as_deref() == Some("ready") {
                if let Err(e) = w.post_message(&JsValue::from_str(&text)) {
                    w.terminate();
                    if let Some(done) = done.take() {
                        done(Err(format!("cannot reach the XLSX writer: {e:?}")));
                    }
                }
                return;
            }
            w.terminate();
            let result = match data.as_string() {
                Some(message) => Err(message),
                None => save(&file_name, &Uint8Array::new(&data)),
            };
            if let Some(done) = done.take() {
                done(result);
            }
        });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
}

fn save(file_name: &str, bytes: &Uint8Array) -> Result<(), String> {
    let parts = js_sys::Array::of1(bytes);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(MIME);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|e| format!("cannot make the file: {e:?}"))?;
    download_blob(file_name, &blob).ok_or_else(|| format!("cannot download {file_name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_only_when_they_print_back_the_same() {
        assert_eq!(as_integer("42"), Some(42.0));
        assert_eq!(as_integer("007"), None);
        assert_eq!(as_integer("-1"), None);
        assert_eq!(as_integer("1.5"), None);
        assert_eq!(as_integer("优秀"), None);
    }

    #[test]
    fn a_workbook_is_a_zip() {
        let bytes = workbook(&XlsxRequest {
            sheet: "class".into(),
            rows: vec![
                vec!["id".into(), "comment".into()],
                vec!["1".into(), "文章".into()],
            ],
        })
        .unwrap();
        assert_eq!(&bytes[..2], b"PK");
    }
}
