//! The list of boards.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::api::{self, BoardSummary};
use super::seg;
use crate::i18n::tr;

#[component]
pub fn BoardsPage() -> impl IntoView {
    let loaded: RwSignal<Option<Result<Vec<BoardSummary>, String>>> = RwSignal::new(None);
    spawn_local(async move {
        loaded.set(Some(api::boards().await.map_err(|e| e.to_string())));
    });
    view! {
        <h2>{tr("lb.boards")}</h2>
        {move || match loaded.get() {
            None => view! { <p class="hint">{tr("lb.loading")}</p> }.into_any(),
            Some(Err(e)) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            Some(Ok(boards)) if boards.is_empty() => {
                view! { <p class="hint">{tr("lb.no_boards")}</p> }.into_any()
            }
            Some(Ok(boards)) => view! {
                <table class="metrics boards" data-testid="boards">
                    <thead>
                        <tr>
                            <th scope="col">{tr("lb.board")}</th>
                            <th scope="col">{tr("lb.benchmark")}</th>
                            <th scope="col">{tr("lb.entries")}</th>
                        </tr>
                    </thead>
                    <tbody>
                        {boards.into_iter().map(|b| view! {
                            <tr data-slug=b.slug.clone()>
                                <td><a href=format!("/leaderboard/{}", seg(&b.slug))>{b.title.clone()}</a></td>
                                <td class="mono">{b.benchmark.clone()}</td>
                                <td class="num">{b.entries}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            }.into_any(),
        }}
        <super::create::CreateBoardForm />
        <p><a href="/">{tr("lb.workbench")}</a></p>
    }
}
