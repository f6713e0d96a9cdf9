//! Job schedules (`schedule.sync`, `.publish`, `.review`): crontab lines as
//! people write them, turned into the next fire times on the local clock.
//!
//! Accepted: the five crontab fields (`min hour day month weekday`), the
//! same with a leading seconds field (what the `cron` crate wants, and what
//! learnsync's defaults were written in), weekday names (`mon-fri`) or
//! crontab's numbers (0–7, 0 and 7 being Sunday — the `cron` crate numbers
//! them 1–7 from Sunday, so numbers are translated), and `off`. As in
//! crontab, a line that restricts both the day of the month and the weekday
//! fires when either matches.
//!
//! Daylight saving: times are wall-clock times. A time that does not exist
//! (the hour skipped in spring) fires at the first minute after the jump; a
//! time that happens twice (the hour repeated in autumn) fires once, the
//! first time — unless the hour field is a wildcard (`*`, `*/2`), whose job
//! keeps its rhythm through the repeated hour. The `cron` crate alone gets
//! both wrong; this module asks it only for wall-clock times.

use chrono::{DateTime, Duration, LocalResult, NaiveDateTime, TimeZone, Utc};
use std::str::FromStr;

/// A parsed schedule, or `off`.
#[derive(Debug, Clone)]
pub struct Schedule {
    /// The line as written.
    pub text: String,
    /// `None`: the job is off.
    plan: Option<Plan>,
}

#[derive(Debug, Clone)]
struct Plan {
    /// One `cron` schedule, or two when day and weekday are both restricted
    /// (crontab fires on either).
    crons: Vec<cron::Schedule>,
    /// The hour field is a wildcard: a repeated hour fires twice.
    every_hour: bool,
}

/// Why a line is not a schedule, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ScheduleError(String);

const FIELDS: [&str; 6] = [
    "second",
    "minute",
    "hour",
    "day of the month",
    "month",
    "weekday",
];
const RANGES: [(u32, u32); 6] = [(0, 59), (0, 59), (0, 23), (1, 31), (1, 12), (0, 7)];
const WEEKDAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

impl Schedule {
    /// Parses a crontab line (5 fields, or 6 with seconds first) or `off`.
    pub fn parse(text: &str) -> Result<Schedule, ScheduleError> {
        let trimmed = text.trim();
        if matches!(
            trimmed.to_ascii_lowercase().as_str(),
            "off" | "never" | "disabled"
        ) {
            return Ok(Schedule {
                text: trimmed.to_string(),
                plan: None,
            });
        }
        let mut fields: Vec<String> = trimmed
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        match fields.len() {
            5 => fields.insert(0, "0".into()),
            6 => {}
            n => {
                return Err(ScheduleError(format!(
                    "{trimmed:?} has {n} field(s); a schedule has five (minute hour day month weekday, as in crontab), \
                     or six with seconds first, or is `off`"
                )));
            }
        }
        for (i, field) in fields.iter().enumerate() {
            check_field(i, field)?;
        }
        let weekday = translate_weekdays(&fields[5]);
        let every_hour = fields[2].starts_with('*');
        let day_restricted = fields[3] != "*" && fields[3] != "?";
        let weekday_restricted = fields[5] != "*" && fields[5] != "?";
        let build = |day: &str, weekday: &str| {
            let line = format!(
                "{} {} {} {} {} {}",
                fields[0], fields[1], fields[2], day, fields[4], weekday
            );
            cron::Schedule::from_str(&line)
                .map_err(|e| ScheduleError(format!("{trimmed:?} is not a schedule: {e}")))
        };
        let crons = if day_restricted && weekday_restricted {
            vec![build(&fields[3], "*")?, build("*", &weekday)?]
        } else {
            vec![build(&fields[3], &weekday)?]
        };
        Ok(Schedule {
            text: trimmed.to_string(),
            plan: Some(Plan { crons, every_hour }),
        })
    }

    pub fn is_off(&self) -> bool {
        self.plan.is_none()
    }

    /// The first fire time strictly after `after`, on `tz`'s wall clock.
    pub fn next_after<Tz: TimeZone>(&self, after: &DateTime<Tz>) -> Option<DateTime<Tz>> {
        let plan = self.plan.as_ref()?;
        let tz = after.timezone();
        // Wall-clock candidates from a little before `after`'s wall time (a
        // repeated hour can put an earlier wall time after it), mapped to
        // real instants.
        let wall = after.naive_local() - Duration::hours(3);
        let start = Utc.from_utc_datetime(&wall);
        let mut best: Option<DateTime<Tz>> = None;
        for cron in &plan.crons {
            for t in cron.after(&start).take(24 * 60 * 8) {
                let naive = t.naive_utc();
                if naive > after.naive_local() + Duration::days(400) {
                    break;
                }
                if let Some(best) = &best
                    && naive > best.naive_local() + Duration::hours(3)
                {
                    break;
                }
                for instant in instants(&tz, naive, plan.every_hour) {
                    if instant > *after && best.as_ref().is_none_or(|b| instant < *b) {
                        best = Some(instant);
                    }
                }
            }
        }
        best
    }

    /// The next `n` fire times after `after`.
    pub fn upcoming<Tz: TimeZone>(&self, after: &DateTime<Tz>, n: usize) -> Vec<DateTime<Tz>> {
        let mut out: Vec<DateTime<Tz>> = Vec::new();
        let mut from = after.clone();
        while out.len() < n {
            let Some(next) = self.next_after(&from) else {
                break;
            };
            from = next.clone();
            out.push(next);
        }
        out
    }
}

/// The real instants a wall-clock time names: one; none in a spring gap
/// (then the first existing minute after it); two in an autumn fold (both
/// only for every-hour jobs).
fn instants<Tz: TimeZone>(tz: &Tz, naive: NaiveDateTime, every_hour: bool) -> Vec<DateTime<Tz>> {
    match tz.from_local_datetime(&naive) {
        LocalResult::Single(t) => vec![t],
        LocalResult::Ambiguous(first, second) if every_hour => vec![first, second],
        LocalResult::Ambiguous(first, _) => vec![first],
        LocalResult::None => (1..=180)
            .find_map(
                |m| match tz.from_local_datetime(&(naive + Duration::minutes(m))) {
                    LocalResult::Single(t) => Some(t),
                    LocalResult::Ambiguous(t, _) => Some(t),
                    LocalResult::None => None,
                },
            )
            .map(|t| {
                // The first minute after the jump, at :00 seconds.
                let wall = t.naive_local();
                tz.from_local_datetime(&wall.with_second0())
                    .earliest()
                    .unwrap_or(t)
            })
            .into_iter()
            .collect(),
    }
}

trait Second0 {
    fn with_second0(self) -> Self;
}

impl Second0 for NaiveDateTime {
    fn with_second0(self) -> Self {
        use chrono::Timelike;
        self.with_second(0).unwrap_or(self)
    }
}

/// Checks one field and says in words what is wrong.
fn check_field(i: usize, field: &str) -> Result<(), ScheduleError> {
    let (lo, hi) = RANGES[i];
    let name = FIELDS[i];
    let bad = |why: String| ScheduleError(format!("the {name} field `{field}`: {why}"));
    for part in field.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((r, s)) => (r, Some(s)),
            None => (part, None),
        };
        if let Some(step) = step {
            match step.parse::<u32>() {
                Ok(n) if n > 0 => {}
                _ => {
                    return Err(bad(format!(
                        "the step `/{step}` must be a whole number above 0"
                    )));
                }
            }
        }
        if range == "*" || range == "?" {
            continue;
        }
        let ends: Vec<&str> = range.splitn(2, '-').collect();
        for end in &ends {
            let value = value_of(i, end).ok_or_else(|| {
                bad(match i {
                    5 => format!("`{end}` is not a weekday: use sun, mon, tue, wed, thu, fri, sat (or 0-7, 0 and 7 being Sunday)"),
                    4 => format!("`{end}` is not a month: use 1-12 or jan…dec"),
                    _ => format!("`{end}` is not a number from {lo} to {hi}"),
                })
            })?;
            if !(lo..=hi).contains(&value) {
                return Err(bad(format!("{value} is outside {lo}-{hi}")));
            }
        }
    }
    Ok(())
}

fn value_of(i: usize, text: &str) -> Option<u32> {
    if let Ok(n) = text.parse::<u32>() {
        return Some(n);
    }
    let names: &[&str] = match i {
        5 => &WEEKDAYS,
        4 => &MONTHS,
        _ => return None,
    };
    let short = text.get(..3)?;
    names
        .iter()
        .position(|n| *n == short)
        .map(|p| if i == 4 { p as u32 + 1 } else { p as u32 })
}

/// crontab weekday numbers (0–7, Sunday = 0 or 7) as weekday names, which
/// the `cron` crate reads the same way (its numbers are 1–7 from Sunday).
fn translate_weekdays(field: &str) -> String {
    let name = |text: &str| -> String {
        match text.parse::<u32>() {
            Ok(n) => WEEKDAYS[(n % 7) as usize].to_string(),
            Err(_) => text.to_string(),
        }
    };
    field
        .split(',')
        .flat_map(|part| {
            let (range, step) = match part.split_once('/') {
                Some((r, s)) => (r, Some(s)),
                None => (part, None),
            };
            let with_step = |r: String| match step {
                Some(s) => format!("{r}/{s}"),
                None => r,
            };
            match range.split_once('-') {
                None if range == "*" || range == "?" => vec![with_step(range.to_string())],
                None => vec![with_step(name(range))],
                Some((a, b)) => {
                    let (from, to) = (value_of(5, a).unwrap_or(0) % 7, value_of(5, b).unwrap_or(0));
                    let to = if to == 7 { 7 } else { to % 7 };
                    if step.is_none() && from > to {
                        // fri-sun in numbers wraps: fri-sat and sun.
                        vec![
                            format!("{}-sat", WEEKDAYS[from as usize]),
                            "sun".to_string(),
                        ]
                    } else if to == 7 {
                        // …-7 ends on Sunday: …-sat plus sun.
                        let mut v = vec![with_step(format!("{}-sat", WEEKDAYS[from as usize]))];
                        if step.is_none() {
                            v.push("sun".into());
                        }
                        v
                    } else {
                        vec![with_step(format!(
                            "{}-{}",
                            WEEKDAYS[from as usize], WEEKDAYS[to as usize]
                        ))]
                    }
                }
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Datelike, Timelike, Weekday};
    use chrono_tz::Europe::Berlin;

    fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<chrono_tz::Tz> {
        Berlin
            .with_ymd_and_hms(y, mo, d, h, mi, 0)
            .earliest()
            .expect("a real time")
    }

    fn next(expr: &str, from: DateTime<chrono_tz::Tz>) -> DateTime<chrono_tz::Tz> {
        Schedule::parse(expr)
            .expect("parses")
            .next_after(&from)
            .expect("fires")
    }

    #[test]
    fn five_field_crontab_lines_and_six_field_ones_mean_the_same() {
        let from = at(2026, 12, 1, 10, 7);
        assert_eq!(next("*/5 * * * *", from), at(2026, 12, 1, 10, 10));
        assert_eq!(next("0 */5 * * * *", from), at(2026, 12, 1, 10, 10));
        assert_eq!(next("30 2 * * *", from), at(2026, 12, 2, 2, 30));
        assert!(Schedule::parse("off").expect("off").is_off());
        assert_eq!(Schedule::parse("off").expect("off").next_after(&from), None);
    }

    #[test]
    fn weekdays_are_numbered_as_crontab_numbers_them() {
        // 2026-12-01 is a Tuesday.
        let from = at(2026, 12, 1, 10, 0);
        assert_eq!(from.weekday(), Weekday::Tue);
        let day = |expr: &str| next(expr, from).weekday();
        assert_eq!(day("0 9 * * 1"), Weekday::Mon, "1 is Monday");
        assert_eq!(day("0 9 * * 0"), Weekday::Sun, "0 is Sunday");
        assert_eq!(day("0 9 * * 7"), Weekday::Sun, "7 is Sunday too");
        assert_eq!(day("0 9 * * mon"), Weekday::Mon);
        assert_eq!(day("0 9 * * 6-7"), Weekday::Sat);
        assert_eq!(next("0 9 * * 1-5", from), at(2026, 12, 2, 9, 0), "weekdays");
        assert_eq!(next("0 9 * * sat,sun", from).weekday(), Weekday::Sat);
        assert_eq!(
            next("0 9 * * 5-0", from).weekday(),
            Weekday::Fri,
            "fri-sun wraps"
        );
    }

    #[test]
    fn a_day_and_a_weekday_both_given_fire_on_either_as_in_crontab() {
        // The 15th, or any Monday: from Tue 1 Dec, Mon 7 Dec comes first.
        let from = at(2026, 12, 1, 10, 0);
        assert_eq!(next("0 9 15 * mon", from), at(2026, 12, 7, 9, 0));
        assert_eq!(
            next("0 9 15 * mon", at(2026, 12, 14, 10, 0)),
            at(2026, 12, 15, 9, 0)
        );
    }

    #[test]
    fn the_hour_skipped_in_spring_fires_right_after_the_jump() {
        // Berlin, 29 Mar 2026: 02:00 jumps to 03:00.
        let t = next("30 2 * * *", at(2026, 3, 29, 1, 0));
        assert_eq!((t.day(), t.hour(), t.minute()), (29, 3, 0));
        // And the day after it is 02:30 again.
        let t = next("30 2 * * *", t);
        assert_eq!((t.day(), t.hour(), t.minute()), (30, 2, 30));
    }

    #[test]
    fn the_hour_repeated_in_autumn_fires_a_fixed_time_once_and_keeps_a_rhythm() {
        // Berlin, 25 Oct 2026: 03:00 falls back to 02:00.
        let schedule = Schedule::parse("30 2 * * *").expect("parses");
        let times = schedule.upcoming(&at(2026, 10, 25, 1, 0), 2);
        assert_eq!(times[0].naive_local().hour(), 2);
        assert_eq!(times[1].day(), 26, "not a second time in the repeated hour");
        // Every 30 minutes: 02:00, 02:30 summer time, then the same in winter time.
        let every = Schedule::parse("*/30 * * * *").expect("parses");
        let times = every.upcoming(&at(2026, 10, 25, 1, 45), 6);
        let gaps: Vec<i64> = times
            .windows(2)
            .map(|w| (w[1] - w[0]).num_minutes())
            .collect();
        assert!(gaps.iter().all(|g| *g == 30), "{times:?} {gaps:?}");
    }

    #[test]
    fn a_bad_line_is_explained_in_words() {
        for (line, want) in [
            ("every minute", "has 2 field(s)"),
            ("61 * * * *", "the minute field `61`"),
            ("0 9 * * 8", "weekday field `8`"),
            ("0 9 * * fun", "not a weekday: use sun, mon"),
            ("0 9 * 13 *", "month"),
            ("*/0 * * * *", "above 0"),
        ] {
            let err = Schedule::parse(line).expect_err(line).to_string();
            assert!(err.contains(want), "{line:?}: {err}");
        }
    }
}
