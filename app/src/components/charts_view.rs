//! The charts of one outcome: confusion matrix, score distributions, per-subset bars,
//! SAS-Bench error-type frequencies per tier, EOTGC levels per grade.

use leptos::prelude::*;
use metrics_core::Report;
use workbench::charts::{Chart, SampleCharts, subset_bars};

use crate::charts::{Series, confusion_heatmap, grouped_bars};
use crate::components::chart_box::ChartBox;
use crate::i18n::{Lang, lang, t, tf};

/// The charts, drawn again when the interface language changes (titles, axes, legends).
/// `samples` = the chart data of the samples (computed by the worker; `None` until it comes).
#[component]
pub fn ChartsView(
    report: Report,
    samples: Option<SampleCharts>,
    charts: Vec<Chart>,
) -> impl IntoView {
    let data = StoredValue::new((report, samples.unwrap_or_default(), charts));
    move || {
        let l = lang().get();
        data.with_value(|(report, samples, charts)| draw(l, report, samples, charts.clone()))
    }
}

/// A grade group's name (`grade 7`, `overall`) in `l`.
fn group_name(l: Lang, group: &str) -> String {
    match group.strip_prefix("grade ") {
        Some(g) => format!("{} {g}", t(l, "class.grade")),
        None if group == "overall" => t(l, "class.overall").to_string(),
        None => group.to_string(),
    }
}

fn draw(
    l: Lang,
    report: &Report,
    samples: &SampleCharts,
    charts: Vec<Chart>,
) -> impl IntoView + use<> {
    let mut ecs_errors = Vec::new();
    let mut levels = Vec::new();
    for chart in charts {
        match chart {
            Chart::TierErrors { files } => ecs_errors.extend(files),
            Chart::Levels { groups } => levels.extend(groups),
        }
    }
    let stem = report.benchmark.clone();
    let (gold, predicted) = (t(l, "charts.gold"), t(l, "charts.predicted"));
    let mut charts: Vec<(String, String, Result<String, String>)> = Vec::new();
    if let Some(cm) = &samples.confusion {
        charts.push((
            format!("{stem}-confusion"),
            t(l, "charts.confusion").into(),
            confusion_heatmap(cm, t(l, "charts.gold_x_pred")),
        ));
    }
    if let Some(h) = &samples.histogram {
        let series = [
            Series {
                name: gold,
                values: h.gold.iter().map(|&c| c as f64).collect(),
            },
            Series {
                name: predicted,
                values: h.pred.iter().map(|&c| c as f64).collect(),
            },
        ];
        charts.push((
            format!("{stem}-distribution"),
            t(l, "charts.distributions").into(),
            grouped_bars(
                t(l, "charts.gold_vs_pred"),
                &h.labels,
                &series,
                t(l, "charts.records"),
            ),
        ));
    }
    for bars in subset_bars(report) {
        if bars.labels.len() < 2 {
            continue;
        }
        let series = [Series {
            name: &bars.metric,
            values: bars.values.iter().map(|v| v.unwrap_or(0.0)).collect(),
        }];
        charts.push((
            format!("{stem}-{}-by-subset", bars.metric),
            tf(l, "charts.per_subset_note", &[("metric", &bars.metric)]),
            grouped_bars(
                &tf(l, "charts.per_subset", &[("metric", &bars.metric)]),
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
                            name: gold,
                            values: tier.gold.clone(),
                        },
                        Series {
                            name: predicted,
                            values: tier.pred.clone(),
                        },
                    ];
                    charts.push((
                        format!("ecs-{subset}-tier{}", tier.tier),
                        tf(
                            l,
                            "charts.tier",
                            &[
                                ("subset", subset),
                                ("tier", &tier.label),
                                ("rho", &format!("{:.3}", tier.correlation)),
                            ],
                        ),
                        grouped_bars(
                            &format!("{subset} · {}", tier.label),
                            &e.errors,
                            &series,
                            t(l, "charts.errors"),
                        ),
                    ));
                }
            }
            Err(why) => charts.push((
                format!("ecs-{subset}"),
                tf(l, "charts.error_types", &[("subset", subset)]),
                Err(why.clone()),
            )),
        }
    }
    for grade in &levels {
        let series = [
            Series {
                name: gold,
                values: grade.gold.iter().map(|&c| c as f64).collect(),
            },
            Series {
                name: predicted,
                values: grade.pred.iter().map(|&c| c as f64).collect(),
            },
        ];
        charts.push((
            format!("eotgc-levels-{}", grade.grade.replace(' ', "-")),
            format!("{}, {}", t(l, "charts.levels"), group_name(l, &grade.grade)),
            grouped_bars(
                &tf(
                    l,
                    "charts.levels_of",
                    &[("grade", &group_name(l, &grade.grade))],
                ),
                &grade.levels,
                &series,
                t(l, "charts.essays"),
            ),
        ));
    }
    let boxes = charts
        .into_iter()
        .map(|(name, title, svg)| view! { <ChartBox name=name title=title svg=svg /> })
        .collect_view();
    view! { <div class="charts">{boxes}</div> }
}
