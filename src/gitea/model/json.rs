//! How Gitea's JSON reads where serde's defaults do not fit: Go's nil
//! slices and pointers arrive as `null`, which every payload reads as empty.

use serde::{Deserialize, Deserializer};

/// Gitea marshals Go nil slices and pointers as `null`.
pub(super) fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}
