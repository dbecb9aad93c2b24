//! The leaderboard pages' entry point (`boards.html`, built into `dist/boards/`): the server
//! renders every board page as HTML and puts this binary's assets in it, so a visitor of a board
//! never downloads the workbench, and the workbench never carries the board pages.

fn main() {
    console_error_panic_hook::set_once();
    app::leaderboard::texts::register_boards();
    app::leaderboard::mount_if_routed();
}
