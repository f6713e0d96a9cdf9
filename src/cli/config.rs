//! `learnsync config`: the effective configuration, each value with where
//! it came from (flag, environment, repo file, user file, default).

use super::stdout::outln;
use super::{CliResult, Context, exit};

pub fn run(ctx: &Context) -> CliResult {
    let rows = ctx.config.rows();
    if ctx.json {
        let map: serde_json::Map<String, serde_json::Value> = rows
            .iter()
            .map(|(k, v, s)| (k.clone(), serde_json::json!({ "value": v, "source": s })))
            .collect();
        super::output::print_json(&serde_json::Value::Object(map));
        return Ok(exit::OK);
    }
    let width = rows.iter().map(|(k, _, _)| k.len()).max().unwrap_or(0);
    for (k, v, s) in rows {
        outln!("{k:<width$}  {v}  ({s})");
    }
    Ok(exit::OK)
}
