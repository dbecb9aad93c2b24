//! Charts drawn with plotters into SVG strings (the page sets them as inner HTML). The data
//! comes from metrics-core's chart view models; this file only draws.

use metrics_core::confusion::ConfusionMatrix;
use plotters::prelude::*;
use workbench::charts::value_label;

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
