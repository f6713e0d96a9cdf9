//! Commit signatures in git's SSH format (§5.2): a commit carries a
//! `gpgsig` header holding an `SSH SIGNATURE` over the commit without that
//! header, in the `git` namespace — what `git commit -S` writes with
//! `gpg.format=ssh` and what `git verify-commit` checks. Signing runs
//! `ssh-keygen -Y sign`, as git does (a key file, or a public key whose
//! private half ssh-agent holds); verifying is in process, so a sync pays
//! microseconds per owner, not a process.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The namespace git signs commits in.
const NAMESPACE: &str = "git";

/// The header a commit's signature is stored in.
pub const HEADER: &str = "gpgsig";

/// An agent's public key as the roster gives it (`ssh-ed25519 AAAA… comment`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey(ssh_key::PublicKey);

impl PublicKey {
    /// Parses an OpenSSH public key line. Only `ssh-ed25519` keys are
    /// accepted: the others would need their own crypto crates here.
    pub fn parse(text: &str) -> Result<PublicKey, String> {
        let key = ssh_key::PublicKey::from_openssh(text.trim())
            .map_err(|e| format!("not an OpenSSH public key ({e})"))?;
        if key.algorithm() != ssh_key::Algorithm::Ed25519 {
            return Err(format!(
                "a {} key; learnsync verifies ssh-ed25519 keys only (`ssh-keygen -t ed25519`)",
                key.algorithm()
            ));
        }
        Ok(PublicKey(key))
    }

    /// The key as a roster line holds it (`ssh-ed25519 AAAA…`, no comment).
    pub fn openssh(&self) -> String {
        let mut key = self.0.clone();
        key.set_comment("");
        key.to_openssh().unwrap_or_default().trim().to_string()
    }

    /// The key's SHA256 fingerprint, as `ssh-keygen -l` shows it.
    pub fn fingerprint(&self) -> String {
        self.0.fingerprint(ssh_key::HashAlg::Sha256).to_string()
    }
}

/// What a commit's signature says about a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Signed with the key, over exactly this commit.
    Good,
    /// No signature at all.
    Unsigned,
    /// A signature that does not verify with the key (another key, another
    /// namespace, altered bytes, or not an SSH signature), and why.
    Bad(String),
}

/// Checks the signature of a raw commit object (`data`, as stored) against
/// `key`.
pub fn verify(data: &[u8], key: &PublicKey) -> Verdict {
    let (signature, signed) = match gix::objs::CommitRefIter::signature(data) {
        Ok(Some(found)) => found,
        Ok(None) => return Verdict::Unsigned,
        Err(e) => return Verdict::Bad(format!("the commit does not parse: {e}")),
    };
    let armored = signature.to_string();
    let sig = match ssh_key::SshSig::from_pem(armored.trim()) {
        Ok(sig) => sig,
        Err(e) => return Verdict::Bad(format!("not an SSH signature ({e})")),
    };
    if sig.public_key() != key.0.key_data() {
        return Verdict::Bad("signed with another key".into());
    }
    let payload: gix::bstr::BString = signed.into();
    match key.0.verify(NAMESPACE, payload.as_ref(), &sig) {
        Ok(()) => Verdict::Good,
        Err(e) => Verdict::Bad(format!("the signature does not verify ({e})")),
    }
}

/// Signs `payload` (a commit object without its signature) with the key at
/// `key`, through `ssh-keygen -Y sign`: the armored signature, or why not.
pub fn sign(payload: &[u8], key: &Path) -> Result<String, String> {
    let mut child = Command::new("ssh-keygen")
        .args(["-Y", "sign", "-n", NAMESPACE, "-q", "-f"])
        .arg(key)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run ssh-keygen (OpenSSH ≥ 8.2 signs commits): {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(payload)
            .map_err(|e| format!("could not give ssh-keygen the commit: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("ssh-keygen: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || !text.starts_with("-----BEGIN SSH SIGNATURE-----") {
        let why = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "ssh-keygen could not sign with {}: {}",
            key.display(),
            crate::redact::redact(why.trim())
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh ed25519 key pair from the real ssh-keygen: (private path, public line).
    fn key_pair(dir: &Path, name: &str) -> (std::path::PathBuf, String) {
        let path = dir.join(name);
        let ok = Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
            .arg(&path)
            .status()
            .expect("ssh-keygen runs")
            .success();
        assert!(ok, "ssh-keygen made a key");
        let public = std::fs::read_to_string(path.with_extension("pub")).expect("public key");
        (path, public)
    }

    fn signed_commit(payload: &str, signature: &str) -> Vec<u8> {
        // The header goes after the committer line, continuation lines
        // indented by one space, as git writes it.
        let (head, message) = payload.split_once("\n\n").expect("headers, then message");
        let value = signature.replace('\n', "\n ");
        format!("{head}\n{HEADER} {value}\n\n{message}").into_bytes()
    }

    const PAYLOAD: &str = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\
        author a <a@x> 1700000000 +0000\n\
        committer a <a@x> 1700000000 +0000\n\
        \n\
        learnsync: a commit\n";

    #[test]
    fn a_signature_verifies_with_its_key_only_and_over_its_bytes_only() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (alice, alice_pub) = key_pair(tmp.path(), "alice");
        let (_, mallory_pub) = key_pair(tmp.path(), "mallory");
        let alice_key = PublicKey::parse(&alice_pub).expect("alice's key parses");
        let mallory_key = PublicKey::parse(&mallory_pub).expect("mallory's key parses");

        let sig = sign(PAYLOAD.as_bytes(), &alice).expect("signed");
        let commit = signed_commit(PAYLOAD, &sig);
        assert_eq!(verify(&commit, &alice_key), Verdict::Good);
        assert!(matches!(verify(&commit, &mallory_key), Verdict::Bad(_)));
        assert_eq!(verify(PAYLOAD.as_bytes(), &alice_key), Verdict::Unsigned);

        // One byte of the message changed after signing.
        let altered = signed_commit(&PAYLOAD.replace("a commit", "b commit"), &sig);
        assert!(matches!(verify(&altered, &alice_key), Verdict::Bad(_)));
        // Not a signature at all.
        let junk = signed_commit(
            PAYLOAD,
            "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----",
        );
        assert!(matches!(verify(&junk, &alice_key), Verdict::Bad(_)));
    }

    #[test]
    fn only_ed25519_public_keys_are_taken() {
        assert!(PublicKey::parse("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ x").is_err());
        assert!(PublicKey::parse("not a key").is_err());
        assert!(
            PublicKey::parse(
                "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl c"
            )
            .is_ok()
        );
    }

    #[test]
    fn a_missing_key_file_is_named() {
        let err = sign(b"x", Path::new("/nonexistent/key")).expect_err("no key");
        assert!(err.contains("/nonexistent/key"), "{err}");
    }
}
