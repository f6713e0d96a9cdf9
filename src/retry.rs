//! The crate's one retry policy: exponential backoff with full jitter, a cap on
//! attempts, `Retry-After` honoured, and which HTTP statuses are worth retrying.

use std::future::Future;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long to wait between attempts and when to give up.
///
/// `next_delay` is pure: the jitter comes from `jitter_seed`, so a policy value
/// always gives the same answer for the same attempt. `RetryPolicy::default()`
/// picks a fresh seed so that two processes do not retry in lockstep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Total attempts including the first one; 1 means "never retry".
    pub max_attempts: u32,
    /// Backoff ceiling for the first retry; doubles on each further retry.
    pub base_delay: Duration,
    /// No computed backoff is longer than this.
    pub max_delay: Duration,
    /// A server's `Retry-After` longer than this makes us give up instead of
    /// sleeping (a proxy asking for an hour should not hang a publish).
    pub max_retry_after: Duration,
    /// Full jitter (a uniform delay in `0..=ceiling`) or the bare ceiling.
    pub jitter: Jitter,
    /// Seed of the deterministic jitter sequence.
    pub jitter_seed: u64,
}

/// Whether delays are randomised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Jitter {
    /// AWS "full jitter": uniform in `0..=ceiling`.
    Full,
    /// Exactly the ceiling; for tests and for callers that add their own spread.
    None,
    /// Half the ceiling plus a uniform share of the other half: never sooner
    /// than half, for a job that must not be retried at once (the daemon's
    /// backoff, where a zero delay would be a crash loop).
    Equal,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        let seed = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9e37_79b9_7f4a_7c15)
            ^ u64::from(std::process::id()).rotate_left(32);
        RetryPolicy {
            max_attempts: 5,
            base_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(10),
            max_retry_after: Duration::from_secs(120),
            jitter: Jitter::Full,
            jitter_seed: seed,
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    pub fn no_retry() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        }
    }

    /// A policy with tiny delays, so tests exercise retries in milliseconds.
    pub fn fast(max_attempts: u32) -> Self {
        RetryPolicy {
            max_attempts,
            base_delay: Duration::from_millis(2),
            max_delay: Duration::from_millis(20),
            max_retry_after: Duration::from_secs(5),
            jitter: Jitter::Full,
            jitter_seed: 1,
        }
    }

    /// The wait before attempt `attempt + 1`, after attempt `attempt` (1-based)
    /// failed in a retryable way; `None` means give up.
    ///
    /// A `retry_after` from the server replaces the computed backoff (it is the
    /// server's explicit wish), unless it exceeds `max_retry_after`.
    pub fn next_delay(&self, attempt: u32, retry_after: Option<Duration>) -> Option<Duration> {
        if attempt == 0 || attempt >= self.max_attempts {
            return None;
        }
        if let Some(wait) = retry_after {
            return (wait <= self.max_retry_after).then_some(wait);
        }
        let exponent = (attempt - 1).min(31);
        let ceiling = self
            .base_delay
            .checked_mul(1u32 << exponent)
            .unwrap_or(self.max_delay)
            .min(self.max_delay);
        Some(match self.jitter {
            Jitter::None => ceiling,
            Jitter::Full => {
                let unit = unit_interval(self.jitter_seed, attempt);
                ceiling.mul_f64(unit)
            }
            Jitter::Equal => {
                let unit = unit_interval(self.jitter_seed, attempt);
                ceiling / 2 + (ceiling / 2).mul_f64(unit)
            }
        })
    }
}

/// A deterministic value in `[0, 1]` from (seed, attempt): splitmix64.
fn unit_interval(seed: u64, attempt: u32) -> f64 {
    let mut z = seed.wrapping_add(u64::from(attempt).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / ((1u64 << 53) - 1) as f64
}

/// Whether an HTTP status can succeed on a later attempt.
///
/// 408, 429 and every 5xx are transient. Other 4xx (400, 401, 403, 404, 409,
/// 422, 423, ...) describe the request itself and will fail the same way again.
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 429) || (500..=599).contains(&status)
}

/// Parses a `Retry-After` value: delta-seconds or an HTTP-date (IMF-fixdate).
/// A date in the past means "now" (zero).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = parse_http_date(value)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Parses `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 IMF-fixdate).
fn parse_http_date(value: &str) -> Option<SystemTime> {
    let (_weekday, rest) = value.split_once(", ")?;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, clock, zone] = parts.as_slice() else {
        return None;
    };
    if *zone != "GMT" {
        return None;
    }
    let day: u32 = day.parse().ok()?;
    let month = 1 + [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| m == month)? as u32;
    let year: i64 = year.parse().ok()?;
    let mut hms = clock.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    if !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 || hms.next().is_some() {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = days.checked_mul(86_400)? + (h * 3600 + m * 60 + s) as i64;
    let secs = u64::try_from(secs).ok()?;
    UNIX_EPOCH.checked_add(Duration::from_secs(secs))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(month) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// What one attempt of a retried operation produced.
#[derive(Debug)]
pub enum Attempt<T, E> {
    /// Finished; return this.
    Done(T),
    /// Failed in a way a later attempt may not; wait (at least `retry_after`
    /// when the server asked) and try again.
    Retry {
        error: E,
        retry_after: Option<Duration>,
    },
    /// Failed for good; return this error now.
    Fail(E),
}

/// Runs `op` (given the 1-based attempt number) until it is done, fails for
/// good, or the policy gives up; the last error is returned.
pub async fn run<T, E, F, Fut>(policy: &RetryPolicy, mut op: F) -> Result<T, E>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Attempt<T, E>>,
{
    let mut attempt = 1;
    loop {
        match op(attempt).await {
            Attempt::Done(value) => return Ok(value),
            Attempt::Fail(error) => return Err(error),
            Attempt::Retry { error, retry_after } => {
                let Some(delay) = policy.next_delay(attempt, retry_after) else {
                    tracing::debug!(attempt, "giving up after the last allowed attempt");
                    return Err(error);
                };
                tracing::debug!(attempt, delay_ms = delay.as_millis() as u64, "retrying");
                tokio::time::sleep(delay).await;
                attempt += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(max_attempts: u32) -> RetryPolicy {
        RetryPolicy {
            max_attempts,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
            max_retry_after: Duration::from_secs(30),
            jitter: Jitter::None,
            jitter_seed: 0,
        }
    }

    #[test]
    fn next_delay_table() {
        let ms = Duration::from_millis;
        let s = Duration::from_secs;
        let cases: &[(u32, u32, Option<Duration>, Option<Duration>)] = &[
            // (max_attempts, attempt, retry_after, expected)
            (5, 1, None, Some(ms(100))),
            (5, 2, None, Some(ms(200))),
            (5, 3, None, Some(ms(400))),
            (5, 4, None, Some(ms(800))),
            (5, 5, None, None),
            (10, 6, None, Some(ms(1000))),
            (10, 9, None, Some(ms(1000))),
            (5, 1, Some(s(3)), Some(s(3))),
            (5, 1, Some(Duration::ZERO), Some(Duration::ZERO)),
            (5, 1, Some(s(31)), None),
            (5, 5, Some(s(1)), None),
            (1, 1, None, None),
            (5, 0, None, None),
            (100, 64, None, Some(ms(1000))),
        ];
        for &(max, attempt, retry_after, expected) in cases {
            assert_eq!(
                exact(max).next_delay(attempt, retry_after),
                expected,
                "max={max} attempt={attempt} retry_after={retry_after:?}"
            );
        }
    }

    #[test]
    fn full_jitter_stays_under_the_ceiling_and_varies() {
        let mut policy = exact(10);
        policy.jitter = Jitter::Full;
        let mut seen = std::collections::HashSet::new();
        for seed in 0..50 {
            policy.jitter_seed = seed;
            for attempt in 1..10 {
                let d = policy.next_delay(attempt, None).expect("retry allowed");
                let ceiling = exact(10).next_delay(attempt, None).expect("retry allowed");
                assert!(d <= ceiling, "{d:?} > {ceiling:?}");
                seen.insert(d);
            }
        }
        assert!(seen.len() > 100, "jitter should spread delays");
        // Same policy, same answer: the function is pure.
        assert_eq!(policy.next_delay(3, None), policy.next_delay(3, None));
    }

    #[test]
    fn equal_jitter_never_goes_below_half_the_ceiling() {
        let mut policy = exact(10);
        policy.jitter = Jitter::Equal;
        for seed in 0..50 {
            policy.jitter_seed = seed;
            for attempt in 1..10 {
                let d = policy.next_delay(attempt, None).expect("retry allowed");
                let ceiling = exact(10).next_delay(attempt, None).expect("retry allowed");
                assert!(d >= ceiling / 2 && d <= ceiling, "{d:?} vs {ceiling:?}");
            }
        }
    }

    #[test]
    fn retryable_statuses() {
        for status in [408, 429, 500, 502, 503, 504] {
            assert!(is_retryable_status(status), "{status}");
        }
        for status in [200, 201, 204, 400, 401, 403, 404, 409, 412, 422, 423] {
            assert!(!is_retryable_status(status), "{status}");
        }
    }

    #[test]
    fn retry_after_forms() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        let cases: &[(&str, Option<Duration>)] = &[
            ("0", Some(Duration::ZERO)),
            ("7", Some(Duration::from_secs(7))),
            (" 120 ", Some(Duration::from_secs(120))),
            ("Sun, 06 Nov 1994 08:49:37 GMT", Some(Duration::ZERO)),
            (
                "Sun, 06 Nov 1994 08:50:07 GMT",
                Some(Duration::from_secs(30)),
            ),
            (
                "Mon, 07 Nov 1994 08:49:37 GMT",
                Some(Duration::from_secs(86_400)),
            ),
            ("Sat, 05 Nov 1994 08:49:37 GMT", Some(Duration::ZERO)),
            ("Thu, 01 Jan 1970 00:00:00 GMT", Some(Duration::ZERO)),
            ("Sun, 06 Nov 1994 08:49:37 PST", None),
            ("Sun, 06 Foo 1994 08:49:37 GMT", None),
            ("-1", None),
            ("soon", None),
            ("", None),
        ];
        for &(value, expected) in cases {
            assert_eq!(parse_retry_after(value, now), expected, "{value:?}");
        }
    }

    #[test]
    fn civil_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1994, 11, 6), 9_075);
    }

    #[tokio::test]
    async fn run_stops_on_fail_and_after_max_attempts() {
        let policy = RetryPolicy::fast(3);
        let mut calls = 0;
        let result: Result<(), &str> = run(&policy, |_| {
            calls += 1;
            async {
                Attempt::Retry {
                    error: "busy",
                    retry_after: None,
                }
            }
        })
        .await;
        assert_eq!((result, calls), (Err("busy"), 3));

        let mut calls = 0;
        let result: Result<(), &str> = run(&policy, |_| {
            calls += 1;
            async { Attempt::Fail("bad request") }
        })
        .await;
        assert_eq!((result, calls), (Err("bad request"), 1));

        let result: Result<u32, &str> = run(&policy, |n| async move {
            if n < 2 {
                Attempt::Retry {
                    error: "once",
                    retry_after: Some(Duration::ZERO),
                }
            } else {
                Attempt::Done(n)
            }
        })
        .await;
        assert_eq!(result, Ok(2));
    }
}
