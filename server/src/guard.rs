//! Who may drive the server. The server holds keys that cost money, and any web page the user
//! visits can send requests to `127.0.0.1`; this layer runs before every route.
//!
//! 1. **Host** (DNS rebinding): the `Host` must be an IP address, `localhost` (or
//!    `*.localhost`), or a name given with `--allowed-host`; otherwise `403`. A rebound name
//!    (`attacker.example` resolving to 127.0.0.1) is refused, so its page cannot read or call
//!    the API.
//! 2. **Origin** (cross-site requests): a state-changing request (any method but GET, HEAD,
//!    OPTIONS) that carries an `Origin` must come from the server's own origin (the `Origin`'s
//!    host and port equal the `Host`) or one given with `--allowed-origin`; `Origin: null` and
//!    `Sec-Fetch-Site: cross-site|same-site` without an allowed `Origin` are refused (`403`).
//!    Clients that are not browsers send no `Origin` and pass.
//! 3. **Content type**: JSON endpoints take `Content-Type: application/json` only (`415`,
//!    checked by [`crate::api::JsonBody`]), and the share upload `application/octet-stream`
//!    only ([`crate::share`]), so a page cannot send them a CORS-"simple" `text/plain` request.
//! 4. **Token** (optional, `--api-token-env VAR`): `/api/v1/*` then needs
//!    `Authorization: Bearer <token>` (API clients; the official OpenAI clients send their
//!    `api_key` so) or the session cookie the browser gets by opening the app once as
//!    `/?token=<token>` (`HttpOnly; SameSite=Strict`, holding a hash of the token, never the
//!    token). Without either: `401`. `/api/health` stays open.
//!
//! Request headers are not trusted for anything else: no header makes a request "same-origin"
//! on its own, since any program can send any header.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;

/// The cookie holding the browser's session when a token is required.
/// Largest JSON request body the API accepts.
pub const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;
/// Largest share upload ([`crate::share`]).
pub const MAX_SHARE_BYTES: usize = 32 * 1024 * 1024;

pub const SESSION_COOKIE: &str = "scorebench_session";

/// How much request-body memory all requests may hold at once, by default.
pub const DEFAULT_BODY_BUDGET_BYTES: usize = 4 * MAX_REQUEST_BYTES;

/// Largest leaderboard request (a submission's files, base64 in JSON), by default: the whole
/// budget, so one such body is read at a time (`--max-upload-mb` raises both).
pub const DEFAULT_UPLOAD_LIMIT_BYTES: usize = DEFAULT_BODY_BUDGET_BYTES;

/// The least a body reserves from the budget, whatever it declares: bodies trickling in a byte
/// at a time cannot be held by the thousand.
pub const MIN_BODY_RESERVE_BYTES: usize = 16 * 1024;

/// How long a client may take to send a request body, by default.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// The API token: only its hashes are kept.
#[derive(Clone)]
pub struct ApiToken {
    bearer: [u8; 32],
    cookie: String,
}

impl std::fmt::Debug for ApiToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiToken(***)")
    }
}

/// Shortest token accepted.
pub const MIN_TOKEN_CHARS: usize = 16;

impl ApiToken {
    pub fn new(token: &str) -> Result<ApiToken, String> {
        if token.chars().count() < MIN_TOKEN_CHARS {
            return Err(format!(
                "the API token must be at least {MIN_TOKEN_CHARS} characters long"
            ));
        }
        if !token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
        {
            return Err(
                "the API token may hold only letters, digits and - . _ ~ (it goes in a URL)".into(),
            );
        }
        let cookie = hex::encode(Sha256::digest(
            [b"scorebench-session\0".as_slice(), token.as_bytes()].concat(),
        ));
        Ok(ApiToken {
            bearer: Sha256::digest(token.as_bytes()).into(),
            cookie,
        })
    }

    /// Whether `candidate` is the token (compared as hashes, so timing says nothing useful).
    pub fn matches(&self, candidate: &str) -> bool {
        let digest: [u8; 32] = Sha256::digest(candidate.as_bytes()).into();
        digest == self.bearer
    }

    fn cookie_matches(&self, value: &str) -> bool {
        Sha256::digest(value.as_bytes()) == Sha256::digest(self.cookie.as_bytes())
    }
}

/// Why [`Guard::read_body`] did not read a body; each caller words it in its own error shape.
#[derive(Debug)]
pub enum BodyError {
    /// Another media type: the `Content-Type` received (`none` when absent).
    MediaType(String),
    /// Over the limit (declared or as it arrived).
    TooLarge,
    /// The body budget stayed full for the body timeout.
    Busy,
    /// The server is shutting down.
    ShuttingDown,
    /// The body did not arrive within this many seconds.
    Late(f64),
    /// The body could not be read (the framework's words).
    Bad(String),
}

/// The access policy and the request-body budget.
#[derive(Debug)]
pub struct Guard {
    /// Extra `Host` names (lower case, no port), from `--allowed-host`.
    pub allowed_hosts: Vec<String>,
    /// Extra origins (`scheme://host[:port]`, lower case), from `--allowed-origin`.
    pub allowed_origins: Vec<String>,
    pub api_token: Option<ApiToken>,
    /// Bytes of request body all requests may hold at once; a request reserves its
    /// `Content-Length` (or the body limit when it has none) before its body is read.
    pub body_budget: Arc<Semaphore>,
    /// The budget's size in bytes (its permits when nothing is reserved).
    pub budget_total: usize,
    /// How long a client may take to send its body (`408` after).
    pub body_timeout: Duration,
    /// Largest leaderboard request body (`413` over it, before reading when declared).
    pub upload_limit: usize,
    /// The server's public base URL (`--public-url`, no trailing `/`): absolute URLs in replies
    /// and pages use it instead of the request's `Host`.
    pub public_url: Option<String>,
    /// Whether the reverse proxy's `X-Forwarded-Proto` and `X-Forwarded-For` are believed
    /// (`--trust-proxy`).
    pub trust_proxy: bool,
}

impl Default for Guard {
    fn default() -> Guard {
        Guard::new(
            Vec::new(),
            Vec::new(),
            None,
            DEFAULT_BODY_BUDGET_BYTES,
            DEFAULT_BODY_TIMEOUT,
        )
    }
}

/// A request body's headers checked before it is read: of media type `media_type` (else
/// [`BodyError::MediaType`] with what was sent), and not declared (`Content-Length`) larger than
/// `limit` (else [`BodyError::TooLarge`]). Returns the declared length.
pub fn check_head(
    headers: &axum::http::HeaderMap,
    media_type: &str,
    limit: u64,
) -> Result<Option<u64>, BodyError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = content_type.split(';').next().unwrap_or("").trim();
    if !essence.eq_ignore_ascii_case(media_type) {
        return Err(BodyError::MediaType(if content_type.is_empty() {
            "none".into()
        } else {
            content_type.into()
        }));
    }
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(BodyError::TooLarge);
    }
    Ok(declared)
}

impl Guard {
    pub fn new(
        allowed_hosts: Vec<String>,
        allowed_origins: Vec<String>,
        api_token: Option<ApiToken>,
        body_budget_bytes: usize,
        body_timeout: Duration,
    ) -> Guard {
        // Room for the largest body of every route (a share is up to 32 MiB).
        let budget = body_budget_bytes
            .max(MAX_REQUEST_BYTES)
            .max(MAX_SHARE_BYTES);
        Guard {
            allowed_hosts: allowed_hosts
                .into_iter()
                .map(|h| h.to_ascii_lowercase())
                .collect(),
            allowed_origins: allowed_origins
                .into_iter()
                .map(|o| o.trim_end_matches('/').to_ascii_lowercase())
                .collect(),
            api_token,
            body_budget: Arc::new(Semaphore::new(budget)),
            budget_total: budget,
            body_timeout,
            upload_limit: DEFAULT_UPLOAD_LIMIT_BYTES.min(budget),
            public_url: None,
            trust_proxy: false,
        }
    }

    /// The client's address: the peer's, or with `--trust-proxy` the last address the proxy
    /// added to `X-Forwarded-For`.
    pub fn client_address(
        &self,
        headers: &HeaderMap,
        peer: Option<std::net::SocketAddr>,
    ) -> Option<IpAddr> {
        if self.trust_proxy {
            // The last entry is the one our proxy wrote; one it wrote that is no address (an
            // `ip:port`, `unknown`) must not let an earlier, client-written one through.
            let last = headers
                .get_all(HeaderName::from_static("x-forwarded-for"))
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .map(str::trim)
                .rfind(|a| !a.is_empty());
            if let Some(last) = last {
                return last
                    .parse::<IpAddr>()
                    .ok()
                    .or_else(|| last.parse::<std::net::SocketAddr>().ok().map(|a| a.ip()))
                    .or_else(|| peer.map(|p| p.ip()));
            }
        }
        peer.map(|p| p.ip())
    }

    /// `scheme://host[:port]` for absolute URLs: `--public-url` when set; else the request's
    /// `Host` (which passed [`check`] to get here), `https` only when `X-Forwarded-Proto` says
    /// so and is trusted.
    pub fn public_origin(&self, headers: &HeaderMap) -> String {
        if let Some(url) = &self.public_url {
            return url.clone();
        }
        let host = header(headers, header::HOST)
            .filter(|h| {
                self.host_allowed(h)
                    && h.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
            })
            .unwrap_or("127.0.0.1");
        let https = self.trust_proxy
            && header(headers, HeaderName::from_static("x-forwarded-proto"))
                .is_some_and(|p| p.eq_ignore_ascii_case("https"));
        format!("{}://{host}", if https { "https" } else { "http" })
    }

    /// The largest leaderboard body: `bytes`; the budget grows to hold one such body.
    /// `mut self` is not shared yet, so the permits available are the budget.
    pub fn with_upload_limit(mut self, bytes: usize) -> Guard {
        if bytes > self.budget_total {
            self.body_budget.add_permits(bytes - self.budget_total);
            self.budget_total = bytes;
        }
        self.upload_limit = bytes;
        self
    }

    /// Read a request body of media type `media_type`, at most `limit` bytes, within the body
    /// timeout, with its size reserved from the body budget while the returned permit lives
    /// (the declared `Content-Length`, or `limit` for a chunked body, cut down to what arrived).
    pub async fn read_body(
        &self,
        request: Request,
        media_type: &str,
        limit: usize,
    ) -> Result<(Bytes, OwnedSemaphorePermit), BodyError> {
        let declared = check_head(request.headers(), media_type, limit as u64)?;
        let reserve = declared
            .map_or(limit, |n| n as usize)
            .max(MIN_BODY_RESERVE_BYTES.min(limit))
            .min(self.budget_total);
        let permits = u32::try_from(reserve).unwrap_or(u32::MAX);
        let mut reserved = tokio::time::timeout(
            self.body_timeout,
            self.body_budget.clone().acquire_many_owned(permits),
        )
        .await
        .map_err(|_| BodyError::Busy)?
        .map_err(|_| BodyError::ShuttingDown)?;
        let expected = declared.map_or(0, |n| n as usize);
        let bytes = tokio::time::timeout(self.body_timeout, collect(request, limit, expected))
            .await
            .map_err(|_| BodyError::Late(self.body_timeout.as_secs_f64()))??;
        // Keep only what the body holds (a chunked body reserved the whole limit).
        if let Some(extra) =
            reserved.split(reserved.num_permits().saturating_sub(bytes.len().max(1)))
        {
            drop(extra);
        }
        Ok((bytes, reserved))
    }

    /// Whether a `Host` value (`name[:port]`) names this server.
    pub fn host_allowed(&self, host: &str) -> bool {
        let name = host_name(host).to_ascii_lowercase();
        name.parse::<IpAddr>().is_ok()
            || name == "localhost"
            || name.ends_with(".localhost")
            || self.allowed_hosts.contains(&name)
    }

    /// Whether an `Origin` may send state-changing requests to a server reached as `host`.
    pub fn origin_allowed(&self, origin: &str, host: Option<&str>) -> bool {
        let origin = origin.trim_end_matches('/').to_ascii_lowercase();
        if self.allowed_origins.contains(&origin) {
            return true;
        }
        let authority = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        match (authority, host) {
            (Some(authority), Some(host)) => authority == host.to_ascii_lowercase(),
            _ => false,
        }
    }
}

/// The body's bytes as they arrive, refused once past `limit` (whatever layers set): one
/// buffer of the declared size, so a body never takes twice its size while it grows.
async fn collect(request: Request, limit: usize, expected: usize) -> Result<Bytes, BodyError> {
    use futures_util::StreamExt;
    let mut stream = request.into_body().into_data_stream();
    let mut buffer: Vec<u8> = Vec::with_capacity(expected.min(limit));
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| BodyError::Bad(e.to_string()))?;
        if buffer.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge);
        }
        buffer.extend_from_slice(&chunk);
    }
    // A chunked body grew by doubling: keep only what it holds (the budget counts `len`).
    buffer.shrink_to_fit();
    Ok(Bytes::from(buffer))
}

/// `name` of `name:port`, `::1` of `[::1]:port`.
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            name
        }
        _ => host,
    }
}

fn header(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The request's `Host` (or the URI's authority, for absolute-form requests).
fn request_host(request: &Request) -> Option<String> {
    header(request.headers(), header::HOST)
        .map(str::to_string)
        .or_else(|| request.uri().authority().map(|a| a.to_string()))
}

fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

fn is_state_changing(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The `token` query parameter, if any.
fn query_token(request: &Request) -> Option<String> {
    request
        .uri()
        .query()?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == "token")
        .map(|(_, v)| v.to_string())
}

/// The middleware: Host, Origin, token (see the module doc).
pub async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let guard = &*guard;
    // Two `Host`s: which one a proxy, a cache or this server reads differs.
    if request.headers().get_all(header::HOST).iter().count() > 1 {
        return ApiError::BadRequest("the request has more than one Host header".into())
            .into_response();
    }
    let host = request_host(&request);
    if let Some(host) = &host
        && !guard.host_allowed(host)
    {
        return ApiError::Forbidden(format!(
            "this server does not answer to the host name {:?}: start it with --allowed-host \
             NAME to serve it under another name",
            host_name(host)
        ))
        .into_response();
    }
    let headers = request.headers();
    if is_state_changing(request.method()) {
        let origin = header(headers, header::ORIGIN);
        let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
        let refused = match origin {
            Some(origin) => !guard.origin_allowed(origin, host.as_deref()),
            None => matches!(fetch_site, Some("cross-site" | "same-site")),
        };
        if refused {
            return ApiError::Forbidden(format!(
                "cross-origin request from {} refused: only the server's own page (or an origin \
                 given with --allowed-origin) may send it",
                origin.unwrap_or("another site")
            ))
            .into_response();
        }
    }
    if let Some(token) = &guard.api_token {
        let path = request.uri().path();
        if path.starts_with("/api/v1/") || path == "/api/v1" {
            let bearer = header(headers, header::AUTHORIZATION)
                .and_then(|v| v.trim().split_once(' '))
                .is_some_and(|(scheme, t)| {
                    scheme.eq_ignore_ascii_case("bearer") && token.matches(t.trim())
                });
            let session = cookie(headers, SESSION_COOKIE).is_some_and(|c| token.cookie_matches(c));
            if !bearer && !session {
                let mut response = ApiError::Unauthorized(
                    "this server requires its API token: send Authorization: Bearer <token>, \
                     or open the app once as /?token=<token>"
                        .into(),
                )
                .into_response();
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                return response;
            }
        } else if !path.starts_with("/api/")
            && *request.method() == Method::GET
            && let Some(candidate) = query_token(&request)
        {
            if !token.matches(&candidate) {
                return ApiError::Forbidden("wrong token".into()).into_response();
            }
            let cookie = format!(
                "{SESSION_COOKIE}={}; Path=/; HttpOnly; SameSite=Strict",
                token.cookie
            );
            // The same page without the token (the app keeps its state in the query).
            let rest: Vec<&str> = request
                .uri()
                .query()
                .unwrap_or("")
                .split('&')
                .filter(|pair| !pair.is_empty() && !pair.starts_with("token="))
                .collect();
            let location = if rest.is_empty() {
                path.to_string()
            } else {
                format!("{path}?{}", rest.join("&"))
            };
            return match HeaderValue::from_str(&cookie) {
                Ok(cookie) => (
                    StatusCode::SEE_OTHER,
                    [
                        (
                            header::LOCATION,
                            HeaderValue::from_str(&location)
                                .unwrap_or_else(|_| HeaderValue::from_static("/")),
                        ),
                        (header::SET_COOKIE, cookie),
                        (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
                    ],
                )
                    .into_response(),
                Err(_) => ApiError::Internal("session cookie".into()).into_response(),
            };
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_address_is_the_proxys_last_entry_only_when_trusted() {
        let peer: std::net::SocketAddr = "10.0.0.1:5000".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.append("x-forwarded-for", HeaderValue::from_static("203.0.113.9"));
        headers.append(
            "x-forwarded-for",
            HeaderValue::from_static("198.51.100.7, 192.0.2.1"),
        );
        let mut guard = Guard::default();
        assert_eq!(
            guard.client_address(&headers, Some(peer)),
            Some(peer.ip()),
            "not trusted"
        );
        guard.trust_proxy = true;
        assert_eq!(
            guard.client_address(&headers, Some(peer)),
            Some("192.0.2.1".parse().unwrap())
        );
        // What the proxy wrote last is no address: the peer, not an earlier client-written one.
        headers.append("x-forwarded-for", HeaderValue::from_static("unknown"));
        assert_eq!(guard.client_address(&headers, Some(peer)), Some(peer.ip()));
        let mut headers = HeaderMap::new();
        headers.append(
            "x-forwarded-for",
            HeaderValue::from_static("1.2.3.4, 192.0.2.5:443"),
        );
        assert_eq!(
            guard.client_address(&headers, Some(peer)),
            Some("192.0.2.5".parse().unwrap())
        );
    }

    #[test]
    fn hosts_are_ip_addresses_localhost_or_allowed_names() {
        let guard = Guard::new(
            vec!["Bench.Example".into()],
            vec![],
            None,
            0,
            DEFAULT_BODY_TIMEOUT,
        );
        for ok in [
            "127.0.0.1:8080",
            "127.0.0.1",
            "[::1]:8080",
            "10.1.2.3:80",
            "localhost:8080",
            "LOCALHOST",
            "app.localhost:1",
            "bench.example:443",
        ] {
            assert!(guard.host_allowed(ok), "{ok}");
        }
        for bad in [
            "attacker.example:8080",
            "127.0.0.1.nip.io:8080",
            "localhost.attacker.example",
            "example",
            "",
        ] {
            assert!(!guard.host_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn origins_must_match_the_host_or_the_allow_list() {
        let guard = Guard::new(
            vec![],
            vec!["https://Tools.Example/".into()],
            None,
            0,
            DEFAULT_BODY_TIMEOUT,
        );
        let host = Some("127.0.0.1:8080");
        assert!(guard.origin_allowed("http://127.0.0.1:8080", host));
        assert!(guard.origin_allowed("https://tools.example", host));
        assert!(!guard.origin_allowed("http://127.0.0.1:9999", host));
        assert!(!guard.origin_allowed("http://evil.example", host));
        assert!(!guard.origin_allowed("null", host));
        assert!(!guard.origin_allowed("http://127.0.0.1:8080", None));
    }

    #[test]
    fn tokens_are_kept_as_hashes() {
        assert!(ApiToken::new("short").is_err());
        let token = ApiToken::new("tok-0123456789abcdef").unwrap();
        assert!(token.matches("tok-0123456789abcdef"));
        assert!(!token.matches("tok-0123456789abcdeX"));
        assert!(!token.cookie.contains("tok-0123456789abcdef"));
        assert!(token.cookie_matches(&token.cookie.clone()));
        assert_eq!(format!("{token:?}"), "ApiToken(***)");
    }
}
