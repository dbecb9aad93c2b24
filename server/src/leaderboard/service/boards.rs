//! Boards: create, edit, import reported entries, the audit log.

use serde_json::{Value, json};

use super::{Boards, audit, random_seed, stored_files};
use crate::files::NewFile;
use crate::leaderboard::competition::Competition;
use crate::leaderboard::dates::now_ms;
use crate::leaderboard::error::{LbError, internal};
use crate::leaderboard::input::{
    CreateBoard, EditBoard, MAX_DESCRIPTION_CHARS, apply_settings, check_meta, check_slug,
    check_text, uploads,
};
use crate::leaderboard::limits::{Client, HOUR_MS};
use crate::leaderboard::scoring::{self};
use crate::leaderboard::token;
use crate::store::{AuditRow, BoardEdit, BoardRow, EntryRow, Status};

impl Boards {
    /// Create a board; returns (slug, owner token).
    pub async fn create(
        &self,
        req: CreateBoard,
        sender: Client,
    ) -> Result<(String, String), LbError> {
        let now = now_ms();
        let who = sender.address_key();
        let made = self.created.count(&who, now - HOUR_MS);
        if made >= self.limits.boards_per_client_hour {
            return Err(LbError::Quota(format!(
                "this client address has created {made} boards in the last hour, the most it \
                 may (the server's --anon-boards-per-hour): try again later"
            )));
        }
        let created = self.create_board(req).await;
        if created.is_ok() {
            self.created.add(&who, now);
        }
        created
    }

    async fn create_board(&self, mut req: CreateBoard) -> Result<(String, String), LbError> {
        check_slug(&req.slug)?;
        check_text("title", &req.title, 200, true)?;
        check_text(
            "description",
            &req.description,
            MAX_DESCRIPTION_CHARS,
            false,
        )?;
        let hidden = !req.hidden_gold.is_empty();
        if hidden && !req.gold.is_empty() {
            return Err(LbError::BadRequest(
                "give the gold as `gold` (public) or `hidden_gold`, not both".into(),
            ));
        }
        // Decoding the files (and a spec among them: a board of a benchmark defined by a spec
        // carries the spec's `.toml`) is CPU work: off the runtime's threads.
        let files = if hidden {
            std::mem::take(&mut req.hidden_gold)
        } else {
            std::mem::take(&mut req.gold)
        };
        let key = req.benchmark.clone();
        let (uploaded, spec_file) = tokio::task::spawn_blocking(move || {
            let mut uploaded = uploads(files)?;
            let spec =
                scoring::take_spec(&key, &mut uploaded).map_err(|e| LbError::BadRequest(e.0))?;
            Ok::<_, LbError>((uploaded, spec))
        })
        .await
        .map_err(internal)??;
        if let Some(spec) = &spec_file
            && req.benchmark.is_empty()
        {
            req.benchmark = spec.role.benchmark_key().to_string();
        }
        if req.benchmark.is_empty() {
            return Err(LbError::BadRequest(
                "name the board's benchmark (`benchmark`), or give its spec (a .toml) with the gold files".into(),
            ));
        }
        let bench = scoring::benchmark(&req.benchmark).map_err(|e| LbError::BadRequest(e.0))?;
        let variant_name = req
            .variant
            .clone()
            .unwrap_or_else(|| bench.variants()[0].report_name.to_string());
        scoring::variant(bench, &variant_name).map_err(|e| LbError::BadRequest(e.0))?;
        let primary = req
            .primary
            .clone()
            .unwrap_or_else(|| bench.primary_metric().to_string());
        // By default the headline metrics, and the ones some reports add when the board ranks
        // by one of those (an EOTGC board by `total` shows `track2` and `total`).
        let metrics: Vec<String> = req.metrics.clone().unwrap_or_else(|| {
            let more = bench.more_metrics();
            let shown = if more.contains(&primary.as_str()) {
                [bench.metrics(), more].concat()
            } else {
                bench.metrics().to_vec()
            };
            shown.iter().map(|m| (*m).to_string()).collect()
        });
        check_metric_names(bench, &primary, &metrics)?;
        if !hidden && req.competition.is_some() {
            return Err(LbError::BadRequest(
                "phase settings need a hidden-gold board (`hidden_gold`)".into(),
            ));
        }
        let competition = if hidden {
            let mut c = Competition {
                seed: random_seed()?,
                ..Default::default()
            };
            if let Some(settings) = req.competition {
                apply_settings(&mut c, settings)?;
            }
            Some(crate::store::json_text(&c))
        } else {
            None
        };
        // Finding the files' roles and rendering the description are CPU work: off the
        // runtime's threads.
        let description = req.description.clone();
        let (gold, description_html) = tokio::task::spawn_blocking(move || {
            let mut gold = scoring::with_roles(bench, uploaded, true)?;
            gold.extend(spec_file);
            let html = crate::leaderboard::markup::description_html(&description)
                .map_err(LbError::BadRequest)?;
            Ok::<_, LbError>((gold, html))
        })
        .await
        .map_err(internal)??;
        let owner = token::new_token(token::OWNER_PREFIX).map_err(internal)?;
        let now = now_ms();
        let (refs, writing) = stored_files(&gold);
        let board = BoardRow {
            slug: req.slug.clone(),
            title: req.title,
            description: req.description,
            benchmark: bench.key().into(),
            variant: variant_name,
            primary_metric: primary,
            metrics,
            gold: refs,
            owner_token_sha256: token::hash(&owner),
            created_ms: now,
            updated_ms: now,
            competition,
            description_html: Some(description_html),
        };
        // A hidden gold's hash is not recorded where the owner could be asked to show it.
        let gold_detail: Value = if hidden {
            json!({"hidden": board.gold.len()})
        } else {
            json!(
                board
                    .gold
                    .iter()
                    .map(|f| json!({"name": f.name, "sha256": f.sha256}))
                    .collect::<Vec<_>>()
            )
        };
        let detail = json!({
            "title": board.title, "benchmark": board.benchmark, "variant": board.variant,
            "primary": board.primary_metric,
            "gold": gold_detail,
        });
        let held = self.write_files(writing).await?;
        let created = self
            .store
            .create_board(
                board,
                held.blobs.clone(),
                audit("public", "create board", None, detail),
            )
            .await;
        self.release(held, created.is_ok()).await;
        created?;
        Ok((req.slug, owner))
    }

    /// Edit the board (owner).
    pub async fn edit_board(
        &self,
        slug: &str,
        token: Option<&str>,
        edit: EditBoard,
    ) -> Result<(), LbError> {
        let board = self.owned(slug, token).await?;
        let bench = scoring::benchmark(&board.benchmark)?;
        let description = edit
            .description
            .unwrap_or_else(|| board.description.clone());
        check_text("description", &description, MAX_DESCRIPTION_CHARS, false)?;
        let description_html = {
            let description = description.clone();
            tokio::task::spawn_blocking(move || {
                crate::leaderboard::markup::description_html(&description)
            })
            .await
            .map_err(internal)?
            .map_err(LbError::BadRequest)?
        };
        let next = BoardEdit {
            title: edit.title.unwrap_or_else(|| board.title.clone()),
            description,
            description_html,
            primary_metric: edit.primary.unwrap_or_else(|| board.primary_metric.clone()),
            metrics: edit.metrics.unwrap_or_else(|| board.metrics.clone()),
        };
        check_text("title", &next.title, 200, true)?;
        check_metric_names(bench, &next.primary_metric, &next.metrics)?;
        let detail = json!({
            "from": {"title": board.title, "description": board.description,
                     "primary": board.primary_metric, "metrics": board.metrics},
            "to": {"title": next.title, "description": next.description,
                   "primary": next.primary_metric, "metrics": next.metrics},
        });
        self.store
            .edit_board(slug, next, audit("owner", "edit board", None, detail))
            .await?;
        Ok(())
    }

    /// The audit log (owner).
    pub async fn audit_log(
        &self,
        slug: &str,
        token: Option<&str>,
    ) -> Result<Vec<AuditRow>, LbError> {
        self.owned(slug, token).await?;
        Ok(self.store.audit(slug).await?)
    }

    /// A new owner token for the board (owner); the old one is refused from then on. The new
    /// token is returned once, stored as its SHA-256 only.
    pub async fn rotate_owner_token(
        &self,
        slug: &str,
        token: Option<&str>,
    ) -> Result<String, LbError> {
        let board = self.owned(slug, token).await?;
        let owner = token::new_token(token::OWNER_PREFIX).map_err(internal)?;
        self.store
            .rotate_owner_token(
                &board.slug,
                token::hash(&owner),
                audit("owner", "rotate token", None, json!({})),
            )
            .await?;
        Ok(owner)
    }

    /// Delete the board with its entries, files and audit log (owner).
    pub async fn delete_board(&self, slug: &str, token: Option<&str>) -> Result<(), LbError> {
        let board = self.owned(slug, token).await?;
        self.store.delete_board(&board.slug).await?;
        self.collect_files().await;
        tracing::info!(board = %board.slug, "board deleted by its owner");
        Ok(())
    }

    /// Import a table's rows as `reported` entries (owner); returns their ids.
    pub async fn import(
        &self,
        slug: &str,
        token: Option<&str>,
        rows: Vec<crate::leaderboard::import::ReportedRow>,
    ) -> Result<Vec<i64>, LbError> {
        let board = self.owned(slug, token).await?;
        let mut ids = Vec::new();
        for row in rows {
            check_text("model", &row.model, 200, true)?;
            let report = reported_report(&board, &row);
            let meta = check_meta(row.meta)?;
            let now = now_ms();
            let detail =
                json!({"model": row.model, "metrics": row.metrics, "subsets": row.subsets});
            let entry = EntryRow {
                meta,
                metrics_json: crate::store::json_text(&row.metrics),
                ..EntryRow::new(row.model, Status::Reported, now)
            };
            let held = self
                .write_files(report.map(|r| NewFile::of(r.into())).into_iter().collect())
                .await?;
            let added = self
                .store
                .add_entry(
                    &board.slug,
                    entry,
                    held.blobs.first().cloned(),
                    vec![],
                    crate::store::Limits::default(),
                    audit("owner", "import", None, detail),
                )
                .await;
            self.release(held, added.is_ok()).await;
            ids.push(added?);
        }
        Ok(ids)
    }
}

/// The report of an imported row with per-subset values: the published numbers in the report
/// shape (no inputs, `n` 0: nothing was scored here), so the entry page shows its subsets.
fn reported_report(
    board: &BoardRow,
    row: &crate::leaderboard::import::ReportedRow,
) -> Option<String> {
    use metrics_core::report::{MetricValue, Overall, Report, Subset, Warning};
    let metric = row.subsets_metric.as_deref()?;
    if row.subsets.is_empty() {
        return None;
    }
    let scalars = |m: &indexmap::IndexMap<String, Option<f64>>| {
        m.iter()
            .map(|(k, v)| (k.clone(), MetricValue::Scalar(*v)))
            .collect()
    };
    let report = Report {
        benchmark: board.benchmark.clone(),
        variant: board.variant.clone(),
        inputs: Vec::new(),
        overall: Overall {
            n: 0,
            metrics: scalars(&row.metrics),
        },
        subsets: row
            .subsets
            .iter()
            .map(|(name, v)| Subset {
                name: name.clone(),
                n: 0,
                metrics: std::iter::once((metric.to_string(), MetricValue::Scalar(*v))).collect(),
            })
            .collect(),
        samples: None,
        warnings: vec![Warning {
            path: String::new(),
            line: None,
            message: "reported: numbers imported from a published table, not scored here".into(),
        }],
    };
    Some(crate::store::json_text(&report))
}

fn check_metric_names(
    bench: &dyn workbench::Benchmark,
    primary: &str,
    metrics: &[String],
) -> Result<(), LbError> {
    let known = [bench.metrics(), bench.more_metrics()].concat();
    for m in std::iter::once(primary).chain(metrics.iter().map(String::as_str)) {
        if !known.contains(&m) {
            return Err(LbError::BadRequest(format!(
                "{} has no metric `{m}`; its metrics: {}",
                bench.label(),
                known.join(", ")
            )));
        }
    }
    Ok(())
}
