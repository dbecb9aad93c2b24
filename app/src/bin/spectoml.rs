//! The spec module: reads and writes benchmark specs' TOML, started by the scoring worker when a
//! spec comes (`app::spectoml`).

fn main() {
    app::spectoml::worker_main();
}
