//! Reading the user's files in the browser (nothing is uploaded).

use js_sys::Uint8Array;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// A file the user dropped or picked, read into memory.
#[derive(Clone, Debug)]
pub struct DroppedFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Largest file the page reads (the CLI applies the same limit).
pub const MAX_FILE_BYTES: f64 = (1u64 << 30) as f64;

/// The files of a `FileList` (from an `<input type=file>` or a drop).
pub fn list(files: &web_sys::FileList) -> Vec<web_sys::File> {
    (0..files.length()).filter_map(|i| files.get(i)).collect()
}

/// Read one file's bytes; an error message names the file.
pub async fn read(file: &web_sys::File) -> Result<DroppedFile, String> {
    let name = file.name();
    if file.size() > MAX_FILE_BYTES {
        return Err(format!(
            "{name}: file is {} bytes, the limit is {MAX_FILE_BYTES} bytes",
            file.size()
        ));
    }
    let buffer = JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| format!("{name}: cannot read the file: {e:?}"))?;
    let bytes = Uint8Array::new(buffer.unchecked_ref()).to_vec();
    Ok(DroppedFile { name, bytes })
}
