//! What a token may do. Gitea has no call that tells a token its own scopes
//! (listing tokens takes the password), but its 403 for a missing scope
//! names them: "token does not have at least one of required scope(s),
//! required=[read:user], token scope=write:repository,write:issue". So the
//! probe asks reads in categories a learnsync token rarely holds and reads
//! the scopes from the refusal. Reads only: the probe never writes.

use super::GiteaError;
use super::client::GiteaClient;
use reqwest::Method;

/// What the probe learnt of the token's scopes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenScopes {
    /// Gitea named them.
    Known(Vec<String>),
    /// Every probe went through: a legacy `all` token, or one with every
    /// category; nothing is missing.
    Unrestricted,
}

impl TokenScopes {
    /// The scopes `needed` that the token lacks (a `write:` scope implies its
    /// `read:`; `all` grants everything).
    pub fn missing<'a>(&self, needed: &[&'a str]) -> Vec<&'a str> {
        let TokenScopes::Known(have) = self else {
            return Vec::new();
        };
        if have.iter().any(|s| s == "all") {
            return Vec::new();
        }
        needed
            .iter()
            .copied()
            .filter(|need| {
                let category = need.split_once(':').map_or(*need, |(_, c)| c);
                let write = format!("write:{category}");
                !have.iter().any(|h| h == need || *h == write)
            })
            .collect()
    }
}

/// The scope list of a 403 for a missing scope, if `message` is one.
pub fn scopes_in_refusal(message: &str) -> Option<Vec<String>> {
    let (_, rest) = message.split_once("token scope=")?;
    let list = rest
        .split(|c: char| c.is_whitespace() || c == '"' || c == '}')
        .next()
        .unwrap_or("");
    Some(
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// Reads that each need one scope category (API-NOTES §d): `/user`
/// (`read:user`), `/notifications` (`read:notification`), `/user/orgs`
/// (`read:organization`).
const PROBES: &[&str] = &["/user", "/notifications", "/user/orgs"];

impl GiteaClient {
    /// The token's scopes, from Gitea's own words (module doc).
    pub async fn token_scopes(&self) -> Result<TokenScopes, GiteaError> {
        for path in PROBES {
            let query = [("limit", "1".to_string())];
            let reply = self
                .send::<()>(Method::GET, path, &query, None, &[403])
                .await?;
            if reply.status == 403 {
                let text = String::from_utf8_lossy(&reply.body);
                if let Some(scopes) = scopes_in_refusal(&text) {
                    return Ok(TokenScopes::Known(scopes));
                }
            }
        }
        Ok(TokenScopes::Unrestricted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_names_the_scopes() {
        let body = r#"{"message":"token does not have at least one of required scope(s), required=[read:notification], token scope=write:repository,read:user","url":"x"}"#;
        assert_eq!(
            scopes_in_refusal(body),
            Some(vec!["write:repository".into(), "read:user".into()])
        );
        assert_eq!(scopes_in_refusal(r#"{"message":"forbidden"}"#), None);
    }

    #[test]
    fn a_write_scope_covers_its_read_and_all_covers_everything() {
        let known = |s: &[&str]| TokenScopes::Known(s.iter().map(|x| x.to_string()).collect());
        let review = ["write:repository", "write:issue", "read:user"];
        assert_eq!(
            known(&["write:repository", "read:issue", "write:user"]).missing(&review),
            vec!["write:issue"]
        );
        assert!(known(&["all"]).missing(&review).is_empty());
        assert!(TokenScopes::Unrestricted.missing(&review).is_empty());
        assert_eq!(
            known(&["write:repository"]).missing(&["write:repository"]),
            Vec::<&str>::new()
        );
    }
}
