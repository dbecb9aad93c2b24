pub mod workbench;
