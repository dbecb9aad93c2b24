//! A drop zone with a file picker: hands every chosen file to `on_files`, and calls `on_near`
//! as soon as a file may come (the pointer or the keyboard reaches the zone) so the page can
//! start loading what scores it.

use leptos::prelude::*;
use web_sys::HtmlInputElement;

use crate::files::list;
use crate::i18n::tr;

#[component]
pub fn DropZone(
    on_files: Callback<Vec<web_sys::File>>,
    #[prop(optional)] on_near: Option<Callback<()>>,
) -> impl IntoView {
    let near = move || {
        if let Some(cb) = on_near {
            cb.run(());
        }
    };
    let (hover, set_hover) = signal(false);
    view! {
        <label
            class="drop-zone"
            class:hover=move || hover.get()
            on:pointerenter=move |_| near()
            on:focusin=move |_| near()
            on:dragover=move |ev: web_sys::DragEvent| {
                ev.prevent_default();
                set_hover.set(true);
            }
            on:dragleave=move |_| set_hover.set(false)
            on:drop=move |ev: web_sys::DragEvent| {
                ev.prevent_default();
                set_hover.set(false);
                if let Some(files) = ev.data_transfer().and_then(|dt| dt.files()) {
                    on_files.run(list(&files));
                }
            }
        >
            <strong>{tr("drop.title")}</strong>
            <span>{tr("drop.hint")}</span>
            <input
                type="file"
                multiple
                data-testid="file-input"
                on:change=move |ev| {
                    let input: HtmlInputElement = event_target(&ev);
                    if let Some(files) = input.files() {
                        on_files.run(list(&files));
                    }
                    input.set_value("");
                }
            />
        </label>
    }
}
