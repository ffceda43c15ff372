//! Proleptic Gregorian calendar arithmetic on seconds since the epoch, and the
//! local time zone as C's `localtime` sees it: below the syntax (`absTime`
//! literals) and the builtins, which both read it.

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A proleptic Gregorian date to days since 1970-01-01; months outside 1-12 and
/// days outside the month roll over, as `mktime` normalises them.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = y + (m - 1).div_euclid(12);
    let m = (m - 1).rem_euclid(12) + 1;
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468 + (d - 1)
}

/// Broken-down civil time of an absolute time in its own offset.
pub struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub min: u32,
    pub sec: u32,
    /// 0 = Sunday.
    pub wday: u32,
    /// 0 = January 1st.
    pub yday: u32,
}

/// The wall-clock fields of `secs` shifted by `offset` seconds (the sum wraps as
/// C's `time_t` does); any `i64` is inside this arithmetic's range.
pub fn civil(secs: i64, offset: i64) -> Civil {
    let local = secs.wrapping_add(offset);
    let days = local.div_euclid(86_400);
    let rem = local.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    Civil {
        year,
        month,
        day,
        hour: (rem / 3600) as u32,
        min: (rem % 3600 / 60) as u32,
        sec: (rem % 60) as u32,
        wday: (days + 4).rem_euclid(7) as u32,
        yday: (days - days_from_civil(year, 1, 1)) as u32,
    }
}

/// The local time zone's offset east of UTC at `secs`, as C's `localtime` sees it
/// (honouring `TZ`).
pub fn local_offset(secs: i64) -> i32 {
    local_tm(secs).map_or(0, |tm| tm.tm_gmtoff as i32)
}

/// `localtime_r` of `secs`.
pub fn local_tm(secs: i64) -> Option<libc::tm> {
    let t = libc::time_t::try_from(secs).ok()?;
    // SAFETY: `tm` is plain old data, so all-zero is a valid value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are to live locals; localtime_r is the re-entrant form.
    let ok = unsafe { !libc::localtime_r(&t, &mut tm).is_null() };
    ok.then_some(tm)
}
