use super::*;

#[test]
fn times_are_read_as_git_writes_them_and_shown_in_utc() {
    assert_eq!(parse_time("1764054000"), Some(1_764_054_000));
    assert_eq!(parse_time("2025-11-25T07:00:00Z"), Some(1_764_054_000));
    assert_eq!(parse_time("2025-11-25T08:00:00+01:00"), Some(1_764_054_000));
    assert_eq!(parse_time("2025-11-25T02:30:00-04:30"), Some(1_764_054_000));
    assert_eq!(shown_time(1_764_054_000), "2025-11-25T07:00:00Z");
    assert_eq!(shown_time(-5), "-5 (Unix seconds)");
    // Past year 9999, which RFC 3339 cannot write: refused when given, shown as seconds
    // when a history already holds one.
    assert_eq!(shown_time(253_402_300_799), "9999-12-31T23:59:59Z");
    assert_eq!(shown_time(253_402_300_800), "253402300800 (Unix seconds)");
    assert_eq!(shown_time(i64::MAX), format!("{} (Unix seconds)", i64::MAX));
    assert_eq!(parse_time("253402300799"), Some(253_402_300_799));
    for bad in [
        "253402300800",
        "99999999999999",
        "yesterday",
        "2025-11-25T07:00:00+1",
        "2025-11-25T07:00:00+25:00",
        "",
    ] {
        assert_eq!(parse_time(bad), None, "{bad}");
    }
}
