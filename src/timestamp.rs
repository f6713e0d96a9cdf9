//! UTC timestamps at one-second resolution, written as RFC 3339 with `Z` (§3)
//! and read tolerantly (`+00:00`, other offsets, fractional seconds).

use std::fmt;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Seconds since the Unix epoch, UTC. Ordered, hashable, deterministic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    pub fn from_unix(secs: i64) -> Self {
        Timestamp(secs)
    }

    pub fn unix(self) -> i64 {
        self.0
    }

    pub fn now() -> Self {
        Timestamp(OffsetDateTime::now_utc().unix_timestamp())
    }

    /// Parses RFC 3339 with any offset and fraction; the fraction is dropped.
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        if let Some(t) = Self::parse_canonical(s) {
            return Some(t);
        }
        let parsed = OffsetDateTime::parse(s, &Rfc3339)
            .or_else(|_| OffsetDateTime::parse(&s.replacen(' ', "T", 1), &Rfc3339))
            .ok()?;
        Some(Timestamp(parsed.unix_timestamp()))
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` exactly, as we write it: no parser needed.
    fn parse_canonical(s: &str) -> Option<Self> {
        let b = s.as_bytes();
        if b.len() != 20
            || b[4] != b'-'
            || b[7] != b'-'
            || b[10] != b'T'
            || b[13] != b':'
            || b[16] != b':'
            || b[19] != b'Z'
        {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<u32> {
            b[r].iter().try_fold(0u32, |acc, c| {
                c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
            })
        };
        let month = time::Month::try_from(u8::try_from(num(5..7)?).ok()?).ok()?;
        let date = time::Date::from_calendar_date(
            i32::try_from(num(0..4)?).ok()?,
            month,
            u8::try_from(num(8..10)?).ok()?,
        )
        .ok()?;
        let clock = time::Time::from_hms(
            u8::try_from(num(11..13)?).ok()?,
            u8::try_from(num(14..16)?).ok()?,
            u8::try_from(num(17..19)?).ok()?,
        )
        .ok()?;
        Some(Timestamp(
            date.with_time(clock).assume_utc().unix_timestamp(),
        ))
    }

    fn datetime(self) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(self.0).unwrap_or(OffsetDateTime::UNIX_EPOCH)
    }

    /// `YYYY-MM`, the events file a timestamp belongs to.
    pub fn month(self) -> String {
        let d = self.datetime();
        format!("{:04}-{:02}", d.year(), u8::from(d.month()))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.datetime();
        if let Ok(year @ 0..=9999) = u32::try_from(d.year()) {
            // Every file a sync writes holds a few: digits into a buffer
            // rather than six padded `write!`s.
            let mut out = *b"0000-00-00T00:00:00Z";
            let fields = [
                (0, 4, year),
                (5, 2, u32::from(u8::from(d.month()))),
                (8, 2, u32::from(d.day())),
                (11, 2, u32::from(d.hour())),
                (14, 2, u32::from(d.minute())),
                (17, 2, u32::from(d.second())),
            ];
            for (at, width, mut n) in fields {
                for digit in out[at..at + width].iter_mut().rev() {
                    *digit = b'0' + (n % 10) as u8;
                    n /= 10;
                }
            }
            return f.write_str(std::str::from_utf8(&out).map_err(|_| fmt::Error)?);
        }
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            d.year(),
            u8::from(d.month()),
            d.day(),
            d.hour(),
            d.minute(),
            d.second()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn writes_every_time_as_the_formatter_would(t in -62_135_596_800i64..253_402_300_800) {
            let d = Timestamp::from_unix(t).datetime();
            let want = format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                d.year(), u8::from(d.month()), d.day(), d.hour(), d.minute(), d.second()
            );
            prop_assert_eq!(Timestamp::from_unix(t).to_string(), want);
        }
    }

    #[test]
    fn reads_what_terraphim_writes_and_writes_canonical_utc() {
        for (input, want) in [
            ("2026-08-15T12:00:00Z", "2026-08-15T12:00:00Z"),
            ("2026-08-15T12:00:00+00:00", "2026-08-15T12:00:00Z"),
            (
                "2026-08-15T12:00:00.123456789+00:00",
                "2026-08-15T12:00:00Z",
            ),
            ("2026-08-15T14:00:00+02:00", "2026-08-15T12:00:00Z"),
            ("2026-08-15 12:00:00Z", "2026-08-15T12:00:00Z"),
        ] {
            let t = Timestamp::parse(input).unwrap_or_else(|| panic!("{input}"));
            assert_eq!(t.to_string(), want);
        }
        assert_eq!(Timestamp::parse("yesterday"), None);
        assert_eq!(Timestamp::parse("2026-13-15T12:00:00Z"), None);
        assert_eq!(Timestamp::parse("2026-02-30T12:00:00Z"), None);
        assert_eq!(Timestamp::parse("2026-02-28T24:00:00Z"), None);
        assert_eq!(
            Timestamp::parse("2026-08-15T12:00:00Z")
                .map(|t| t.month())
                .as_deref(),
            Some("2026-08")
        );
    }
}
