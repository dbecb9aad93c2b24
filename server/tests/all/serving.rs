//! The app served like a production site (in process, a `dist/` shaped like Trunk's output):
//! precompressed siblings chosen by `Accept-Encoding`, immutable caching of hashed assets only,
//! a CSP that allows exactly the page's inline module script by hash, security headers on
//! every response, and a fresh page load without upstreams that has no failed request.

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use base64::Engine;
use server::http::{AppState, app};
use sha2::{Digest, Sha256};
use tower::ServiceExt;

use crate::proxy::temp_dir;

/// Trunk's release output, in miniature: an inline module script that loads hashed files.
const INLINE: &str = "import init, * as bindings from '/app-5e0d1c2b3a4f6789.js';\n\
                      const wasm = await init({ module_or_path: '/app-5e0d1c2b3a4f6789_bg.wasm' });\n";
const WASM: &[u8] = b"\0asm\x01\0\0\0 the app";

fn state(tag: &str) -> AppState {
    let dir = temp_dir(&format!("serving-{tag}"));
    let dist = dir.join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(
        dist.join("index.html"),
        format!(
            "<!doctype html><html><head><link rel=\"modulepreload\" href=\"/app-5e0d1c2b3a4f6789.js\">\
             <script type=\"module\">{INLINE}</script></head><body></body></html>"
        ),
    )
    .unwrap();
    std::fs::write(dist.join("app-5e0d1c2b3a4f6789_bg.wasm"), WASM).unwrap();
    std::fs::write(dist.join("app-5e0d1c2b3a4f6789_bg.wasm.br"), b"BROTLI").unwrap();
    std::fs::write(dist.join("app-5e0d1c2b3a4f6789_bg.wasm.gz"), b"GZIP").unwrap();
    std::fs::write(dist.join("app-5e0d1c2b3a4f6789.js"), "export default 1;").unwrap();
    std::fs::write(dist.join("worker_loader.js"), "importScripts('./w.js');").unwrap();
    std::fs::write(dist.join("favicon.svg"), "<svg/>").unwrap();
    AppState {
        dist,
        db: Arc::new(Mutex::new(
            server::db::open(&dir.join("db.sqlite3")).unwrap(),
        )),
        llm: None,
        guard: Default::default(),
    }
}

async fn get(state: &AppState, uri: &str, accept: &str) -> (StatusCode, HeaderMap, Vec<u8>) {
    let mut request = Request::get(uri);
    if !accept.is_empty() {
        request = request.header("accept-encoding", accept);
    }
    let response = app(state.clone())
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, headers, body.to_vec())
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .map(|v| v.to_str().unwrap())
        .unwrap_or_else(|| panic!("no {name} header in {headers:?}"))
}

#[tokio::test]
async fn assets_are_precompressed_and_cached_by_their_hash() {
    let state = state("assets");
    let wasm = "/app-5e0d1c2b3a4f6789_bg.wasm";
    for (accept, encoding, body) in [
        ("br, gzip", Some("br"), b"BROTLI".as_slice()),
        ("gzip, deflate", Some("gzip"), b"GZIP".as_slice()),
        ("", None, WASM),
        ("identity", None, WASM),
    ] {
        let (status, headers, got) = get(&state, wasm, accept).await;
        assert_eq!(status, StatusCode::OK, "{accept}");
        assert_eq!(got, body, "{accept}");
        assert_eq!(
            headers.get("content-encoding").map(|v| v.to_str().unwrap()),
            encoding,
            "{accept}"
        );
        assert_eq!(header(&headers, "content-type"), "application/wasm");
        assert_eq!(
            header(&headers, "cache-control"),
            "public, max-age=31536000, immutable"
        );
        assert!(
            header(&headers, "vary")
                .to_ascii_lowercase()
                .contains("accept-encoding")
        );
    }
    // Without a sibling the file goes out as it is.
    let (status, headers, _) = get(&state, "/app-5e0d1c2b3a4f6789.js", "br").await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers.get("content-encoding").is_none());
    // Files without a hash in their name, and the page, are revalidated.
    for uri in [
        "/worker_loader.js",
        "/favicon.svg",
        "/",
        "/index.html",
        "/runs/abc",
    ] {
        let (status, headers, _) = get(&state, uri, "br, gzip").await;
        assert_eq!(status, StatusCode::OK, "{uri}");
        assert_eq!(header(&headers, "cache-control"), "no-cache", "{uri}");
    }
    // A hashed name that does not exist gets the page (a deep link), not an immutable entry.
    let (status, headers, body) = get(&state, "/app-0000000011111111.js", "").await;
    assert_eq!(status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&body).contains("<!doctype html>"));
    assert_eq!(header(&headers, "cache-control"), "no-cache");
}

#[tokio::test]
async fn the_page_has_a_csp_naming_its_inline_script_and_security_headers() {
    let state = state("csp");
    let expected_hash =
        base64::engine::general_purpose::STANDARD.encode(Sha256::digest(INLINE.as_bytes()));
    for uri in ["/", "/index.html", "/leaderboard/abc"] {
        let (status, headers, body) = get(&state, uri, "").await;
        assert_eq!(status, StatusCode::OK, "{uri}");
        assert!(String::from_utf8_lossy(&body).contains(INLINE), "{uri}");
        let csp = header(&headers, "content-security-policy");
        let script_src = csp
            .split(';')
            .map(str::trim)
            .find(|d| d.starts_with("script-src "))
            .unwrap();
        assert_eq!(
            script_src,
            format!("script-src 'self' 'wasm-unsafe-eval' 'sha256-{expected_hash}'"),
            "{uri}"
        );
        for directive in [
            "default-src 'self'",
            "frame-ancestors 'none'",
            "object-src 'none'",
            "base-uri 'none'",
        ] {
            assert!(csp.contains(directive), "{uri}: {csp}");
        }
        assert!(!script_src.contains("unsafe-inline"), "{csp}");
    }
    // Every response carries the security headers; scripts (the worker) may compile wasm.
    for uri in [
        "/",
        "/worker_loader.js",
        "/app-5e0d1c2b3a4f6789_bg.wasm",
        "/api/health",
        "/api/v1/nothing",
    ] {
        let (_, headers, _) = get(&state, uri, "").await;
        assert_eq!(
            header(&headers, "x-content-type-options"),
            "nosniff",
            "{uri}"
        );
        assert_eq!(header(&headers, "referrer-policy"), "no-referrer", "{uri}");
        assert_eq!(header(&headers, "x-frame-options"), "DENY", "{uri}");
        let csp = header(&headers, "content-security-policy");
        assert!(
            csp.contains("'wasm-unsafe-eval'") && csp.contains("frame-ancestors 'none'"),
            "{uri}: {csp}"
        );
    }
}

#[tokio::test]
async fn a_fresh_page_load_without_upstreams_has_no_failed_request() {
    let state = state("fresh");
    // What the page asks for on load: itself, its files, and the model list.
    for uri in [
        "/",
        "/app-5e0d1c2b3a4f6789.js",
        "/app-5e0d1c2b3a4f6789_bg.wasm",
        "/worker_loader.js",
        "/favicon.svg",
        "/api/v1/models",
    ] {
        let (status, _, body) = get(&state, uri, "br, gzip").await;
        assert_eq!(
            status,
            StatusCode::OK,
            "{uri}: {}",
            String::from_utf8_lossy(&body)
        );
    }
    let (_, _, body) = get(&state, "/api/v1/models", "").await;
    let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(json["data"], serde_json::json!([]));
    assert_eq!(json["configured"], false);
}
