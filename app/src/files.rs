//! Reading the user's files in the browser, in chunks with progress (nothing is uploaded).

use js_sys::Uint8Array;
use wasm_bindgen_futures::JsFuture;

/// Largest file the page reads: the CLI's limit (`metrics_core::MAX_FILE_BYTES`), as a JS number.
const MAX_FILE_BYTES: f64 = metrics_core::MAX_FILE_BYTES as f64;
/// Bytes read per step; progress is reported after each.
const CHUNK_BYTES: f64 = (8u64 << 20) as f64;

/// The files of a `FileList` (from an `<input type=file>` or a drop).
pub fn list(files: &web_sys::FileList) -> Vec<web_sys::File> {
    (0..files.length()).filter_map(|i| files.get(i)).collect()
}

/// Why the page will not read `file` (over the size limit), if so.
pub fn too_big(file: &web_sys::File) -> Option<String> {
    let (name, size) = (file.name(), file.size());
    (size > MAX_FILE_BYTES)
        .then(|| format!("{name}: file is {size} bytes, the limit is {MAX_FILE_BYTES} bytes"))
}

/// Read a file into a JS byte array chunk by chunk, calling `progress(bytes_read)` after each
/// chunk. The bytes stay on the JS side: they are transferred to the worker, not copied.
pub async fn read_in_chunks(
    file: &web_sys::File,
    progress: impl Fn(f64),
) -> Result<Uint8Array, String> {
    let name = file.name();
    let size = file.size();
    if size > MAX_FILE_BYTES {
        return Err(format!(
            "{name}: file is {size} bytes, the limit is {MAX_FILE_BYTES} bytes"
        ));
    }
    let out = Uint8Array::new_with_length(size as u32);
    let mut offset = 0.0;
    while offset < size {
        let end = (offset + CHUNK_BYTES).min(size);
        let blob = file
            .slice_with_f64_and_f64(offset, end)
            .map_err(|e| format!("{name}: cannot read the file: {e:?}"))?;
        let buffer = JsFuture::from(blob.array_buffer())
            .await
            .map_err(|e| format!("{name}: cannot read the file: {e:?}"))?;
        out.set(&Uint8Array::new(&buffer), offset as u32);
        offset = end;
        progress(offset);
    }
    Ok(out)
}
