//! Domain enums spelled as words (trust levels, outcomes, kinds, agents,
//! payload formats): one trait gives each its names, so the command line
//! builds its flags from the domain types and adding a variant is one edit.
//! No clap here; `cli` turns [`Named::ALL`] into possible values.

/// An enum whose every value has a name (and maybe other accepted spellings).
pub trait Named: Sized + Copy + Send + Sync + 'static {
    /// Every value, in the order help lists them.
    const ALL: &'static [Self];
    /// The canonical name (what is written and shown).
    fn as_str(self) -> &'static str;
    /// Other spellings accepted on input.
    fn aliases(self) -> &'static [&'static str] {
        &[]
    }
    /// The value with this name or alias (exact, as typed).
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|v| v.as_str() == name || v.aliases().contains(&name))
    }
    /// "a, b or c", for messages.
    fn choices() -> String {
        let names: Vec<&str> = Self::ALL.iter().map(|v| v.as_str()).collect();
        match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}
