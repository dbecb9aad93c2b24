//! The HTTP surface: `/api/*` first, then the built app (`dist/`) with an `index.html`
//! fallback so deep links such as `/leaderboard/abc` load the app.
//!
//! Every request passes [`crate::guard::check`] (Host, Origin, token) first. Every API error
//! has the OpenAI shape `{"error": {"message", "type", "code"}}`, framework rejections (`405`,
//! a bad path, a body over the limit) included. The app is served like a production site:
//! precompressed `.br`/`.gz` siblings by `Accept-Encoding`, `Cache-Control: immutable` on
//! hashed assets and `no-cache` on the rest, and security headers on every response.

use std::path::{Path, PathBuf};

use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use base64::Engine;
use serde_json::json;
use sha2::{Digest, Sha256};
use tower_http::services::ServeDir;

pub use crate::api::{AppState, JsonBody};
pub use crate::error::ApiError;
use crate::error::{error_response, kind_of};
use crate::guard::MAX_REQUEST_BYTES;
use crate::leaderboard::html::{APP_ASSETS_MARKER, STYLE};

pub fn app(state: AppState) -> Router {
    app_with(state, Router::new())
}

/// [`app`] with more routes (the leaderboards), behind the same guard and security headers.
pub fn app_with(state: AppState, more: Router) -> Router {
    let api = Router::new()
        .route("/health", get(health))
        .merge(crate::proxy::routes())
        .merge(crate::runs::http::routes())
        .fallback(|uri: axum::http::Uri| async move { ApiError::NotFound(uri.path().to_string()) })
        .layer(middleware::from_fn(openai_errors))
        .layer(DefaultBodyLimit::max(MAX_REQUEST_BYTES))
        .with_state(state.clone());
    Router::new()
        .nest("/api", api)
        .merge(more.layer(middleware::from_fn_with_state(
            state.dist.clone(),
            with_app_assets,
        )))
        .fallback_service(static_files(&state.dist))
        .layer(middleware::from_fn_with_state(
            state.guard.clone(),
            crate::guard::check,
        ))
        .layer(middleware::from_fn(security_headers))
}

/// Turn any error response of the API that is not JSON yet (axum's rejections: `405`, a bad
/// path parameter, …) into the OpenAI error shape.
async fn openai_errors(request: Request, next: Next) -> Response {
    let (parts, message) = match crate::error::framework_refusal(next.run(request).await).await {
        Ok(refusal) => refusal,
        Err(response) => return response,
    };
    let status = parts.status;
    let code = status
        .canonical_reason()
        .unwrap_or("error")
        .to_ascii_lowercase()
        .replace([' ', '-'], "_");
    let mut out = error_response(status, &message, kind_of(status), Some(&code));
    for name in [header::ALLOW, header::WWW_AUTHENTICATE, header::RETRY_AFTER] {
        if let Some(v) = parts.headers.get(&name) {
            out.headers_mut().insert(name, v.clone());
        }
    }
    out
}

async fn health(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let schema = {
        let conn = state
            .db
            .lock()
            .map_err(|_| ApiError::Internal("database lock poisoned".into()))?;
        crate::db::schema_version(&conn).map_err(|e| ApiError::Internal(e.to_string()))?
    };
    Ok(Json(
        json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION"), "schema": schema }),
    ))
}

/// The Content-Security-Policy: only what the app needs. Scripts and styles from this origin;
/// `'wasm-unsafe-eval'` to compile the app's WebAssembly (page and worker); the inline
/// module script Trunk writes into `index.html` allowed by its hash (see [`inline_script_hashes`]),
/// no other inline script; inline `style` attributes (the virtualised sample list and the
/// plotters SVG set them), no inline `<style>` elements; no plugins, no framing, no `<base>`.
pub fn content_security_policy(script_hashes: &[String]) -> String {
    let hashes: String = script_hashes
        .iter()
        .map(|h| format!(" 'sha256-{h}'"))
        .collect();
    format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'{hashes}; \
         style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; \
         connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; \
         form-action 'self'; frame-ancestors 'none'"
    )
}

/// Base64 SHA-256 of each inline `<script>` (one without `src`) in an HTML page, the form a
/// CSP `'sha256-…'` source takes. The content is hashed byte for byte as written between the
/// tags, which is what browsers hash.
pub fn inline_script_hashes(html: &str) -> Vec<String> {
    inline_hashes(html, "script")
}

/// Base64 SHA-256 of each inline `<element>` (`script` without `src`, `style`) of a page.
fn inline_hashes(html: &str, element: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let (open_tag, close_tag) = (format!("<{element}"), format!("</{element}"));
    let mut hashes = Vec::new();
    let mut at = 0;
    while let Some(open) = lower[at..].find(&open_tag) {
        let tag_start = at + open;
        let Some(tag_len) = lower[tag_start..].find('>') else {
            break;
        };
        let tag = &lower[tag_start..tag_start + tag_len];
        let body_start = tag_start + tag_len + 1;
        let Some(body_len) = lower[body_start..].find(&close_tag) else {
            break;
        };
        let has_src = tag
            .split(|c: char| c.is_ascii_whitespace())
            .any(|attr| attr == "src" || attr.starts_with("src="));
        if !has_src {
            let body = &html[body_start..body_start + body_len];
            hashes.push(
                base64::engine::general_purpose::STANDARD.encode(Sha256::digest(body.as_bytes())),
            );
        }
        at = body_start + body_len;
    }
    hashes
}

/// The leaderboard pages' build (`boards.html`, scripts/build-app.sh), relative to `dist/`: a
/// smaller binary than the workbench's, without the workbench.
pub const BOARDS_INDEX: &str = "boards/index.html";

/// The `<link>` tags and `<script>` elements of an HTML page's `<head>` (Trunk's stylesheet,
/// preloads and the inline module script that starts the app), as written.
pub fn head_assets(index_html: &str) -> String {
    let lower = index_html.to_ascii_lowercase();
    let head_end = lower.find("</head").unwrap_or(lower.len());
    let mut out = String::new();
    let mut at = 0;
    while at < head_end {
        let next_link = lower[at..head_end].find("<link").map(|i| at + i);
        let next_script = lower[at..head_end].find("<script").map(|i| at + i);
        let (start, end) = match (next_link, next_script) {
            (Some(l), s) if s.is_none_or(|s| l < s) => match lower[l..].find('>') {
                Some(e) => (l, l + e + 1),
                None => break,
            },
            (_, Some(s)) => match lower[s..].find("</script>") {
                Some(e) => (s, s + e + "</script>".len()),
                None => break,
            },
            _ => break,
        };
        let tag = &index_html[start..end];
        // Trunk's own directives (`data-trunk`) are gone from a built page; the icon stays.
        if !lower[start..end].contains("data-trunk") {
            out.push_str(tag);
            out.push('\n');
        }
        at = end;
    }
    out
}

/// A server-rendered HTML page with [`APP_ASSETS_MARKER`] gets the app's assets (from
/// [`BOARDS_INDEX`], when built) and a CSP allowing, by hash, exactly the app's own inline
/// scripts and styles: those of the assets put in and the pages' stylesheet
/// ([`STYLE`]) — never an inline script or style found in the final
/// HTML, which holds user text.
async fn with_app_assets(
    axum::extract::State(dist): axum::extract::State<PathBuf>,
    request: Request,
    next: Next,
) -> Response {
    let response = next.run(request).await;
    let is_html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if !is_html
        || response
            .headers()
            .contains_key(header::CONTENT_SECURITY_POLICY)
    {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_REQUEST_BYTES).await else {
        return (StatusCode::INTERNAL_SERVER_ERROR, "cannot render the page").into_response();
    };
    let mut html = String::from_utf8_lossy(&bytes).into_owned();
    let mut assets_in = String::new();
    if html.contains(APP_ASSETS_MARKER) {
        let assets = match tokio::fs::read_to_string(dist.join(BOARDS_INDEX)).await {
            Ok(index) => head_assets(&index),
            Err(e) => {
                // The workbench's assets would load ~500 KB and not mount on a board page: the
                // page stays server-rendered (it reads without JavaScript).
                static WARNED: std::sync::Once = std::sync::Once::new();
                WARNED.call_once(|| {
                    tracing::warn!(
                        "no {} in {} ({e}): leaderboard pages are served without the app \
                         (scripts/build-app.sh builds it)",
                        BOARDS_INDEX,
                        dist.display()
                    )
                });
                String::new()
            }
        };
        html = html.replacen(APP_ASSETS_MARKER, &assets, 1);
        assets_in = assets;
    }
    let own_styles = format!("{assets_in}<style>{}</style>", STYLE);
    let styles: String = inline_hashes(&own_styles, "style")
        .iter()
        .map(|h| format!(" 'sha256-{h}'"))
        .collect();
    let csp = content_security_policy(&inline_script_hashes(&assets_in)).replacen(
        "style-src 'self';",
        &format!("style-src 'self'{styles};"),
        1,
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    if let Ok(csp) = HeaderValue::from_str(&csp) {
        parts.headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    Response::from_parts(parts, axum::body::Body::from(html))
}

/// Marks a response other sites may frame (the board embed): it sets its own CSP
/// `frame-ancestors`, and gets no `X-Frame-Options: DENY`.
#[derive(Debug, Clone, Copy)]
pub struct Embeddable;

/// Base64 SHA-256 of an inline stylesheet, as a CSP `'sha256-…'` source names it.
pub fn style_hash(style: &str) -> String {
    inline_hashes(&format!("<style>{style}</style>"), "style")
        .pop()
        .unwrap_or_default()
}

/// Headers every response carries. Responses that set their own CSP (the page) keep it.
async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let embeddable = response.extensions().get::<Embeddable>().is_some();
    let headers = response.headers_mut();
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY)
        && let Ok(csp) = HeaderValue::from_str(&content_security_policy(&[]))
    {
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if !embeddable {
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    headers.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    response
}

/// Whether a file name carries Trunk's content hash (`app-1f2e…_bg.wasm`, `style-9a8b….css`):
/// such a file never changes under its name.
pub fn is_hashed_asset(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    match stem.rsplit_once('-') {
        Some((_, hash)) => hash.len() >= 8 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
        None => false,
    }
}

/// The page: `index.html` read on each request (it is small, and a rebuild then needs no
/// restart), with a CSP naming its inline scripts' hashes and `Cache-Control: no-cache`.
async fn index_page(index: PathBuf) -> Response {
    match tokio::fs::read_to_string(&index).await {
        Ok(html) => {
            let csp = content_security_policy(&inline_script_hashes(&html));
            let mut response = Html(html).into_response();
            let headers = response.headers_mut();
            if let Ok(csp) = HeaderValue::from_str(&csp) {
                headers.insert(header::CONTENT_SECURITY_POLICY, csp);
            }
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            response
        }
        Err(e) => {
            tracing::error!("cannot read {}: {e}", index.display());
            (StatusCode::INTERNAL_SERVER_ERROR, "cannot read the app").into_response()
        }
    }
}

/// Longest path segment a file name can have (bytes, as most file systems allow).
const MAX_SEGMENT_BYTES: usize = 255;

/// A path with a segment no file name can be: `404` without asking the file system (which
/// would answer "file name too long", a `500` and an error line per request).
async fn no_overlong_segments(request: Request, next: Next) -> Response {
    if request
        .uri()
        .path()
        .split('/')
        .any(|segment| segment.len() > MAX_SEGMENT_BYTES)
    {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    }
    next.run(request).await
}

/// `Cache-Control` by what was served: hashed assets are immutable, everything else (the
/// page, `worker_loader.js`, `favicon.svg`) is revalidated; `Vary: accept-encoding` on all.
async fn cache_control(request: Request, next: Next) -> Response {
    let hashed = is_hashed_asset(request.uri().path());
    let mut response = next.run(request).await;
    let is_html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    let value = if hashed && response.status().is_success() && !is_html {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    let headers = response.headers_mut();
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(value));
    }
    // The same URL is sent as br, gzip or identity: caches must key on Accept-Encoding
    // (ServeDir does not say so itself).
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    response
}

fn static_files(dist: &Path) -> Router {
    let index = dist.join("index.html");
    if index.is_file() {
        let page = {
            let index = index.clone();
            move || index_page(index.clone())
        };
        let files = ServeDir::new(dist)
            .precompressed_br()
            .precompressed_gzip()
            .append_index_html_on_directories(false)
            .fallback(axum::handler::HandlerWithoutStateExt::into_service(
                page.clone(),
            ));
        Router::new()
            .route("/", get(page.clone()))
            .route("/index.html", get(page))
            .fallback_service(files)
            .layer(middleware::from_fn(cache_control))
            .layer(middleware::from_fn(no_overlong_segments))
    } else {
        let message = format!(
            "<!doctype html><title>scorebench</title><p>The workbench app is not built: no {}. \
             Run <code>scripts/run.sh</code>, which builds it, or <code>trunk build --release</code>.</p>",
            index.display()
        );
        Router::new().fallback(move || {
            let message = message.clone();
            async move { (StatusCode::SERVICE_UNAVAILABLE, Html(message)) }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_inline_scripts_only() {
        let html = "<script type=\"module\">import x;</script><SCRIPT src=\"/a.js\"></script>\
                    <script nonce=x>\nlet a = 1;\n</script>";
        let expect = |s: &str| base64::engine::general_purpose::STANDARD.encode(Sha256::digest(s));
        assert_eq!(
            inline_script_hashes(html),
            vec![expect("import x;"), expect("\nlet a = 1;\n")]
        );
    }

    #[test]
    fn head_assets_are_the_links_and_scripts_of_the_head() {
        let index = "<html><head><meta charset=utf-8><title>t</title>\
                     <link rel=\"stylesheet\" href=\"/s-0123456789abcdef.css\"/>\
                     <script type=\"module\">import x from '/a.js';</script>\
                     <link rel=\"modulepreload\" href=\"/a.js\"></head>\
                     <body><script>late()</script></body></html>";
        assert_eq!(
            head_assets(index),
            "<link rel=\"stylesheet\" href=\"/s-0123456789abcdef.css\"/>\n\
             <script type=\"module\">import x from '/a.js';</script>\n\
             <link rel=\"modulepreload\" href=\"/a.js\">\n"
        );
        assert_eq!(head_assets("<p>no head</p>"), "");
    }

    #[test]
    fn hashed_assets_are_recognised() {
        assert!(is_hashed_asset("/app-8b2f0c4d1e3a5f67_bg.wasm"));
        assert!(is_hashed_asset("/app-8b2f0c4d1e3a5f67.js"));
        assert!(is_hashed_asset("/style-0123456789abcdef.css"));
        assert!(!is_hashed_asset("/worker_loader.js"));
        assert!(!is_hashed_asset("/favicon.svg"));
        assert!(!is_hashed_asset("/index.html"));
        assert!(!is_hashed_asset("/leaderboard/abc"));
        assert!(!is_hashed_asset("/my-page"));
    }
}
