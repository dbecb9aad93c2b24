//! Charts drawn with plotters into SVG strings (the page sets them as inner HTML).

use metrics_core::confusion::ConfusionMatrix;
use plotters::prelude::*;

fn label(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// Heat map of gold (rows) × predicted (columns) counts.
pub fn confusion_heatmap(cm: &ConfusionMatrix) -> Result<String, String> {
    let k = cm.size();
    let side = (60 + 36 * k as u32).clamp(260, 640);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (side + 70, side + 60)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption("gold × predicted", ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(48)
            .build_cartesian_2d(
                (0..k as i32).into_segmented(),
                (0..k as i32).into_segmented(),
            )
            .map_err(|e| e.to_string())?;
        let labels = cm.labels.clone();
        let fmt = move |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => labels
                .get(*i as usize)
                .map(|l| label(*l))
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
            .map_err(|e| e.to_string())?;
        let max = cm.max_count().max(1) as f64;
        let cells = (0..k).flat_map(|i| (0..k).map(move |j| (i, j)));
        chart
            .draw_series(cells.clone().map(|(i, j)| {
                let t = cm.count(i, j) as f64 / max;
                let shade = |full: u8| (255.0 - t * (255.0 - full as f64)).round() as u8;
                let color = RGBColor(shade(37), shade(99), shade(235));
                Rectangle::new(
                    [
                        (SegmentValue::Exact(j as i32), SegmentValue::Exact(i as i32)),
                        (
                            SegmentValue::Exact(j as i32 + 1),
                            SegmentValue::Exact(i as i32 + 1),
                        ),
                    ],
                    color.filled(),
                )
            }))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(cells.filter(|&(i, j)| cm.count(i, j) > 0).map(|(i, j)| {
                let dark = cm.count(i, j) as f64 / max > 0.55;
                let style =
                    ("sans-serif", 13)
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
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}
