//! "Share privately": the button and its dialog (make a link, see its expiry, the delete token
//! shown once, delete), and the opening of a `/s/<id>#<key>` link. The sealing is `share.rs`;
//! this file renders and sequences.
//!
//! Opening writes the sender's adjustments into this browser's IndexedDB (so the recipient
//! can go on from them), but never over the recipient's own adjustments for the same essays
//! file without asking: on "Cancel" the recipient's stay and the sender's are not applied.

use leptos::prelude::*;
use leptos::task::spawn_local;
use workbench::url_state::ViewState;

use crate::adjustments;
use crate::i18n::{Lang, lang, t, tr};
use crate::share::{self, EXPIRY_DAYS, Header, ShareError, SharedAdjustments};
use crate::worker_client::WorkbenchState;

/// A made link, as the dialog shows it.
#[derive(Debug, Clone, PartialEq)]
struct Made {
    id: String,
    link: String,
    expires_ms: i64,
    size_bytes: usize,
    delete_token: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    Choose,
    Working,
    Made(Made),
    Deleted,
    Failed(ShareError),
}

/// The message for a share error in `l`.
fn error_text(l: Lang, e: &ShareError) -> String {
    match e {
        ShareError::MissingKey => t(l, "share.missing_key").into(),
        ShareError::WrongKey => t(l, "share.wrong_key").into(),
        ShareError::NotFound => t(l, "share.not_found").into(),
        ShareError::Expired => t(l, "share.expired").into(),
        ShareError::TooLarge { size_bytes: 0 } => t(l, "share.too_large").into(),
        ShareError::TooLarge { size_bytes } => format!(
            "{} ({:.1} MiB)",
            t(l, "share.too_large"),
            *size_bytes as f64 / (1024.0 * 1024.0)
        ),
        ShareError::Unreadable(why) => format!("{} {why}", t(l, "share.unreadable")),
        ShareError::Other(why) => format!("{} {why}", t(l, "share.failed")),
    }
}

/// A stable name for tests and styles.
fn error_kind(e: &ShareError) -> &'static str {
    match e {
        ShareError::MissingKey => "missing-key",
        ShareError::WrongKey => "wrong-key",
        ShareError::NotFound => "not-found",
        ShareError::Expired => "expired",
        ShareError::TooLarge { .. } => "too-large",
        ShareError::Unreadable(_) => "unreadable",
        ShareError::Other(_) => "other",
    }
}

fn window_location() -> Option<web_sys::Location> {
    web_sys::window().map(|w| w.location())
}

/// Gather, seal, upload.
async fn make(state: WorkbenchState, days: u32) -> Result<Made, ShareError> {
    // Files past the limit are refused before any is read (a gigabyte Inspect log the worker
    // read in part would be read whole first).
    let held: usize = state
        .files
        .with_untracked(|f| f.iter().map(|f| f.size_bytes).sum());
    if held > share::MAX_SHARE_BYTES {
        return Err(ShareError::TooLarge { size_bytes: held });
    }
    let (files, models, bytes) = state.snapshot().await.map_err(ShareError::Other)?;
    let sizes: Vec<usize> = bytes.iter().map(|b| b.length() as usize).collect();
    // The last adjustment made just before "Share" is in.
    adjustments::settled().await;
    let mut shared: Vec<SharedAdjustments> = Vec::new();
    for outcome in state.outcomes.get_untracked() {
        let Some(class) = outcome.class else {
            continue;
        };
        if shared.iter().any(|s| s.class == class.sha256) {
            continue;
        }
        let saved = adjustments::load(&class.sha256)
            .await
            .map_err(ShareError::Other)?;
        let model_results = adjustments::load_model_results(&class.sha256)
            .await
            .map_err(ShareError::Other)?;
        if !saved.is_empty() || !model_results.is_empty() {
            shared.push(SharedAdjustments {
                class: class.sha256,
                file: class.file,
                adjustments: saved,
                model_results,
            });
        }
    }
    let location = window_location().ok_or_else(|| ShareError::Other("no window".into()))?;
    let query = location.search().unwrap_or_default();
    let view = ViewState::from_query(query.trim_start_matches('?')).to_query();
    let header = Header::new(&files, &sizes, models, view, shared);
    let plain = share::seal_plaintext(&header, &bytes)?;
    let (stored, key) = share::encrypt(&plain).await?;
    let created = share::upload(&stored, days).await?;
    let origin = location.origin().unwrap_or_default();
    Ok(Made {
        link: format!("{origin}/s/{}#{key}", created.id),
        id: created.id,
        expires_ms: created.expires_ms,
        size_bytes: created.size_bytes,
        delete_token: created.delete_token,
    })
}

/// The page's one share dialog and what opens it: the buttons may be re-created (the class
/// view re-renders) without losing a made link and its delete token, shown only once.
#[derive(Clone, Copy)]
pub struct ShareUi {
    open: RwSignal<bool>,
    phase: RwSignal<Phase>,
}

/// Provide the share dialog's state to the page (before any [`ShareButton`]).
pub fn provide_share_ui() {
    provide_context(ShareUi {
        open: RwSignal::new(false),
        phase: RwSignal::new(Phase::Choose),
    });
}

/// The "Share privately" button: opens the page's [`ShareDialog`] for a new link.
#[component]
pub fn ShareButton(state: WorkbenchState) -> impl IntoView {
    let ui = use_context::<ShareUi>();
    ui.map(|ui| {
        view! {
            <button
                class="share-button"
                data-action="share"
                disabled=move || state.files.get().is_empty()
                on:click=move |_| {
                    if !matches!(ui.phase.get_untracked(), Phase::Working) {
                        ui.phase.set(Phase::Choose);
                    }
                    ui.open.set(true);
                }
            >
                {tr("share.button")}
            </button>
        }
    })
}

/// The dialog, once per page: make a link, show it with its expiry and delete token, delete.
#[component]
pub fn ShareDialog(state: WorkbenchState) -> impl IntoView {
    let ui = use_context::<ShareUi>();
    ui.map(|ui| {
        let open = ui.open;
        move || {
            open.get()
                .then(|| view! { <DialogBody state=state ui=ui /> })
        }
    })
}

#[component]
fn DialogBody(state: WorkbenchState, ui: ShareUi) -> impl IntoView {
    let ShareUi { open, phase } = ui;
    let days = RwSignal::new(EXPIRY_DAYS[0]);
    let copied = RwSignal::new(false);
    let create = move |_| {
        phase.set(Phase::Working);
        spawn_local(async move {
            match make(state, days.get_untracked()).await {
                Ok(made) => phase.set(Phase::Made(made)),
                Err(e) => phase.set(Phase::Failed(e)),
            }
        });
    };
    let body = move || {
        let l = lang().get();
        match phase.get() {
            Phase::Choose => {
                let options = EXPIRY_DAYS
                    .iter()
                    .map(|&d| view! { <option value=d.to_string() selected=d == days.get_untracked()>{format!("{d} {}", t(l, "share.days"))}</option> })
                    .collect_view();
                view! {
                    <p>
                        <label>
                            {t(l, "share.expires_in")} " "
                            <select
                                aria-label="share expiry"
                                on:change=move |ev| {
                                    days.set(event_target_value(&ev).parse().unwrap_or(EXPIRY_DAYS[0]))
                                }
                            >
                                {options}
                            </select>
                        </label>
                        " "
                        <button data-action="share-create" on:click=create>{t(l, "share.create")}</button>
                    </p>
                }
                .into_any()
            }
            Phase::Working => view! { <p class="hint" data-testid="share-working">{t(l, "share.working")}</p> }.into_any(),
            Phase::Made(made) => {
                let Made { id, link, expires_ms, size_bytes, delete_token } = made;
                let (copy_link, token) = (link.clone(), delete_token.clone());
                let delete = move |_| {
                    let (id, token) = (id.clone(), token.clone());
                    spawn_local(async move {
                        match share::delete(&id, &token).await {
                            Ok(()) => phase.set(Phase::Deleted),
                            Err(e) => phase.set(Phase::Failed(e)),
                        }
                    });
                };
                view! {
                    <dl class="share-made" data-testid="share-made" data-expires-ms=expires_ms.to_string() data-size=size_bytes.to_string()>
                        <dt>{t(l, "share.link")}</dt>
                        <dd>
                            <input class="mono" readonly data-testid="share-link" aria-label="share link" prop:value=link.clone() size="60" />
                            " "
                            <button data-action="share-copy" on:click=move |_| {
                                if let Some(w) = web_sys::window() {
                                    let _ = w.navigator().clipboard().write_text(&copy_link);
                                    copied.set(true);
                                }
                            }>{move || if copied.get() { t(lang().get(), "share.copied") } else { t(lang().get(), "share.copy") }}</button>
                        </dd>
                        <dt>{t(l, "share.expires_on")}</dt>
                        <dd data-testid="share-expires">{share::date_of(expires_ms)} " (UTC)"</dd>
                        <dt>{t(l, "share.token")}</dt>
                        <dd><code data-testid="share-token">{delete_token}</code></dd>
                    </dl>
                    <p><button class="danger" data-action="share-delete" on:click=delete>{t(l, "share.delete")}</button></p>
                }
                .into_any()
            }
            Phase::Deleted => view! { <p class="ok" data-testid="share-deleted">{t(l, "share.deleted")}</p> }.into_any(),
            Phase::Failed(e) => view! {
                <p class="error" role="alert" data-testid="share-error" data-error=error_kind(&e)>{error_text(l, &e)}</p>
            }
            .into_any(),
        }
    };
    view! {
        <section class="card share-dialog" role="dialog" aria-label="share privately" data-testid="share-dialog">
            <h2>{tr("share.title")}</h2>
            <p class="hint">{tr("share.explain")}</p>
            <p class="hint">{tr("share.limit")}</p>
            {body}
            <p><button class="link" data-action="share-close" on:click=move |_| open.set(false)>{tr("share.close")}</button></p>
        </section>
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Opening {
    /// Not a share link.
    None,
    Working,
    Opened {
        files: usize,
        expires_ms: Option<i64>,
        /// Classes whose adjustments were written, and classes where the recipient kept theirs.
        saved: usize,
        kept: usize,
    },
    Failed(ShareError),
}

/// Opens `/s/<id>#<key>`: fetch, decrypt, hand the files to the worker, restore the view and
/// the adjustments; says what happened (or why not). Renders nothing on other pages.
#[component]
pub fn ShareOpen(state: WorkbenchState, on_view: Callback<ViewState>) -> impl IntoView {
    let status = RwSignal::new(Opening::None);
    let location = window_location();
    let id = location
        .as_ref()
        .and_then(|l| l.pathname().ok())
        .and_then(|p| share::share_id_of(&p));
    if let Some(id) = id {
        // The shared files go to the worker: load it while the blob is fetched and opened.
        state.wake();
        // Read now: the page rewrites its URL once it runs.
        let key = location
            .and_then(|l| l.hash().ok())
            .unwrap_or_default()
            .trim_start_matches('#')
            .to_string();
        status.set(Opening::Working);
        let l = lang();
        spawn_local(async move {
            status.set(match open(state, on_view, l, &id, &key).await {
                Ok(done) => done,
                Err(e) => Opening::Failed(e),
            });
        });
    }
    move || {
        let l = lang().get();
        match status.get() {
            Opening::None => None,
            Opening::Working => Some(
                view! { <p class="hint share-status" data-testid="share-status" data-state="opening">{t(l, "share.opening")}</p> }
                    .into_any(),
            ),
            Opening::Opened { files, expires_ms, saved, kept } => Some(
                view! {
                    <div class="share-status" data-testid="share-status" data-state="opened" data-files=files.to_string()>
                        <p class="ok">
                            {t(l, "share.opened")}
                            {expires_ms.map(|ms| format!(" {}: {} (UTC)", t(l, "share.expires_on"), share::date_of(ms)))}
                        </p>
                        {(saved > 0).then(|| view! { <p class="hint" data-testid="share-adjustments" data-state="saved">{t(l, "share.adjustments_saved")}</p> })}
                        {(kept > 0).then(|| view! { <p class="hint" data-testid="share-adjustments" data-state="kept">{t(l, "share.adjustments_kept")}</p> })}
                    </div>
                }
                .into_any(),
            ),
            Opening::Failed(e) => Some(
                view! {
                    <p class="error share-status" role="alert" data-testid="share-status" data-state="failed" data-error=error_kind(&e)>
                        {error_text(l, &e)}
                    </p>
                }
                .into_any(),
            ),
        }
    }
}

async fn open(
    state: WorkbenchState,
    on_view: Callback<ViewState>,
    l: RwSignal<Lang>,
    id: &str,
    key: &str,
) -> Result<Opening, ShareError> {
    if key.trim().is_empty() {
        return Err(ShareError::MissingKey);
    }
    let (stored, expires_ms) = share::fetch(id).await?;
    let plain = share::decrypt(&stored, key).await?;
    let (header, bytes) = share::open_plaintext(&plain)?;
    drop(plain);
    let (mut saved, mut kept) = (0, 0);
    for shared in &header.adjustments {
        let own = adjustments::load(&shared.class)
            .await
            .map_err(ShareError::Other)?;
        let own_model = adjustments::load_model_results(&shared.class)
            .await
            .map_err(ShareError::Other)?;
        let replace = (own.is_empty() && own_model.is_empty())
            || (own == shared.adjustments && own_model == shared.model_results)
            || web_sys::window()
                .and_then(|w| {
                    w.confirm_with_message(&format!(
                        "{}\n\n{}",
                        t(l.get_untracked(), "share.replace_confirm"),
                        shared.file
                    ))
                    .ok()
                })
                .unwrap_or(false);
        if replace {
            adjustments::save(&shared.class, &shared.adjustments)
                .await
                .map_err(ShareError::Other)?;
            adjustments::save_model_results(&shared.class, &shared.model_results)
                .await
                .map_err(ShareError::Other)?;
            saved += 1;
        } else {
            kept += 1;
        }
    }
    let view = ViewState::from_query(&header.view);
    let variant = view.variant;
    on_view.run(view);
    state.restore(header.held(), header.models, variant, &bytes);
    Ok(Opening::Opened {
        files: header.files.len(),
        expires_ms,
        saved,
        kept,
    })
}
