pub mod drop_zone;
pub mod files_panel;
pub mod progress;
pub mod report_table;
