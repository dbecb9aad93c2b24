//! Two entries of a board side by side: both entries' files (and the board's gold) are loaded
//! into the worker as two models, and the workbench's sample-aligned compare view does the rest
//! (metrics, paired bootstrap intervals, per-sample differences).

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::api::{self, EntryDetail};
use super::entry::{keep_roles, load_into, variant_of};
use super::seg;
use crate::components::compare_view::CompareView;
use crate::components::progress::ProgressBar;
use crate::i18n::{lang, t, tr};
use crate::worker_client::WorkbenchState;

#[component]
pub fn ComparePage(slug: String, a: i64, b: i64) -> impl IntoView {
    let state = WorkbenchState::new();
    let names: RwSignal<Option<(String, String)>> = RwSignal::new(None);
    let error: RwSignal<Option<String>> = RwSignal::new(None);
    let ui_lang = lang();
    {
        let slug = slug.clone();
        spawn_local(async move {
            let result: Result<(), String> = async {
                let board = api::board(&slug).await.map_err(|e| e.to_string())?;
                let ea: EntryDetail = api::entry(&slug, a).await.map_err(|e| e.to_string())?;
                let eb: EntryDetail = api::entry(&slug, b).await.map_err(|e| e.to_string())?;
                if ea.hidden_gold() || board.board.hidden_gold() {
                    return Err(t(ui_lang.get_untracked(), "lb.hidden_gold").to_string());
                }
                if ea.inputs.is_empty() || eb.inputs.is_empty() {
                    return Err(t(ui_lang.get_untracked(), "lb.reported_entry").to_string());
                }
                names.set(Some((ea.model.clone(), eb.model.clone())));
                state.set_variant(variant_of(&board.board.variant));
                keep_roles(
                    state,
                    ea.inputs
                        .iter()
                        .chain(eb.inputs.iter())
                        .chain(board.board.gold.iter())
                        .map(|f| (f.name.clone(), f.role.clone()))
                        .collect(),
                );
                let first: Vec<api::FileOut> = board
                    .board
                    .gold
                    .iter()
                    .chain(ea.inputs.iter())
                    .cloned()
                    .collect();
                load_into(state, &first).await?;
                load_into(state, &eb.inputs).await
            }
            .await;
            if let Err(e) = result {
                error.set(Some(e));
            }
        });
    }
    view! {
        <p><a href=format!("/leaderboard/{}", seg(&slug))>{slug.clone()}</a></p>
        <h2>{tr("lb.compare_title")}</h2>
        {move || names.get().map(|(na, nb)| view! {
            <p class="hint" data-testid="compare-names">
                {tr("lb.compare_models")} <strong>{na.clone()}</strong>
                {format!(" (#{a}) · ")}
                {tr("lb.compare_models2")} <strong>{nb.clone()}</strong>
                {format!(" (#{b})")}
            </p>
        })}
        {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        <ProgressBar progress=state.progress.into() />
        <ul class="page-errors">
            {move || state.errors.get().into_iter().map(|e| view! { <li class="error" role="alert">{e}</li> }).collect_view()}
        </ul>
        <div class="outcomes" data-ready=move || state.warm.get().to_string()>
            <CompareView state=state />
        </div>
    }
}
