//! The chart module: draws the charts with plotters, on the page's thread, loaded when charts
//! are first shown (`app::charts`).

fn main() {
    app::charts::install();
}
