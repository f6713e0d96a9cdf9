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
        let parsed = OffsetDateTime::parse(s, &Rfc3339)
            .or_else(|_| OffsetDateTime::parse(&s.replacen(' ', "T", 1), &Rfc3339))
            .ok()?;
        Some(Timestamp(parsed.unix_timestamp()))
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
        assert_eq!(
            Timestamp::parse("2026-08-15T12:00:00Z")
                .map(|t| t.month())
                .as_deref(),
            Some("2026-08")
        );
    }
}
