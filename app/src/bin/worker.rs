//! The Web Worker's entry point: parses and scores off the main thread.

fn main() {
    app::worker::run();
}
