//! Charts drawn with plotters into SVG strings by a wasm module of their own
//! (`src/bin/charts.rs`, `/charts.js`), which the page starts on its own thread (plotters
//! measures text in the DOM) when charts are first shown: neither plotters nor a reader of the
//! chart data is in the page's first download. The scoring worker sends an outcome's chart data
//! as JSON ([`ChartData`]), the page hands it to the module with the texts in its language
//! ([`TEXT_KEYS`]) and sets the SVGs it gets back as inner HTML. This file only draws.
//!
//! ```text
//! page      <script src=/charts.js> (wasm-bindgen, no-modules), then /charts-loader.js
//! module    main: window.scorebenchDrawCharts = (texts JSON, data JSON) → [DrawnChart] JSON,
//!           then the event `scorebench-charts` on window
//! ```

use metrics_core::Report;
use metrics_core::confusion::ConfusionMatrix;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};
use workbench::charts::{Chart, SampleCharts, subset_bars, value_label};

/// The texts the charts show: the page passes each in its language.
pub const TEXT_KEYS: [&str; 17] = [
    "charts.confusion",
    "charts.distributions",
    "charts.error_types",
    "charts.errors",
    "charts.essays",
    "charts.gold",
    "charts.gold_vs_pred",
    "charts.gold_x_pred",
    "charts.levels",
    "charts.levels_of",
    "charts.per_subset",
    "charts.per_subset_note",
    "charts.predicted",
    "charts.records",
    "charts.tier",
    "class.grade",
    "class.overall",
];

/// What an outcome's charts are drawn from (the worker sends it as JSON, the page passes it on).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChartData {
    /// The report without its samples (per-subset bars).
    pub report: Report,
    /// The samples' confusion matrix and score histogram.
    pub samples: SampleCharts,
    /// The benchmark's own charts.
    pub charts: Vec<Chart>,
}

/// The global function the module installs on `window`.
pub const DRAW_FUNCTION: &str = "scorebenchDrawCharts";

/// The event the module dispatches on `window` once [`DRAW_FUNCTION`] is there.
pub const READY_EVENT: &str = "scorebench-charts";

/// The event `public/charts-loader.js` dispatches when the module fails to start.
pub const FAILED_EVENT: &str = "scorebench-charts-failed";

/// The module's entry point (`src/bin/charts.rs`): install [`DRAW_FUNCTION`], say
/// [`READY_EVENT`].
pub fn install() {
    use wasm_bindgen::prelude::*;
    console_error_panic_hook::set_once();
    let Some(window) = web_sys::window() else {
        return;
    };
    let draw = Closure::<dyn Fn(String, String) -> String>::new(|texts: String, data: String| {
        let drawn = match (
            serde_json::from_str::<Vec<(String, String)>>(&texts),
            serde_json::from_str::<ChartData>(&data),
        ) {
            (Ok(texts), Ok(data)) => draw_all(&texts, &data.report, &data.samples, data.charts),
            (Err(e), _) | (_, Err(e)) => vec![DrawnChart {
                name: "charts".into(),
                title: "charts".into(),
                svg: Err(format!("unreadable chart data: {e}")),
            }],
        };
        serde_json::to_string(&drawn).unwrap_or_default()
    });
    let _ = js_sys::Reflect::set(&window, &DRAW_FUNCTION.into(), draw.as_ref());
    draw.forget();
    if let Ok(event) = web_sys::Event::new(READY_EVENT) {
        let _ = window.dispatch_event(&event);
    }
}

/// One chart drawn: its file name stem, title and SVG (or why it could not be drawn).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DrawnChart {
    pub name: String,
    pub title: String,
    pub svg: Result<String, String>,
}

/// The texts of [`TEXT_KEYS`] as the page sent them (`(key, text)`).
struct Texts<'a>(&'a [(String, String)]);

impl<'a> Texts<'a> {
    fn get(&self, key: &'a str) -> &'a str {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map_or(key, |(_, text)| text)
    }

    /// A text with its `{name}` placeholders filled.
    fn fill(&self, key: &'a str, values: &[(&str, &str)]) -> String {
        let mut out = self.get(key).to_string();
        for (name, value) in values {
            out = out.replace(&format!("{{{name}}}"), value);
        }
        out
    }

    /// A grade group's name (`grade 7`, `overall`).
    fn group(&self, group: &str) -> String {
        match group.strip_prefix("grade ") {
            Some(g) => format!("{} {g}", self.get("class.grade")),
            None if group == "overall" => self.get("class.overall").to_string(),
            None => group.to_string(),
        }
    }
}

/// Every chart of an outcome: confusion matrix, score distributions, per-subset bars,
/// SAS-Bench error-type frequencies per tier, EOTGC levels per grade.
pub fn draw_all(
    texts: &[(String, String)],
    report: &Report,
    samples: &SampleCharts,
    charts: Vec<Chart>,
) -> Vec<DrawnChart> {
    let tx = Texts(texts);
    let mut ecs_errors = Vec::new();
    let mut levels = Vec::new();
    for chart in charts {
        match chart {
            Chart::TierErrors { files } => ecs_errors.extend(files),
            Chart::Levels { groups } => levels.extend(groups),
        }
    }
    let stem = &report.benchmark;
    let (gold, predicted) = (tx.get("charts.gold"), tx.get("charts.predicted"));
    let mut out = Vec::new();
    let mut push = |name: String, title: String, svg: Result<String, String>| {
        out.push(DrawnChart { name, title, svg })
    };
    if let Some(cm) = &samples.confusion {
        push(
            format!("{stem}-confusion"),
            tx.get("charts.confusion").into(),
            confusion_heatmap(cm, tx.get("charts.gold_x_pred")),
        );
    }
    let counts = |v: &[u64]| v.iter().map(|&c| c as f64).collect::<Vec<f64>>();
    if let Some(h) = &samples.histogram {
        let series = [
            Series {
                name: gold,
                values: counts(&h.gold),
            },
            Series {
                name: predicted,
                values: counts(&h.pred),
            },
        ];
        push(
            format!("{stem}-distribution"),
            tx.get("charts.distributions").into(),
            grouped_bars(
                tx.get("charts.gold_vs_pred"),
                &h.labels,
                &series,
                tx.get("charts.records"),
            ),
        );
    }
    for bars in subset_bars(report) {
        if bars.labels.len() < 2 {
            continue;
        }
        let series = [Series {
            name: &bars.metric,
            values: bars.values.iter().map(|v| v.unwrap_or(0.0)).collect(),
        }];
        let metric = [("metric", bars.metric.as_str())];
        push(
            format!("{stem}-{}-by-subset", bars.metric),
            tx.fill("charts.per_subset_note", &metric),
            grouped_bars(
                &tx.fill("charts.per_subset", &metric),
                &bars.labels,
                &series,
                &bars.metric,
            ),
        );
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
                    let rho = format!("{:.3}", tier.correlation);
                    push(
                        format!("ecs-{subset}-tier{}", tier.tier),
                        tx.fill(
                            "charts.tier",
                            &[("subset", subset), ("tier", &tier.label), ("rho", &rho)],
                        ),
                        grouped_bars(
                            &format!("{subset} · {}", tier.label),
                            &e.errors,
                            &series,
                            tx.get("charts.errors"),
                        ),
                    );
                }
            }
            Err(why) => push(
                format!("ecs-{subset}"),
                tx.fill("charts.error_types", &[("subset", subset)]),
                Err(why.clone()),
            ),
        }
    }
    for grade in &levels {
        let series = [
            Series {
                name: gold,
                values: counts(&grade.gold),
            },
            Series {
                name: predicted,
                values: counts(&grade.pred),
            },
        ];
        let group = tx.group(&grade.grade);
        push(
            format!("eotgc-levels-{}", grade.grade.replace(' ', "-")),
            format!("{}, {group}", tx.get("charts.levels")),
            grouped_bars(
                &tx.fill("charts.levels_of", &[("grade", &group)]),
                &grade.levels,
                &series,
                tx.get("charts.essays"),
            ),
        );
    }
    out
}

const BLUE: RGBColor = RGBColor(37, 99, 235);
const ORANGE: RGBColor = RGBColor(234, 88, 12);
const FONT: &str = "Noto Sans CJK SC, Noto Sans, sans-serif";

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Heat map of gold (rows) × predicted (columns) counts.
pub fn confusion_heatmap(cm: &ConfusionMatrix, title: &str) -> Result<String, String> {
    let k = cm.size();
    let side = (60 + 36 * k as u32).clamp(260, 640);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (side + 70, side + 60)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(48)
            .build_cartesian_2d(
                (0..k as i32).into_segmented(),
                (0..k as i32).into_segmented(),
            )
            .map_err(err)?;
        let labels = cm.labels.clone();
        let fmt = move |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => labels
                .get(*i as usize)
                .map(|l| value_label(*l))
                .unwrap_or_default(),
            SegmentValue::Last => String::new(),
        };
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("predicted")
            .y_desc("gold")
            .x_labels(k)
            .y_labels(k)
            .x_label_formatter(&fmt)
            .y_label_formatter(&fmt)
            .draw()
            .map_err(err)?;
        let max = cm.max_count().max(1) as f64;
        let cells = (0..k).flat_map(|i| (0..k).map(move |j| (i, j)));
        chart
            .draw_series(cells.clone().map(|(i, j)| {
                let t = cm.count(i, j) as f64 / max;
                let shade = |full: u8| (255.0 - t * (255.0 - full as f64)).round() as u8;
                Rectangle::new(
                    [
                        (SegmentValue::Exact(j as i32), SegmentValue::Exact(i as i32)),
                        (
                            SegmentValue::Exact(j as i32 + 1),
                            SegmentValue::Exact(i as i32 + 1),
                        ),
                    ],
                    RGBColor(shade(37), shade(99), shade(235)).filled(),
                )
            }))
            .map_err(err)?;
        chart
            .draw_series(cells.filter(|&(i, j)| cm.count(i, j) > 0).map(|(i, j)| {
                let dark = cm.count(i, j) as f64 / max > 0.55;
                let style = (FONT, 12)
                    .into_font()
                    .color(if dark { &WHITE } else { &BLACK });
                Text::new(
                    cm.count(i, j).to_string(),
                    (
                        SegmentValue::CenterOf(j as i32),
                        SegmentValue::CenterOf(i as i32),
                    ),
                    style,
                )
            }))
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// One named series of a grouped bar chart.
pub struct Series<'a> {
    pub name: &'a str,
    pub values: Vec<f64>,
}

/// Grouped bars: one group per category, one bar per series (gold vs predicted, models, …).
/// The x axis has one segment per bar plus one gap segment per group.
pub fn grouped_bars(
    title: &str,
    categories: &[String],
    series: &[Series],
    y_desc: &str,
) -> Result<String, String> {
    let n = categories.len();
    let k = series.len().max(1);
    let slots = (n * (k + 1)).max(1);
    let width = (140 + slots as u32 * 16).clamp(420, 1400);
    let values = || series.iter().flat_map(|s| s.values.iter().copied());
    let max = values().fold(0.0f64, f64::max);
    let min = values().fold(0.0f64, f64::min);
    let top = if max > 0.0 { max * 1.12 } else { 1.0 };
    let long_labels = categories.iter().any(|c| c.chars().count() > 6);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, 360)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 16))
            .margin(12)
            .x_label_area_size(if long_labels { 110 } else { 36 })
            .y_label_area_size(56)
            .build_cartesian_2d((0..slots as i32).into_segmented(), min..top)
            .map_err(err)?;
        let cats = categories.to_vec();
        let label_slot = (k - 1) / 2;
        let fmt = move |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(j) | SegmentValue::Exact(j) => {
                let j = *j as usize;
                if j % (k + 1) == label_slot {
                    cats.get(j / (k + 1)).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            }
            SegmentValue::Last => String::new(),
        };
        // Counts (every value whole) get whole-number ticks only: "2", not "2.0" or "2.5".
        let counts = values().all(|v| v.fract() == 0.0);
        let whole = |v: &f64| {
            if v.fract() == 0.0 {
                format!("{v:.0}")
            } else {
                String::new()
            }
        };
        let mut mesh = chart.configure_mesh();
        mesh.disable_x_mesh()
            .x_labels(slots)
            .x_label_formatter(&fmt)
            .y_desc(y_desc)
            .light_line_style(RGBColor(241, 245, 249));
        if counts {
            mesh.y_label_formatter(&whole);
        }
        if long_labels {
            mesh.x_label_style((FONT, 11).into_font().transform(FontTransform::Rotate90));
        } else {
            mesh.x_label_style((FONT, 12));
        }
        mesh.draw().map_err(err)?;
        let palette = [
            BLUE,
            ORANGE,
            RGBColor(22, 163, 74),
            RGBColor(147, 51, 234),
            RGBColor(220, 38, 38),
        ];
        for (s_index, s) in series.iter().enumerate() {
            let color = palette[s_index % palette.len()];
            chart
                .draw_series(s.values.iter().enumerate().map(move |(i, &v)| {
                    let j = (i * (k + 1) + s_index) as i32;
                    Rectangle::new(
                        [
                            (SegmentValue::Exact(j), 0.0),
                            (SegmentValue::Exact(j + 1), v),
                        ],
                        color.mix(0.8).filled(),
                    )
                }))
                .map_err(err)?
                .label(s.name)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.9))
            .border_style(RGBColor(226, 232, 240))
            .label_font((FONT, 12))
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
