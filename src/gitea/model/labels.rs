//! Labels: a repo label, the body that creates one, and the labels to add
//! to or set on an issue (by ID or by name).

use serde::{Deserialize, Serialize};

use super::json::null_default;

/// `Label`. `color` comes without its `#`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    #[serde(default)]
    pub id: i64,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub color: String,
    #[serde(default, deserialize_with = "null_default")]
    pub description: String,
    #[serde(default)]
    pub exclusive: bool,
    #[serde(default)]
    pub is_archived: bool,
}

/// `CreateLabelOption`. Gitea does not refuse a duplicate name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateLabelOption {
    pub name: String,
    /// `#rrggbb`, `rrggbb` or the 3-digit forms.
    pub color: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
}

/// The labels to add to or set on an issue: IDs or names, never both (400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IssueLabels {
    Ids(Vec<i64>),
    /// Names of repo labels (Gitea ≥ 1.22); unknown names are ignored.
    Names(Vec<String>),
}

impl Serialize for IssueLabels {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(1))?;
        match self {
            IssueLabels::Ids(ids) => map.serialize_entry("labels", ids)?,
            IssueLabels::Names(names) => map.serialize_entry("labels", names)?,
        }
        map.end()
    }
}
