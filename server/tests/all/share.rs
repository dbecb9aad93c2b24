//! Private share links (issue 14): the share API through the whole router (guard, security
//! headers, the app's `index.html` at `/s/<id>`) without a socket, over a new SQLite file and
//! PostgreSQL when `PG_URL` is set (`scripts/pg.sh start`), with a clock the test moves.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::Value;
use server::http::{AppState, app_with};
use server::share::{Clock, MAX_SHARE_BYTES, router_with};
use server::store::Store;
use tower::ServiceExt;

use crate::leaderboard::{stores, temp};

const HOST: &str = "127.0.0.1:8080";
const DAY_MS: i64 = 86_400_000;
/// The inline script of the test page (its hash must be in the CSP of `/s/<id>`).
const INLINE: &str = "import init from '/app.js'; init();";

struct Fixture {
    state: AppState,
    store: Arc<dyn Store>,
    clock: Arc<AtomicI64>,
}

impl Fixture {
    async fn new(db: &str) -> Fixture {
        let dir = temp("share");
        let dist = dir.join("dist");
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(
            dist.join("index.html"),
            format!(
                "<!doctype html><title>scorebench</title><script type=module>{INLINE}</script>"
            ),
        )
        .unwrap();
        let conn = server::db::open(&dir.join("local.sqlite3")).unwrap();
        let state = AppState {
            dist,
            db: Arc::new(std::sync::Mutex::new(conn)),
            llm: None,
            guard: Default::default(),
        };
        let store = server::store::backend::open(db).await.unwrap();
        Fixture {
            state,
            store,
            clock: Arc::new(AtomicI64::new(1_800_000_000_000)),
        }
    }

    async fn send(&self, request: Request<Body>) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
        let clock = Arc::clone(&self.clock);
        let now: Clock = Arc::new(move || clock.load(Ordering::SeqCst));
        let router = app_with(
            self.state.clone(),
            router_with(Arc::clone(&self.store), Arc::clone(&self.state.guard), now),
        );
        let response = router.oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, headers, body.to_vec())
    }

    async fn upload(&self, bytes: Vec<u8>, query: &str) -> (StatusCode, Value) {
        let request = Request::post(format!("/api/v1/shares{query}"))
            .header(header::HOST, HOST)
            .header(header::ORIGIN, format!("http://{HOST}"))
            .header(header::CONTENT_TYPE, "application/octet-stream")
            .body(Body::from(bytes))
            .unwrap();
        let (status, _, body) = self.send(request).await;
        (status, serde_json::from_slice(&body).unwrap())
    }

    async fn get(&self, path: &str) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
        self.send(
            Request::get(path)
                .header(header::HOST, HOST)
                .body(Body::empty())
                .unwrap(),
        )
        .await
    }

    /// DELETE with the token as `X-Delete-Token` (what the page sends).
    async fn delete(&self, id: &str, token: Option<&str>) -> (StatusCode, Vec<u8>) {
        let mut request = Request::delete(format!("/api/v1/shares/{id}"))
            .header(header::HOST, HOST)
            .header(header::ORIGIN, format!("http://{HOST}"));
        if let Some(token) = token {
            request = request.header("x-delete-token", token);
        }
        let (status, _, body) = self.send(request.body(Body::empty()).unwrap()).await;
        (status, body)
    }

    fn advance(&self, ms: i64) {
        self.clock.fetch_add(ms, Ordering::SeqCst);
    }
}

/// Bytes that look like ciphertext (deterministic, every byte value).
fn noise(n: usize) -> Vec<u8> {
    let mut x: u32 = 0x2545_f491;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
}

fn message(body: &[u8]) -> String {
    let v: Value = serde_json::from_slice(body).unwrap();
    v["error"]["message"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn shares_round_trip_expire_and_delete_with_their_token() {
    for db in stores() {
        let f = Fixture::new(&db).await;
        let store = f.store.kind();

        // Upload: 201, a 128-bit id, a delete token shown once, 30 days by default.
        let blob = noise(100_000);
        let (status, created) = f.upload(blob.clone(), "").await;
        assert_eq!(status, StatusCode::CREATED, "{store}: {created}");
        let id = created["id"].as_str().unwrap().to_string();
        let token = created["delete_token"].as_str().unwrap().to_string();
        assert_eq!(id.len(), 22, "{store}");
        assert_eq!(created["path"], format!("/s/{id}"));
        assert!(token.starts_with("sbs_"), "{store}");
        assert_eq!(created["size_bytes"], 100_000);
        assert_eq!(created["max_bytes"], MAX_SHARE_BYTES);
        assert_eq!(
            created["expires_ms"].as_i64().unwrap() - created["created_ms"].as_i64().unwrap(),
            30 * DAY_MS
        );
        // Stored: the bytes as sent and the token's hash, never the token.
        let row = f.store.share(&id).await.unwrap().unwrap();
        assert_eq!(row.bytes, blob, "{store}");
        assert_ne!(row.delete_token_sha256, token);
        assert_eq!(
            row.delete_token_sha256,
            server::leaderboard::token::hash(&token)
        );

        // Fetch: the same bytes, not cacheable.
        let (status, headers, body) = f.get(&format!("/api/v1/shares/{id}")).await;
        assert_eq!(status, StatusCode::OK, "{store}");
        assert_eq!(body, blob, "{store}");
        assert_eq!(headers[header::CONTENT_TYPE], "application/octet-stream");
        assert_eq!(headers[header::CACHE_CONTROL], "no-store");

        // `/s/<id>` is the app, its inline script allowed by hash.
        let (status, headers, page) = f.get(&format!("/s/{id}")).await;
        assert_eq!(status, StatusCode::OK);
        assert!(String::from_utf8(page).unwrap().contains(INLINE));
        let csp = headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
        let hash =
            server::http::inline_script_hashes(&format!("<script type=module>{INLINE}</script>"));
        assert!(csp.contains(&format!("'sha256-{}'", hash[0])), "{csp}");
        assert!(csp.contains("connect-src 'self'"), "{csp}");

        // Delete without the token, or with another one: 403, nothing changes.
        let (status, body) = f.delete(&id, None).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{store}");
        assert!(
            message(&body).contains("delete token"),
            "{}",
            message(&body)
        );
        let (status, _) = f
            .delete(&id, Some(&format!("sbs_{}", "0".repeat(64))))
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{store}");
        let request = Request::delete(format!("/api/v1/shares/{id}"))
            .header(header::HOST, HOST)
            .header(header::AUTHORIZATION, "Bearer sbs_wrong")
            .body(Body::empty())
            .unwrap();
        assert_eq!(f.send(request).await.0, StatusCode::FORBIDDEN, "{store}");
        let (status, _, body) = f.get(&format!("/api/v1/shares/{id}")).await;
        assert_eq!((status, body), (StatusCode::OK, blob.clone()), "{store}");
        // With its token (as a bearer token here, as a command-line client would send it):
        // 204, then gone for good.
        let request = Request::delete(format!("/api/v1/shares/{id}"))
            .header(header::HOST, HOST)
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .body(Body::empty())
            .unwrap();
        assert_eq!(f.send(request).await.0, StatusCode::NO_CONTENT, "{store}");
        let (status, _, body) = f.get(&format!("/api/v1/shares/{id}")).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{store}");
        assert!(message(&body).contains("deleted or has expired"));
        assert_eq!(f.delete(&id, Some(&token)).await.0, StatusCode::NOT_FOUND);
        assert!(f.store.share_info(&id).await.unwrap().is_none());

        // Unknown and malformed ids: 404.
        for path in [
            "/api/v1/shares/AAAAAAAAAAAAAAAAAAAAAA",
            "/api/v1/shares/..%2F..%2Fetc",
            "/api/v1/shares/x",
        ] {
            assert_eq!(f.get(path).await.0, StatusCode::NOT_FOUND, "{path}");
        }
    }
}

#[tokio::test]
async fn shares_expire_410_then_purged() {
    for db in stores() {
        let f = Fixture::new(&db).await;
        let store = f.store.kind();
        let (status, created) = f.upload(noise(64), "?expires_in_days=1").await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        let id = created["id"].as_str().unwrap().to_string();
        assert_eq!(
            created["expires_ms"].as_i64().unwrap() - created["created_ms"].as_i64().unwrap(),
            DAY_MS
        );
        // One millisecond before the expiry it is served; at the expiry: 410, and deleted.
        f.advance(DAY_MS - 1);
        assert_eq!(
            f.get(&format!("/api/v1/shares/{id}")).await.0,
            StatusCode::OK
        );
        f.advance(1);
        let (status, headers, body) = f.get(&format!("/api/v1/shares/{id}")).await;
        assert_eq!(status, StatusCode::GONE, "{store}");
        // A browser must not keep a 410 or 404: the next answer may differ.
        assert_eq!(headers[header::CACHE_CONTROL], "no-store");
        assert!(message(&body).contains("expired"), "{}", message(&body));
        assert!(f.store.share_info(&id).await.unwrap().is_none(), "{store}");
        assert_eq!(
            f.get(&format!("/api/v1/shares/{id}")).await.0,
            StatusCode::NOT_FOUND
        );

        // The periodic purge deletes expired shares nobody asked for, and only those.
        let (_, old) = f.upload(noise(64), "?expires_in_days=2").await;
        let (_, young) = f.upload(noise(64), "?expires_in_days=3").await;
        f.advance(2 * DAY_MS);
        let now = f.clock.load(Ordering::SeqCst);
        assert!(f.store.purge_shares(now).await.unwrap() >= 1, "{store}");
        assert!(
            f.store
                .share_info(old["id"].as_str().unwrap())
                .await
                .unwrap()
                .is_none()
        );
        assert!(
            f.store
                .share_info(young["id"].as_str().unwrap())
                .await
                .unwrap()
                .is_some()
        );

        // Expiry outside 1..=365 days is refused.
        for q in [
            "?expires_in_days=0",
            "?expires_in_days=366",
            "?expires_in_days=x",
        ] {
            assert_eq!(
                f.upload(noise(8), q).await.0,
                StatusCode::BAD_REQUEST,
                "{q}"
            );
        }
    }
}

#[tokio::test]
async fn share_uploads_are_octet_stream_within_the_limit_and_same_origin() {
    for db in stores() {
        let f = Fixture::new(&db).await;
        // Exactly the limit is stored; one byte more is refused with the limit in the message.
        let (status, created) = f.upload(vec![7u8; MAX_SHARE_BYTES], "").await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        assert_eq!(created["size_bytes"], MAX_SHARE_BYTES);
        let (status, refused) = f.upload(vec![7u8; MAX_SHARE_BYTES + 1], "").await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("32 MiB"),
            "{refused}"
        );
        // A body with no length announced (chunked) and over the limit: 413 too.
        let stream = futures_stream(MAX_SHARE_BYTES + 1);
        let request = Request::post("/api/v1/shares")
            .header(header::HOST, HOST)
            .header(header::CONTENT_TYPE, "application/octet-stream")
            .body(stream)
            .unwrap();
        assert_eq!(f.send(request).await.0, StatusCode::PAYLOAD_TOO_LARGE);
        let (status, refused) = f.upload(Vec::new(), "").await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");

        // Not octet-stream: 415 (a page cannot send a CORS-simple text/plain upload).
        for content_type in [
            Some("text/plain"),
            Some("application/json"),
            Some("multipart/form-data; boundary=x"),
            None,
        ] {
            let mut request = Request::post("/api/v1/shares").header(header::HOST, HOST);
            if let Some(ct) = content_type {
                request = request.header(header::CONTENT_TYPE, ct);
            }
            let (status, _, body) = f.send(request.body(Body::from(noise(16))).unwrap()).await;
            assert_eq!(
                status,
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "{content_type:?}"
            );
            assert!(message(&body).contains("application/octet-stream"));
        }

        // Another site's page: refused by the guard before the route (403).
        for (origin, fetch_site) in [
            (Some("http://evil.example"), None),
            (Some("null"), None),
            (None, Some("cross-site")),
        ] {
            let mut request = Request::post("/api/v1/shares")
                .header(header::HOST, HOST)
                .header(header::CONTENT_TYPE, "application/octet-stream");
            if let Some(o) = origin {
                request = request.header(header::ORIGIN, o);
            }
            if let Some(s) = fetch_site {
                request = request.header("sec-fetch-site", s);
            }
            let (status, _, body) = f.send(request.body(Body::from(noise(16))).unwrap()).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{origin:?} {fetch_site:?}");
            assert!(
                message(&body).contains("cross-origin"),
                "{}",
                message(&body)
            );
        }
        // … and its DELETE too, even with the right token.
        let id = created["id"].as_str().unwrap();
        let token = created["delete_token"].as_str().unwrap();
        let request = Request::delete(format!("/api/v1/shares/{id}"))
            .header(header::HOST, HOST)
            .header(header::ORIGIN, "http://evil.example")
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .body(Body::empty())
            .unwrap();
        assert_eq!(f.send(request).await.0, StatusCode::FORBIDDEN);
        assert!(f.store.share_info(id).await.unwrap().is_some());
        assert_eq!(f.delete(id, Some(token)).await.0, StatusCode::NO_CONTENT);
    }
}

/// A body of `n` bytes sent in 1 MiB chunks with no `Content-Length`.
fn futures_stream(n: usize) -> Body {
    let chunk = 1 << 20;
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = (0..n.div_ceil(chunk))
        .map(|i| Ok(vec![1u8; chunk.min(n - i * chunk)]))
        .collect();
    Body::from_stream(futures_util::stream::iter(chunks))
}
