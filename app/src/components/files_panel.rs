//! The files the user dropped, what each was recognised as, and a role override.

use leptos::prelude::*;

use crate::i18n::{lang, model_name, t, tr};
use crate::worker_client::WorkbenchState;

fn size_text(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

#[component]
pub fn FilesPanel(state: WorkbenchState) -> impl IntoView {
    let rows = move || {
        state
            .files
            .get()
            .into_iter()
            .map(|f| {
                let index = f.index;
                let options = state
                    .roles
                    .get()
                    .into_iter()
                    .map(|r| {
                        let selected = r.key == f.role;
                        view! { <option value=r.key selected=selected>{r.label}</option> }
                    })
                    .collect_view();
                view! {
                    <tr data-file=f.name.clone() data-role=f.role.clone()>
                        <td class="mono">{f.name.clone()}</td>
                        <td class="num">{size_text(f.size_bytes)}</td>
                        <td class="model">{let m = f.model.clone(); move || model_name(lang().get(), &m)}</td>
                        <td>
                            <select
                                aria-label="role"
                                on:change=move |ev| state.set_role(index, event_target_value(&ev))
                            >
                                {options}
                            </select>
                        </td>
                        <td class="why">{f.detected.why.clone()}</td>
                        <td>
                            <button class="link" title=tr("files.remove") on:click=move |_| state.remove(index)>
                                "✕"
                            </button>
                        </td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <Show when=move || !state.files.get().is_empty()>
            <details class="files" open>
                <summary>{move || format!("{} {}", state.files.get().len(), t(lang().get(), "files"))}</summary>
                <table class="files-table">
                    <thead>
                        <tr>
                            <th>{tr("files.file")}</th>
                            <th>{tr("files.size")}</th>
                            <th>{tr("files.model")}</th>
                            <th>{tr("files.role")}</th>
                            <th>{tr("files.why")}</th>
                            <th></th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </details>
        </Show>
    }
}
