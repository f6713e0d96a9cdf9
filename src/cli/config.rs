//! `learnsync config`: the effective configuration, each value with where
//! it came from (flag, environment, repo file, user file, default). A key
//! that is unset with nothing used in its place reads `(unset)`, `null` in
//! JSON; a default in force is shown as the value it is.

use super::stdout::outln;
use super::{CliResult, Context, exit};

pub fn run(ctx: &Context) -> CliResult {
    let rows = ctx.config.rows();
    if ctx.json {
        let map: serde_json::Map<String, serde_json::Value> = rows
            .iter()
            .map(|r| {
                (
                    r.key.clone(),
                    serde_json::json!({ "value": r.value, "source": r.source }),
                )
            })
            .collect();
        super::output::print_json(&serde_json::Value::Object(map));
        return Ok(exit::OK);
    }
    let width = rows.iter().map(|r| r.key.len()).max().unwrap_or(0);
    for r in rows {
        match &r.value {
            Some(v) => outln!("{:<width$}  {v}  ({})", r.key, r.source),
            None => outln!("{:<width$}  (unset)", r.key),
        }
    }
    Ok(exit::OK)
}
