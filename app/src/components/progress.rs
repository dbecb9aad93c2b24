//! A progress bar for reading and scoring.

use leptos::prelude::*;

use crate::i18n::{lang, t};
use crate::worker_client::Progress;

#[component]
pub fn ProgressBar(progress: Signal<Option<Progress>>) -> impl IntoView {
    move || {
        progress.get().map(|p| {
            let fraction = if p.total > 0.0 {
                (p.done / p.total).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let l = lang().get();
            let label = match p.stage.as_str() {
                "reading" => format!(
                    "{} {:.0} / {:.0} MB",
                    t(l, "progress.reading"),
                    p.done / 1e6,
                    p.total / 1e6
                ),
                "bootstrap" => format!(
                    "{} {:.0} / {:.0}",
                    t(l, "progress.bootstrap"),
                    p.done,
                    p.total
                ),
                _ => t(l, "progress.scoring").to_string(),
            };
            view! {
                <div class="progress" role="status" data-testid="progress">
                    <progress max="1" value=fraction.to_string()></progress>
                    <span>{label}</span>
                </div>
            }
        })
    }
}
