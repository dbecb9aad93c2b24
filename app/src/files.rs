//! The user's files in the browser (nothing is uploaded): the worker reads dropped files itself
//! (`worker.rs`, in slices with progress); this checks them first.

/// Largest file the page reads: the CLI's limit (`metrics_core::MAX_FILE_BYTES`), as a JS number.
const MAX_FILE_BYTES: f64 = metrics_core::MAX_FILE_BYTES as f64;

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
