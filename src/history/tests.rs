use super::*;

#[test]
fn times_are_read_as_git_writes_them_and_shown_in_utc() {
    assert_eq!(parse_time("1764054000"), Some(1_764_054_000));
    assert_eq!(parse_time("2025-11-25T07:00:00Z"), Some(1_764_054_000));
    assert_eq!(parse_time("2025-11-25T08:00:00+01:00"), Some(1_764_054_000));
    assert_eq!(parse_time("2025-11-25T02:30:00-04:30"), Some(1_764_054_000));
    assert_eq!(shown_time(1_764_054_000), "2025-11-25T07:00:00Z");
    assert_eq!(shown_time(-5), "-5 (Unix seconds)");
    for bad in [
        "yesterday",
        "2025-11-25T07:00:00+1",
        "2025-11-25T07:00:00+25:00",
        "",
    ] {
        assert_eq!(parse_time(bad), None, "{bad}");
    }
}
