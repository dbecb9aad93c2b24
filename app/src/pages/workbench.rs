//! The workbench page: drop files, see each file's report and chart.

use leptos::prelude::*;
use leptos::task::spawn_local;
use metrics_core::confusion::ConfusionMatrix;
use metrics_core::pairs::{PairsOptions, parse_pairs, score_pairs};
use metrics_core::{InputFile, Report};

use crate::charts::confusion_heatmap;
use crate::components::drop_zone::DropZone;
use crate::components::metric_cell::MetricCell;
use crate::files::{DroppedFile, read};

/// What one dropped file became: a report with its chart, or a message naming file and line.
#[derive(Clone)]
enum Outcome {
    Scored {
        report: Report,
        chart_svg: Result<String, String>,
    },
    Failed(String),
}

#[derive(Clone)]
struct Scored {
    id: usize,
    name: String,
    outcome: Outcome,
}

fn score_file(file: &DroppedFile) -> Outcome {
    let text = match std::str::from_utf8(&file.bytes) {
        Ok(t) => t,
        Err(e) => return Outcome::Failed(format!("{}: not UTF-8 text: {e}", file.name)),
    };
    match parse_pairs(&file.name, text) {
        Ok(pairs) => {
            let report = score_pairs(
                InputFile::from_bytes(file.name.clone(), &file.bytes),
                &pairs,
                &PairsOptions::default(),
            );
            let chart_svg = confusion_heatmap(&ConfusionMatrix::new(&pairs.gold, &pairs.pred));
            Outcome::Scored { report, chart_svg }
        }
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

#[component]
pub fn Workbench() -> impl IntoView {
    let (results, set_results) = signal(Vec::<Scored>::new());
    let (busy, set_busy) = signal(0usize);
    let next_id = StoredValue::new(0usize);

    let on_files = Callback::new(move |files: Vec<web_sys::File>| {
        for file in files {
            set_busy.update(|n| *n += 1);
            let id = next_id.get_value();
            next_id.set_value(id + 1);
            spawn_local(async move {
                let name = file.name();
                let outcome = match read(&file).await {
                    Ok(dropped) => score_file(&dropped),
                    Err(message) => Outcome::Failed(message),
                };
                set_results.update(|r| r.push(Scored { id, name, outcome }));
                set_busy.update(|n| *n -= 1);
            });
        }
    });

    view! {
        <header>
            <h1>"scorebench"</h1>
            <p class="tagline">"Official benchmark numbers, computed in your browser."</p>
        </header>
        <main>
            <DropZone on_files=on_files />
            <Show when=move || { busy.get() > 0 }>
                <p class="progress" role="status">"Reading and scoring…"</p>
            </Show>
            <For each=move || results.get().into_iter().rev() key=|s| s.id let:s>
                <ResultCard scored=s />
            </For>
        </main>
    }
}

#[component]
fn ResultCard(scored: Scored) -> impl IntoView {
    let body = match scored.outcome.clone() {
        Outcome::Failed(message) => {
            view! { <p class="error" role="alert" data-testid="file-error">{message}</p> }
                .into_any()
        }
        Outcome::Scored { report, chart_svg } => {
            let why = report.warnings.iter().map(|w| w.message.clone()).next();
            let rows = report
                .overall
                .metrics
                .iter()
                .map(|(key, value)| {
                    view! {
                        <tr>
                            <th scope="row">{key.clone()}</th>
                            <MetricCell metric=key.clone() subset="overall".to_string() value=value.clone() why=why.clone().unwrap_or_default() />
                        </tr>
                    }
                })
                .collect_view();
            let chart = match chart_svg {
                Ok(svg) => {
                    view! { <div class="chart" data-chart="confusion" inner_html=svg></div> }
                        .into_any()
                }
                Err(e) => view! { <p class="error">{format!("chart: {e}")}</p> }.into_any(),
            };
            view! {
                <div class="report">
                    <table class="metrics">
                        <tbody>
                            <tr>
                                <th scope="row">"n"</th>
                                <td data-metric="n" data-subset="overall" data-value=report.overall.n.to_string()>
                                    {report.overall.n}
                                </td>
                            </tr>
                            {rows}
                        </tbody>
                    </table>
                    {chart}
                </div>
            }
            .into_any()
        }
    };
    let title = scored.name.clone();
    view! {
        <section class="card" data-file=scored.name>
            <h2>{title}</h2>
            {body}
        </section>
    }
}
