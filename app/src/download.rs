//! Save text as a file the user downloads (a Blob URL on a temporary link).

use wasm_bindgen::JsCast;

pub fn download_text(file_name: &str, mime: &str, content: &str) {
    let _ = try_download(file_name, mime, content);
}

fn try_download(file_name: &str, mime: &str, content: &str) -> Option<()> {
    let parts = js_sys::Array::of1(&content.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    download_blob(file_name, &blob)
}

pub fn download_blob(file_name: &str, blob: &web_sys::Blob) -> Option<()> {
    let url = web_sys::Url::create_object_url_with_blob(blob).ok()?;
    let document = web_sys::window()?.document()?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a").ok()?.dyn_into().ok()?;
    link.set_href(&url);
    link.set_download(file_name);
    link.click();
    web_sys::Url::revoke_object_url(&url).ok()
}
