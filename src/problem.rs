//! A problem with one file, said for a person: which file (or line) and
//! what is wrong with it. Problems are data, not failures: commands collect
//! them, report them (`list`, `sync`, `doctor`) and go on with the rest.

/// Something wrong with one file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub path: String,
    pub message: String,
}

impl Problem {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            path: path.into(),
            message: message.into(),
        }
    }
}
