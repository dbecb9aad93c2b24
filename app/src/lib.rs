//! The scorebench workbench in the browser: mount the app.

mod charts;
mod components;
mod files;
mod pages;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(pages::workbench::Workbench);
}
