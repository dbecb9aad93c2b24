//! A board's webhooks (owner) and the events its changes queue for them
//! (`crate::leaderboard::hooks` delivers them).

use std::sync::Arc;

use serde_json::{Value, json};

use super::{Boards, audit};
use crate::leaderboard::dates::{iso8601, now_ms};
use crate::leaderboard::error::{LbError, internal};
use crate::leaderboard::hooks::{LOG_LINES, MAX_HOOKS, new_secret};
use crate::leaderboard::views::{BoardView, EntryOut};
use crate::store::{State, Status, WebhookRow};
use workbench::wire::{Delivery, Webhook, WebhookCreated, Webhooks};

/// The entries leading `view`: ranked first, or statistically tied with the first (tier 1);
/// reported entries are not news (the feed leaves them out too).
fn leading_group(view: &BoardView) -> Vec<&EntryOut> {
    view.entries
        .iter()
        .filter(|e| e.state == State::Visible && e.status != Status::Reported)
        .filter(|e| e.rank == Some(1) || e.tier == Some(1))
        .collect()
}

/// The group as stored: its entry ids, sorted, as JSON.
fn group_key(group: &[&EntryOut]) -> String {
    let mut ids: Vec<i64> = group.iter().map(|e| e.entry).collect();
    ids.sort_unstable();
    serde_json::to_string(&ids).unwrap_or_default()
}

impl Boards {
    fn link(&self, path: String) -> Value {
        match &self.hooks.public_url {
            Some(origin) => {
                json!({"path": path, "url": format!("{}{path}", origin.trim_end_matches('/'))})
            }
            None => json!({"path": path}),
        }
    }

    fn board_json(&self, view: &BoardView) -> Value {
        let b = &view.board;
        json!({
            "slug": b.slug,
            "title": b.title,
            "benchmark": b.benchmark,
            "primary": b.primary,
            "lower_is_better": b.lower_is_better,
            "link": self.link(format!("/leaderboard/{}", b.slug)),
        })
    }

    fn entry_json(&self, view: &BoardView, e: &EntryOut) -> Value {
        json!({
            "entry": e.entry,
            "model": e.model,
            "team": e.team,
            "rank": e.rank,
            "tier": e.tier,
            "metrics": e.metrics,
            "submitted": e.submitted,
            "link": self.link(format!("/leaderboard/{}/entry/{}", view.board.slug, e.entry)),
        })
    }

    /// Add a webhook (owner): its URL must be on the server's allowed hosts.
    pub async fn add_webhook(
        self: &Arc<Self>,
        slug: &str,
        token: Option<&str>,
        url: &str,
    ) -> Result<WebhookCreated, LbError> {
        self.owned(slug, token).await?;
        let url = url.trim();
        if url.len() > 2000 {
            return Err(LbError::BadRequest("the webhook URL is too long".into()));
        }
        if let Some(why) = self.hooks.refusal(url) {
            return Err(LbError::Forbidden(why));
        }
        if self.store.webhooks(slug).await?.len() >= MAX_HOOKS {
            return Err(LbError::Conflict(format!(
                "`{slug}` has {MAX_HOOKS} webhooks, the most a board may have"
            )));
        }
        let view = self.show(slug, None).await?;
        let leaders = group_key(&leading_group(&view));
        let secret = new_secret().map_err(internal)?;
        let hook = WebhookRow {
            id: 0,
            slug: slug.into(),
            url: url.into(),
            secret: secret.clone(),
            created_ms: now_ms(),
        };
        // The audit names the host, not the URL (its path may be a receiver's secret).
        let host = reqwest::Url::parse(url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_default();
        let id = self
            .store
            .add_webhook(
                hook,
                leaders,
                audit("owner", "add webhook", None, json!({"host": host})),
            )
            .await?;
        Ok(WebhookCreated {
            id,
            url: url.into(),
            secret,
        })
    }

    /// The hooks and the latest deliveries (owner).
    pub async fn webhooks(&self, slug: &str, token: Option<&str>) -> Result<Webhooks, LbError> {
        self.owned(slug, token).await?;
        let webhooks = self
            .store
            .webhooks(slug)
            .await?
            .into_iter()
            .map(|h| Webhook {
                id: h.id,
                url: h.url,
                created: iso8601(h.created_ms),
            })
            .collect();
        let deliveries = self
            .store
            .deliveries(slug, LOG_LINES)
            .await?
            .into_iter()
            .map(|d| Delivery {
                id: d.id,
                webhook: d.hook_id,
                url: d.url,
                next_attempt: (d.state == "pending").then(|| iso8601(d.next_ms)),
                event: d.event,
                state: d.state,
                attempts: d.attempts,
                last_status: d.last_status,
                last_error: d.last_error,
                created: iso8601(d.created_ms),
                updated: iso8601(d.updated_ms),
            })
            .collect();
        Ok(Webhooks {
            webhooks,
            deliveries,
        })
    }

    pub async fn delete_webhook(
        &self,
        slug: &str,
        token: Option<&str>,
        id: i64,
    ) -> Result<(), LbError> {
        self.owned(slug, token).await?;
        let audit = audit("owner", "delete webhook", None, json!({"webhook": id}));
        if self.store.delete_webhook(slug, id, audit).await? {
            Ok(())
        } else {
            Err(LbError::NotFound(format!("no webhook {id} on `{slug}`")))
        }
    }

    /// After a change of `slug` (`entry`: an entry that may have become visible), queue its
    /// events for the board's webhooks, in the background; failures are logged, never the
    /// request's.
    pub fn changed(self: &Arc<Self>, slug: &str, entry: Option<i64>) {
        let (this, slug) = (Arc::clone(self), slug.to_string());
        tokio::spawn(async move {
            if let Err(e) = this.announce(&slug, entry).await {
                tracing::warn!(slug, "webhook events: {e}");
            }
        });
    }

    /// Queue `slug`'s events: `entry.created` for `entry` when it is ranked, and
    /// `leader.changed` when the leading group differs from the one last announced (checked
    /// once no interval is pending, so a group is announced when it is known).
    pub(super) async fn announce(
        self: &Arc<Self>,
        slug: &str,
        entry: Option<i64>,
    ) -> Result<(), LbError> {
        if self.store.webhooks(slug).await?.is_empty() {
            return Ok(());
        }
        let view = self.show(slug, None).await?;
        let at = iso8601(now_ms());
        let mut events = Vec::new();
        if let Some(e) = entry.and_then(|id| view.entries.iter().find(|e| e.entry == id)) {
            let body = json!({
                "event": "entry.created",
                "at": at,
                "board": self.board_json(&view),
                "entry": self.entry_json(&view, e),
            });
            events.push(("entry.created".to_string(), body.to_string()));
        }
        let before = self.store.leaders(slug).await?;
        let group = leading_group(&view);
        let key = group_key(&group);
        let settled = view.bootstrap.pending == 0;
        let leaders = if settled && before.as_deref() != Some(key.as_str()) {
            let previous: Vec<i64> = before
                .as_deref()
                .and_then(|b| serde_json::from_str(b).ok())
                .unwrap_or_default();
            let body = json!({
                "event": "leader.changed",
                "at": at,
                "board": self.board_json(&view),
                "leaders": group.iter().map(|e| self.entry_json(&view, e)).collect::<Vec<_>>(),
                "previous": previous,
            });
            events.push(("leader.changed".to_string(), body.to_string()));
            key
        } else {
            before.clone().unwrap_or(key)
        };
        if events.is_empty() {
            return Ok(());
        }
        let queued = self
            .store
            .enqueue_events(slug, before, leaders, events, now_ms())
            .await?;
        if queued > 0 {
            self.hook_notify.notify_one();
        }
        Ok(())
    }
}
