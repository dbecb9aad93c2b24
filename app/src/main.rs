//! The page's entry point.

fn main() {
    app::mount();
}
