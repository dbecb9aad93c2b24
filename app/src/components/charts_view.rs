//! The charts of one outcome: confusion matrix, score distributions, per-subset bars,
//! SAS-Bench error-type frequencies per tier, EOTGC levels per grade.

use leptos::prelude::*;
use metrics_core::Report;
use workbench::charts::{Chart, confusion, histogram, subset_bars};
use workbench::drill::SampleRow;

use crate::charts::{Series, confusion_heatmap, grouped_bars};
use crate::components::chart_box::ChartBox;
use crate::i18n::{lang, t};

#[component]
pub fn ChartsView(report: Report, rows: Vec<SampleRow>, charts: Vec<Chart>) -> impl IntoView {
    let mut ecs_errors = Vec::new();
    let mut levels = Vec::new();
    for chart in charts {
        match chart {
            Chart::TierErrors { files } => ecs_errors.extend(files),
            Chart::Levels { groups } => levels.extend(groups),
        }
    }
    let stem = report.benchmark.clone();
    let mut charts: Vec<(String, String, Result<String, String>)> = Vec::new();
    if let Some(cm) = confusion(&rows) {
        charts.push((
            format!("{stem}-confusion"),
            t(lang().get_untracked(), "charts.confusion").into(),
            confusion_heatmap(&cm, "gold × predicted"),
        ));
    }
    if !rows.is_empty() {
        let h = histogram(&rows);
        let series = [
            Series {
                name: "gold",
                values: h.gold.iter().map(|&c| c as f64).collect(),
            },
            Series {
                name: "predicted",
                values: h.pred.iter().map(|&c| c as f64).collect(),
            },
        ];
        charts.push((
            format!("{stem}-distribution"),
            t(lang().get_untracked(), "charts.distributions").into(),
            grouped_bars("gold vs predicted scores", &h.labels, &series, "records"),
        ));
    }
    for bars in subset_bars(&report) {
        if bars.labels.len() < 2 {
            continue;
        }
        let series = [Series {
            name: &bars.metric,
            values: bars.values.iter().map(|v| v.unwrap_or(0.0)).collect(),
        }];
        charts.push((
            format!("{stem}-{}-by-subset", bars.metric),
            format!("{} per subset (undefined drawn as 0)", bars.metric),
            grouped_bars(
                &format!("{} per subset", bars.metric),
                &bars.labels,
                &series,
                &bars.metric,
            ),
        ));
    }
    for (subset, errors) in &ecs_errors {
        match errors {
            Ok(e) => {
                for tier in &e.tiers {
                    let series = [
                        Series {
                            name: "gold",
                            values: tier.gold.clone(),
                        },
                        Series {
                            name: "predicted",
                            values: tier.pred.clone(),
                        },
                    ];
                    charts.push((
                        format!("ecs-{subset}-tier{}", tier.tier),
                        format!(
                            "{subset}: error types, {} (ρ = {:.3})",
                            tier.label, tier.correlation
                        ),
                        grouped_bars(
                            &format!("{subset} · {}", tier.label),
                            &e.errors,
                            &series,
                            "errors",
                        ),
                    ));
                }
            }
            Err(why) => charts.push((
                format!("ecs-{subset}"),
                format!("{subset}: error types"),
                Err(why.clone()),
            )),
        }
    }
    for grade in &levels {
        let series = [
            Series {
                name: "gold",
                values: grade.gold.iter().map(|&c| c as f64).collect(),
            },
            Series {
                name: "predicted",
                values: grade.pred.iter().map(|&c| c as f64).collect(),
            },
        ];
        charts.push((
            format!("eotgc-levels-{}", grade.grade.replace(' ', "-")),
            format!(
                "{}, {}",
                t(lang().get_untracked(), "charts.levels"),
                grade.grade
            ),
            grouped_bars(
                &format!("levels · {}", grade.grade),
                &grade.levels,
                &series,
                "essays",
            ),
        ));
    }
    let boxes = charts
        .into_iter()
        .map(|(name, title, svg)| view! { <ChartBox name=name title=title svg=svg /> })
        .collect_view();
    view! { <div class="charts">{boxes}</div> }
}
