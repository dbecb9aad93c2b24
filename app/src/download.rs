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

/// Render an SVG string to a PNG (2× scale, white background) and download it.
pub fn download_svg_as_png(svg: &str, file_name: &str) {
    let _ = try_png(svg, file_name);
}

fn try_png(svg: &str, file_name: &str) -> Option<()> {
    use wasm_bindgen::prelude::Closure;
    let document = web_sys::window()?.document()?;
    let image = web_sys::HtmlImageElement::new().ok()?;
    let url = format!(
        "data:image/svg+xml;charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(svg))
    );
    let file_name = file_name.to_string();
    let loaded = image.clone();
    let on_load = Closure::once(move || {
        let draw = || -> Option<()> {
            let canvas: web_sys::HtmlCanvasElement =
                document.create_element("canvas").ok()?.dyn_into().ok()?;
            let (w, h) = (loaded.natural_width(), loaded.natural_height());
            canvas.set_width(w * 2);
            canvas.set_height(h * 2);
            let context: web_sys::CanvasRenderingContext2d =
                canvas.get_context("2d").ok()??.dyn_into().ok()?;
            context.scale(2.0, 2.0).ok()?;
            context.set_fill_style_str("#ffffff");
            context.fill_rect(0.0, 0.0, w as f64, h as f64);
            context
                .draw_image_with_html_image_element(&loaded, 0.0, 0.0)
                .ok()?;
            let png = canvas.to_data_url_with_type("image/png").ok()?;
            let link: web_sys::HtmlAnchorElement =
                document.create_element("a").ok()?.dyn_into().ok()?;
            link.set_href(&png);
            link.set_download(&file_name);
            link.click();
            Some(())
        };
        let _ = draw();
    });
    image.set_onload(Some(on_load.as_ref().unchecked_ref()));
    on_load.forget();
    image.set_src(&url);
    Some(())
}
