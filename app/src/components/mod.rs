pub mod drop_zone;
pub mod metric_cell;
