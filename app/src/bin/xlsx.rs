//! The XLSX worker: writes the class workbook off the main thread, loaded only on export.

fn main() {
    app::xlsx::worker_main();
}
