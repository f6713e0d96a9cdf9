//! A strict parser of the Prometheus text format (0.0.4), so the daemon's
//! `/metrics` is checked as Prometheus would read it, not grepped; and the
//! test that it refuses what Prometheus would refuse.

use std::collections::BTreeMap;

/// One sample of a metric family.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

/// A metric family: its type, help, samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    pub kind: String,
    pub help: Option<String>,
    pub samples: Vec<Sample>,
}

/// Families by name, from a strict reading of the text format 0.0.4: every
/// line must be a `# HELP`, `# TYPE`, comment, blank, or a well-formed
/// sample; names and label names must be valid; label values properly
/// escaped; a family's `TYPE` comes before its samples and its lines are
/// contiguous; no series twice; counters non-negative; histograms have
/// cumulative buckets ending in `le="+Inf"` equal to `_count`, and `_sum`.
pub fn parse_prometheus(text: &str) -> Result<BTreeMap<String, Family>, String> {
    let mut families: BTreeMap<String, Family> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut closed: std::collections::BTreeSet<String> = Default::default();
    let mut seen: std::collections::BTreeSet<String> = Default::default();
    if !text.ends_with('\n') {
        return Err("the exposition must end with a newline".into());
    }
    let enter = |name: &str,
                 current: &mut Option<String>,
                 closed: &mut std::collections::BTreeSet<String>|
     -> Result<(), String> {
        if current.as_deref() != Some(name) {
            if closed.contains(name) {
                return Err(format!("the lines of family {name} are not contiguous"));
            }
            if let Some(c) = current.take() {
                closed.insert(c);
            }
            *current = Some(name.to_string());
        }
        Ok(())
    };
    for (i, line) in text.lines().enumerate() {
        let at = |m: String| format!("line {}: {m}: {line:?}", i + 1);
        if line.trim().is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('#') {
            let rest = rest.trim_start();
            let mut words = rest.splitn(3, ' ');
            match words.next() {
                Some("HELP") => {
                    let name = words
                        .next()
                        .ok_or_else(|| at("HELP without a name".into()))?;
                    check_name(name).map_err(&at)?;
                    enter(name, &mut current, &mut closed).map_err(&at)?;
                    let f = families.entry(name.to_string()).or_insert_with(|| Family {
                        kind: "untyped".into(),
                        help: None,
                        samples: Vec::new(),
                    });
                    if f.help.is_some() {
                        return Err(at("a second HELP".into()));
                    }
                    f.help = Some(words.next().unwrap_or("").to_string());
                }
                Some("TYPE") => {
                    let name = words
                        .next()
                        .ok_or_else(|| at("TYPE without a name".into()))?;
                    check_name(name).map_err(&at)?;
                    let kind = words
                        .next()
                        .ok_or_else(|| at("TYPE without a type".into()))?;
                    if !["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind) {
                        return Err(at(format!("unknown type {kind}")));
                    }
                    enter(name, &mut current, &mut closed).map_err(&at)?;
                    let f = families.entry(name.to_string()).or_insert_with(|| Family {
                        kind: "untyped".into(),
                        help: None,
                        samples: Vec::new(),
                    });
                    if !f.samples.is_empty() {
                        return Err(at("TYPE after the family's samples".into()));
                    }
                    if f.kind != "untyped" {
                        return Err(at("a second TYPE".into()));
                    }
                    f.kind = kind.to_string();
                }
                _ => {}
            }
            continue;
        }
        let sample = parse_sample(line).map_err(&at)?;
        let family = family_of(&sample.name, &families);
        enter(&family, &mut current, &mut closed).map_err(&at)?;
        let series = format!("{}{:?}", sample.name, sample.labels);
        if !seen.insert(series) {
            return Err(at("the same series twice".into()));
        }
        let f = families.entry(family.clone()).or_insert_with(|| Family {
            kind: "untyped".into(),
            help: None,
            samples: Vec::new(),
        });
        match f.kind.as_str() {
            "counter" if sample.value < 0.0 || sample.value.is_nan() => {
                return Err(at("a counter below zero".into()));
            }
            "histogram" => {
                let suffix = &sample.name[family.len()..];
                if !["_bucket", "_sum", "_count"].contains(&suffix) {
                    return Err(at(format!("{} is not a histogram series", sample.name)));
                }
                if (suffix == "_bucket") != sample.labels.contains_key("le") {
                    return Err(at("le belongs on _bucket series only".into()));
                }
            }
            "gauge" | "counter" | "untyped" if sample.name != family => {
                return Err(at(format!("{} outside its family", sample.name)));
            }
            _ => {}
        }
        f.samples.push(sample);
    }
    for (name, f) in &families {
        if f.kind == "histogram" {
            check_histogram(name, f)?;
        }
    }
    Ok(families)
}

fn family_of(sample: &str, families: &BTreeMap<String, Family>) -> String {
    for suffix in ["_bucket", "_sum", "_count"] {
        if let Some(base) = sample.strip_suffix(suffix)
            && families
                .get(base)
                .is_some_and(|f| f.kind == "histogram" || f.kind == "summary")
        {
            return base.to_string();
        }
    }
    sample.to_string()
}

fn check_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':');
    if ok {
        Ok(())
    } else {
        Err(format!("bad metric name {name:?}"))
    }
}

fn parse_value(text: &str) -> Result<f64, String> {
    match text {
        "+Inf" | "Inf" => Ok(f64::INFINITY),
        "-Inf" => Ok(f64::NEG_INFINITY),
        "NaN" => Ok(f64::NAN),
        t => t
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("bad value {t:?}")),
    }
}

fn parse_sample(line: &str) -> Result<Sample, String> {
    let name_end = line.find(['{', ' ']).ok_or("a sample needs a value")?;
    let name = &line[..name_end];
    check_name(name)?;
    let mut labels = BTreeMap::new();
    let mut rest = &line[name_end..];
    if let Some(after) = rest.strip_prefix('{') {
        let mut chars = after.char_indices().peekable();
        let end;
        loop {
            while chars.peek().is_some_and(|(_, c)| *c == ' ') {
                chars.next();
            }
            if let Some((i, '}')) = chars.peek().copied() {
                end = i + 1;
                break;
            }
            let mut label = String::new();
            for (_, c) in chars.by_ref() {
                if c == '=' {
                    break;
                }
                label.push(c);
            }
            let mut lc = label.chars();
            let valid = lc
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && lc.all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(format!("bad label name {label:?}"));
            }
            if chars.next().map(|(_, c)| c) != Some('"') {
                return Err("a label value must be quoted".into());
            }
            let mut value = String::new();
            loop {
                match chars.next() {
                    None => return Err("an unterminated label value".into()),
                    Some((_, '"')) => break,
                    Some((_, '\\')) => match chars.next().map(|(_, c)| c) {
                        Some('\\') => value.push('\\'),
                        Some('"') => value.push('"'),
                        Some('n') => value.push('\n'),
                        other => return Err(format!("a bad escape \\{other:?}")),
                    },
                    Some((_, '\n')) => return Err("a raw newline in a label value".into()),
                    Some((_, c)) => value.push(c),
                }
            }
            if labels.insert(label.clone(), value).is_some() {
                return Err(format!("label {label} twice"));
            }
            match chars.next() {
                Some((_, ',')) => continue,
                Some((i, '}')) => {
                    end = i + 1;
                    break;
                }
                other => return Err(format!("expected , or }} after a label, found {other:?}")),
            }
        }
        rest = &after[end..];
    }
    let rest = rest
        .strip_prefix(' ')
        .ok_or("one space between the series and its value")?;
    let mut parts = rest.split(' ');
    let value = parse_value(parts.next().ok_or("no value")?)?;
    if let Some(ts) = parts.next() {
        ts.parse::<i64>()
            .map_err(|_| format!("bad timestamp {ts:?}"))?;
    }
    if parts.next().is_some() {
        return Err("trailing text after the value".into());
    }
    Ok(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

fn check_histogram(name: &str, f: &Family) -> Result<(), String> {
    let mut groups: BTreeMap<BTreeMap<String, String>, Vec<&Sample>> = BTreeMap::new();
    for s in &f.samples {
        let mut key = s.labels.clone();
        key.remove("le");
        groups.entry(key).or_default().push(s);
    }
    for (labels, samples) in groups {
        let buckets: Vec<&&Sample> = samples
            .iter()
            .filter(|s| s.name.ends_with("_bucket"))
            .collect();
        let mut last_le = f64::NEG_INFINITY;
        let mut last_count = 0.0;
        for b in &buckets {
            let le = parse_value(&b.labels["le"])?;
            if le <= last_le {
                return Err(format!("{name}{labels:?}: buckets out of order"));
            }
            if b.value < last_count {
                return Err(format!("{name}{labels:?}: buckets not cumulative"));
            }
            last_le = le;
            last_count = b.value;
        }
        if last_le != f64::INFINITY {
            return Err(format!("{name}{labels:?}: no le=\"+Inf\" bucket"));
        }
        let count = samples
            .iter()
            .find(|s| s.name.ends_with("_count"))
            .ok_or_else(|| format!("{name}{labels:?}: no _count"))?;
        if count.value != last_count {
            return Err(format!("{name}{labels:?}: _count is not the +Inf bucket"));
        }
        if !samples.iter().any(|s| s.name.ends_with("_sum")) {
            return Err(format!("{name}{labels:?}: no _sum"));
        }
    }
    Ok(())
}

/// The value of `family{labels}`; panics naming what is missing.
pub fn metric(
    families: &BTreeMap<String, Family>,
    name: &str,
    labels: &[(&str, &str)],
) -> Option<f64> {
    let f = families.get(name)?;
    f.samples
        .iter()
        .find(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|s| s.value)
}

#[test]
fn the_strict_parser_refuses_what_prometheus_would_refuse() {
    let good = "# HELP a_total A.\n# TYPE a_total counter\na_total{job=\"x\"} 1\n\
                # TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 3.5\nh_count 2\n";
    let parsed = parse_prometheus(good).expect("valid");
    assert_eq!(metric(&parsed, "a_total", &[("job", "x")]), Some(1.0));
    for bad in [
        "a{job=x} 1\n",             // unquoted
        "a{job=\"x\"}  1\n",        // two spaces
        "a 1",                      // no final newline
        "# TYPE a counter\na -1\n", // negative counter
        "a 1\nb 1\na 2\n",          // not contiguous
        "a 1\na 2\n",               // same series twice
        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
        "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n", // no +Inf
        "a{b=\"\\x\"} 1\n",                                               // bad escape
        "1a 1\n",                                                         // bad name
        "a one\n",                                                        // bad value
    ] {
        assert!(parse_prometheus(bad).is_err(), "accepted {bad:?}");
    }
}
