//! Times as the leaderboards write and read them: ISO 8601 in UTC, whole seconds
//! (`2026-11-26T23:31:42Z`), through the `time` crate.

use time::format_description::BorrowedFormatItem;
use time::macros::format_description;
use time::{Date, OffsetDateTime, PrimitiveDateTime, Time};

const WRITTEN: &[BorrowedFormatItem<'_>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
const DATE: &[BorrowedFormatItem<'_>] = format_description!("[year]-[month]-[day]");
const MINUTES: &[BorrowedFormatItem<'_>] = format_description!("[hour]:[minute]");
const SECONDS: &[BorrowedFormatItem<'_>] = format_description!("[hour]:[minute]:[second]");

/// `ms` since 1970-01-01 UTC as `YYYY-MM-DDTHH:MM:SSZ` (milliseconds dropped). A time outside
/// years 0–9999, which no clock or accepted setting gives, is written as its milliseconds.
pub fn iso8601(ms: i64) -> String {
    OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
        .ok()
        .and_then(|t| t.format(WRITTEN).ok())
        .unwrap_or_else(|| format!("{ms} ms after 1970-01-01T00:00:00Z"))
}

/// `YYYY-MM-DD`, `YYYY-MM-DDTHH:MMZ` or `YYYY-MM-DDTHH:MM:SSZ` (UTC) as milliseconds since
/// 1970-01-01; `None` for anything else, an impossible date (`2001-02-29`) included.
pub fn parse_iso8601(text: &str) -> Option<i64> {
    let text = text.trim();
    let (date, time) = match text.split_once('T') {
        Some((d, t)) => (d, Some(t.strip_suffix('Z')?)),
        None => (text, None),
    };
    let date = Date::parse(date, DATE).ok()?;
    let time = match time {
        None => Time::MIDNIGHT,
        Some(t) => Time::parse(t, SECONDS)
            .or_else(|_| Time::parse(t, MINUTES))
            .ok()?,
    };
    let at = PrimitiveDateTime::new(date, time).assume_utc();
    Some(at.unix_timestamp() * 1000)
}

/// Unix milliseconds now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Start of the UTC day of `ms`.
pub fn day_start(ms: i64) -> i64 {
    ms - ms.rem_euclid(86_400_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_times_parse_back_and_bad_ones_are_refused() {
        for ms in [0, 951_827_696_000, 1_780_000_000_000, -86_400_000] {
            assert_eq!(parse_iso8601(&iso8601(ms)), Some(ms));
        }
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
        // 2000-02-29T12:34:56Z = 951827696 s (date -u -d 2000-02-29T12:34:56Z +%s)
        assert_eq!(iso8601(951_827_696_789), "2000-02-29T12:34:56Z");
        assert_eq!(iso8601(-1), "1969-12-31T23:59:59Z");
        assert_eq!(parse_iso8601("2000-02-29"), Some(951_782_400_000));
        assert_eq!(parse_iso8601("2000-02-29T12:34Z"), Some(951_827_640_000));
        assert_eq!(
            parse_iso8601(" 2000-02-29T12:34:56Z "),
            Some(951_827_696_000)
        );
        for bad in [
            "2000-13-01",
            "2001-02-29",
            "2000-02-29T25:00Z",
            "2000-02-29T12:00",
            "2000-2-29",
            "x",
            "",
        ] {
            assert_eq!(parse_iso8601(bad), None, "{bad}");
        }
    }
}
