//! The one place the page handles a board's tokens: an owner token (`sbo_…`), an entry token
//! (`sbe_…`) or a competition team's token (`sbt_…`) the user holds, sent to this scorebench server as a bearer credential and kept in
//! this browser's `localStorage` when the user asks. These are never upstream API keys (those
//! stay on the server); `scripts/check-invariants.sh` allows credential headers in this file
//! only.

use gloo_net::http::RequestBuilder;

/// `request` carrying a board token.
pub fn with_token(request: RequestBuilder, token: &str) -> RequestBuilder {
    request.header("Authorization", &format!("Bearer {}", token.trim()))
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// The token kept under `key` in this browser.
pub fn saved(key: &str) -> Option<String> {
    storage()?.get_item(key).ok()?.filter(|t| !t.is_empty())
}

pub fn keep(key: &str, token: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(key, token);
    }
}

pub fn forget(key: &str) {
    if let Some(s) = storage() {
        let _ = s.remove_item(key);
    }
}

/// Where a board's owner token is kept.
pub fn owner_key(slug: &str) -> String {
    format!("scorebench.owner.{slug}")
}

/// Where an entry's token is kept.
pub fn entry_key(slug: &str, id: i64) -> String {
    format!("scorebench.entry.{slug}.{id}")
}

/// Where a competition team's token is kept.
pub fn team_key(slug: &str) -> String {
    format!("scorebench.team.{slug}")
}
