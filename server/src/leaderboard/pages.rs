//! The pages a person or another site reads (no JSON API): the server-rendered board, list,
//! entry and compare pages, the badge, the Atom feed, the embed, and the receipt key.

use axum::Json;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;

use super::api::{LbState, entry_id};
use super::error::LbError;
use super::{feeds, html};

/// The page routes, with their state.
pub fn router(state: LbState) -> Router {
    Router::new()
        .route("/leaderboards", get(html_list))
        .route("/leaderboard/{slug}", get(html_board))
        .route("/leaderboard/{slug}/entry/{id}", get(html_entry))
        .route("/leaderboard/{slug}/compare/{a}/{b}", get(html_compare))
        .route("/leaderboard/{slug}/badge/{file}", get(badge))
        .route("/leaderboard/{slug}/feed.atom", get(feed))
        .route("/embed/leaderboard/{slug}", get(embed))
        .route("/.well-known/scorebench-key", get(public_key))
        .with_state(state)
}

/// An HTML error page (the pages are for people).
fn html_error(e: LbError) -> Response {
    let status = e.into_response().status();
    let message = match status {
        StatusCode::NOT_FOUND => "No such leaderboard or entry.",
        _ => "The leaderboard could not be shown.",
    };
    (status, Html(html::error_page(message))).into_response()
}

async fn html_list(State(s): State<LbState>) -> Response {
    match s.boards.store.boards().await {
        Ok(boards) => Html(html::boards_page(&boards)).into_response(),
        Err(e) => html_error(e.into()),
    }
}

#[derive(Deserialize)]
struct PageQuery {
    /// From 1; anything else shows the first page.
    page: Option<String>,
}

/// `GET /leaderboard/{slug}/feed.atom`: the board's news ([`feeds::atom`]).
async fn feed(State(s): State<LbState>, Path(slug): Path<String>, headers: HeaderMap) -> Response {
    match s.boards.show(&slug, None).await {
        Ok(view) => (
            [
                (header::CONTENT_TYPE, "application/atom+xml; charset=utf-8"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            feeds::atom(&view, &s.guard.public_origin(&headers)),
        )
            .into_response(),
        Err(e) => html_error(e),
    }
}

#[derive(Deserialize)]
struct EmbedQuery {
    /// Rows shown (default 10, at most 100).
    rows: Option<String>,
    /// `light` | `dark` (default: the reader's preference).
    theme: Option<String>,
}

/// `GET /embed/leaderboard/{slug}`: the top rows for an `<iframe>` ([`feeds::embed`]); the
/// only page other sites may frame (`--embed-ancestors`), with no script at all.
async fn embed(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    Query(q): Query<EmbedQuery>,
    headers: HeaderMap,
) -> Response {
    let rows = q
        .rows
        .and_then(|r| r.parse::<usize>().ok())
        .unwrap_or(feeds::EMBED_ROWS)
        .clamp(1, feeds::EMBED_MAX_ROWS);
    let theme = feeds::Theme::parse(q.theme.as_deref());
    let view = match s.boards.show(&slug, None).await {
        Ok(view) => view,
        Err(e) => return html_error(e),
    };
    let page = feeds::embed(&view, &s.guard.public_origin(&headers), rows, theme);
    let style = crate::http::style_hash(feeds::EMBED_STYLE);
    let csp = format!(
        "default-src 'none'; style-src 'sha256-{style}'; img-src 'self' data:; base-uri 'none'; \
         form-action 'none'; frame-ancestors {}",
        s.embed_ancestors
    );
    let mut response = Html(page).into_response();
    if let Ok(csp) = header::HeaderValue::from_str(&csp) {
        response
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    response.extensions_mut().insert(crate::http::Embeddable);
    response
}

/// `GET /.well-known/scorebench-key`: the public key receipts are signed with.
async fn public_key(
    State(s): State<LbState>,
) -> Result<Json<workbench::receipt::PublicKey>, LbError> {
    Ok(Json(s.boards.public_key().await?))
}

async fn html_board(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    Query(q): Query<PageQuery>,
    headers: HeaderMap,
) -> Response {
    match s.boards.show(&slug, None).await {
        Ok(view) => Html(html::board_page(
            &view,
            &s.guard.public_origin(&headers),
            q.page.and_then(|p| p.parse().ok()).unwrap_or(1),
        ))
        .into_response(),
        Err(e) => html_error(e),
    }
}

async fn html_entry(
    State(s): State<LbState>,
    Path((slug, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let id = match entry_id(&id) {
        Ok(id) => id,
        Err(e) => return html_error(e),
    };
    let view = match s.boards.show(&slug, None).await {
        Ok(v) => v,
        Err(e) => return html_error(e),
    };
    match s.boards.entry(&slug, id, false, None).await {
        Ok(detail) => Html(html::entry_page(
            &view,
            &detail,
            &s.guard.public_origin(&headers),
        ))
        .into_response(),
        Err(e) => html_error(e),
    }
}

async fn html_compare(
    State(s): State<LbState>,
    Path((slug, a, b)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    let (a, b) = match (entry_id(&a), entry_id(&b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return html_error(e),
    };
    match s.boards.show(&slug, None).await {
        Ok(view) => Html(html::compare_page(
            &view,
            a,
            b,
            &s.guard.public_origin(&headers),
        ))
        .into_response(),
        Err(e) => html_error(e),
    }
}

async fn badge(State(s): State<LbState>, Path((slug, file)): Path<(String, String)>) -> Response {
    let Some(id) = file
        .strip_suffix(".svg")
        .and_then(|i| i.parse::<i64>().ok())
    else {
        return html_error(LbError::NotFound(file));
    };
    match s.boards.show(&slug, None).await {
        Ok(view) => match html::badge(&view, id) {
            Some(svg) => (
                [
                    (header::CONTENT_TYPE, "image/svg+xml; charset=utf-8"),
                    (header::CACHE_CONTROL, "no-cache"),
                    (
                        header::CONTENT_SECURITY_POLICY,
                        "default-src 'none'; style-src 'unsafe-inline'",
                    ),
                ],
                svg,
            )
                .into_response(),
            None => html_error(LbError::NotFound(format!("no entry {id}"))),
        },
        Err(e) => html_error(e),
    }
}
