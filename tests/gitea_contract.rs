//! Contract test: every request the client sends and every answer the test
//! server gives is checked against Gitea's swagger (types, property names).

#[path = "support/gitea_server/mod.rs"]
mod gitea_server;

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gitea_server::{Fault, FaultRule, GiteaServer, Recorded, WRITE_TOKEN};
use learnsync::gitea::{ClientOptions, GiteaClient, RepoRef};
use learnsync::retry::RetryPolicy;
use secrecy::SecretString;
use serde_json::Value;

fn swagger() -> Option<Value> {
    let path = std::env::var_os("LEARNSYNC_GITEA_SWAGGER")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/gitea/swagger.v1.json")
        });
    let text = std::fs::read_to_string(&path).ok()?;
    serde_json::from_str(&text).ok()
}

/// A small Swagger 2.0 schema checker: `$ref`, types, formats used by Gitea,
/// `required`, and no property the schema does not name.
struct Checker<'a> {
    spec: &'a Value,
}

impl Checker<'_> {
    fn check(&self, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            // Go pointers marshal as null; swagger 2.0 cannot say "nullable".
            if value.is_null() {
                return;
            }
            let name = reference.trim_start_matches("#/definitions/");
            match self.spec["definitions"].get(name) {
                Some(def) => self.check(def, value, at, errors),
                None => errors.push(format!("{at}: unknown $ref {reference}")),
            }
            return;
        }
        let ty = schema
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("object");
        let ok = match ty {
            "object" => value.is_object(),
            "array" => value.is_array() || value.is_null(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            _ => true,
        };
        if !ok {
            errors.push(format!("{at}: expected {ty}, got {value}"));
            return;
        }
        match (ty, value) {
            ("object", Value::Object(map)) => {
                for name in schema["required"].as_array().into_iter().flatten() {
                    if let Some(name) = name.as_str()
                        && !map.contains_key(name)
                    {
                        errors.push(format!("{at}: missing required {name}"));
                    }
                }
                let props = schema.get("properties").and_then(Value::as_object);
                for (key, v) in map {
                    match props.and_then(|p| p.get(key)) {
                        Some(sub) => self.check(sub, v, &format!("{at}.{key}"), errors),
                        None => match schema.get("additionalProperties") {
                            Some(extra) if extra.is_object() => {
                                self.check(extra, v, &format!("{at}.{key}"), errors)
                            }
                            _ if props.is_none() => {}
                            _ => errors.push(format!("{at}: property {key} not in the schema")),
                        },
                    }
                }
            }
            ("array", Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    self.check(&schema["items"], item, &format!("{at}[{i}]"), errors);
                }
            }
            ("string", Value::String(s))
                if schema.get("format").and_then(Value::as_str) == Some("date-time")
                    && time::OffsetDateTime::parse(
                        s,
                        &time::format_description::well_known::Rfc3339,
                    )
                    .is_err() =>
            {
                errors.push(format!("{at}: {s:?} is not an RFC 3339 date-time"));
            }
            _ => {}
        }
    }
}

/// The swagger path template and operation for a recorded request.
fn operation<'s>(spec: &'s Value, r: &Recorded) -> Option<(&'s str, &'s Value)> {
    let path = r.path().strip_prefix("/api/v1")?;
    let segments: Vec<&str> = path.split('/').collect();
    let method = r.method.to_ascii_lowercase();
    spec["paths"]
        .as_object()?
        .iter()
        .find_map(|(template, item)| {
            let t: Vec<&str> = template.split('/').collect();
            let fits = t.len() == segments.len()
                && t.iter()
                    .zip(&segments)
                    .all(|(a, b)| a.starts_with('{') || a == b);
            let op = item.get(&method)?;
            fits.then_some((template.as_str(), op))
        })
}

fn resolve<'s>(spec: &'s Value, v: &'s Value) -> &'s Value {
    match v.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let mut node = spec;
            for part in r.trim_start_matches("#/").split('/') {
                node = &node[part];
            }
            node
        }
        None => v,
    }
}

#[tokio::test]
async fn client_requests_and_server_answers_follow_gitea_swagger() {
    let Some(spec) = swagger() else {
        println!("skipped: swagger.v1.json not found (set LEARNSYNC_GITEA_SWAGGER)");
        return;
    };
    let server = GiteaServer::start();
    let gitea = GiteaClient::new(
        server.url(),
        RepoRef::parse(&server.repo_ref()).expect("repo"),
        Some(SecretString::from(WRITE_TOKEN.to_string())),
        ClientOptions {
            retry: RetryPolicy::fast(4),
            timeout: Duration::from_secs(5),
            ..ClientOptions::default()
        },
    )
    .expect("client");
    server.inject(FaultRule::next(1, Fault::LandThenStatus(500)).on_method("POST"));

    gitea.server_version().await.expect("version");
    gitea.get_repository().await.expect("repo");
    gitea.list_wiki_pages().await.expect("empty list");
    for title in [
        "Home",
        "_Sidebar",
        "2024-05-01 Meeting",
        "Café Menu",
        "C++ & Rust",
    ] {
        gitea
            .upsert_wiki_page(title, format!("# {title}\n").as_bytes(), Some("publish"))
            .await
            .expect("upsert");
    }
    gitea
        .upsert_wiki_page("Home", b"# Home v2\n", None)
        .await
        .expect("edit");
    server.commit_as_person("Home.md", Some(b"by hand"), "person edit");
    gitea
        .get_wiki_page("Home")
        .await
        .expect("get")
        .expect("home");
    gitea.list_wiki_pages().await.expect("list");
    gitea
        .wiki_page_revisions("Home", 1)
        .await
        .expect("revisions");
    gitea
        .delete_wiki_page("C%2B%2B-%26-Rust")
        .await
        .expect("delete");
    gitea.get_wiki_page("Missing").await.expect("404 is None");

    let checker = Checker { spec: &spec };
    let mut errors = Vec::new();
    let requests = server.requests();
    assert!(requests.len() >= 15, "scenario ran: {}", requests.len());
    for r in &requests {
        let at = format!("{} {}", r.method, r.target);
        let Some((template, op)) = operation(&spec, r) else {
            errors.push(format!("{at}: not an operation in the swagger"));
            continue;
        };
        if r.header("authorization")
            .is_some_and(|a| !a.starts_with("token "))
        {
            errors.push(format!("{at}: Authorization must be `token <t>`"));
        }
        let body_param = op["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["in"] == "body");
        match (body_param, r.body.is_empty()) {
            (Some(param), false) => match r.json_body() {
                Some(body) => {
                    checker.check(
                        &param["schema"],
                        &body,
                        &format!("{at} request"),
                        &mut errors,
                    );
                    for field in ["title", "content_base64"] {
                        if body.get(field).is_none() {
                            errors.push(format!("{at}: learnsync always sends {field}"));
                        }
                    }
                    let b64 = body["content_base64"].as_str().unwrap_or("");
                    if STANDARD.decode(b64).is_err() {
                        errors.push(format!(
                            "{at}: content_base64 is not padded standard base64"
                        ));
                    }
                }
                None => errors.push(format!("{at}: request body is not JSON")),
            },
            (None, false) => errors.push(format!("{at}: body on an operation without one")),
            _ => {}
        }
        let Some(status) = r.status else { continue };
        if r.fault.is_some() {
            continue; // injected answers imitate proxies, not Gitea
        }
        let Some(response) = op["responses"].get(status.to_string()) else {
            errors.push(format!(
                "{at}: status {status} is not documented for {template}"
            ));
            continue;
        };
        let response = resolve(&spec, response);
        match response.get("schema") {
            Some(schema) => match r.json_response() {
                Some(body) => {
                    checker.check(schema, &body, &format!("{at} -> {status}"), &mut errors)
                }
                None => errors.push(format!("{at} -> {status}: body is not JSON")),
            },
            None if status == 204 && !r.response_body.is_empty() => {
                errors.push(format!("{at} -> 204 with a body"))
            }
            None => {}
        }
        if template.ends_with("/wiki/pages") && status == 200 && total_count(r).is_none() {
            errors.push(format!("{at}: list without X-Total-Count"));
        }
    }
    assert!(
        errors.is_empty(),
        "contract violations:\n{}",
        errors.join("\n")
    );
}

fn total_count(r: &Recorded) -> Option<u64> {
    r.response_headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("x-total-count"))
        .and_then(|(_, v)| v.parse().ok())
}

#[test]
fn the_checker_catches_wrong_types_and_unknown_properties() {
    let Some(spec) = swagger() else {
        println!("skipped: swagger.v1.json not found (set LEARNSYNC_GITEA_SWAGGER)");
        return;
    };
    let checker = Checker { spec: &spec };
    let schema = serde_json::json!({"$ref": "#/definitions/WikiPage"});
    let mut errors = Vec::new();
    let bad = serde_json::json!({"title": 3, "committer": {}, "last_commit": {"sha": "x", "commiter": {"date": "yesterday"}}});
    checker.check(&schema, &bad, "page", &mut errors);
    let text = errors.join("\n");
    assert!(text.contains("page.title: expected string"), "{text}");
    assert!(
        text.contains("property committer not in the schema"),
        "{text}"
    );
    let mut errors = Vec::new();
    let good =
        serde_json::json!({"title": "t", "sub_url": "t", "commit_count": 1, "last_commit": null});
    checker.check(&schema, &good, "page", &mut errors);
    assert!(errors.is_empty(), "{errors:?}");
}
