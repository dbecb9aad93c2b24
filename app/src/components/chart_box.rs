//! One chart: its SVG, a title, and SVG/PNG downloads.

use leptos::prelude::*;

use crate::download::{download_svg_as_png, download_text};

#[component]
pub fn ChartBox(name: String, title: String, svg: Result<String, String>) -> impl IntoView {
    match svg {
        Ok(svg) => {
            let (svg_for_svg, svg_for_png) = (svg.clone(), svg.clone());
            let (file_svg, file_png) = (format!("{name}.svg"), format!("{name}.png"));
            view! {
                <figure class="chart" data-chart=name.clone()>
                    <div class="chart-svg" inner_html=svg></div>
                    <figcaption>
                        <span>{title}</span>
                        <button class="export" on:click=move |_| download_text(&file_svg, "image/svg+xml", &svg_for_svg)>"SVG"</button>
                        <button class="export" on:click=move |_| download_svg_as_png(&svg_for_png, &file_png)>"PNG"</button>
                    </figcaption>
                </figure>
            }
            .into_any()
        }
        Err(e) => view! { <p class="error">{format!("{title}: {e}")}</p> }.into_any(),
    }
}
