//! Putting the generated block into a file the user owns (pure): everything
//! outside `<!-- learnsync:begin … -->` … `<!-- learnsync:end -->` is the
//! user's and comes back byte for byte; the block follows the file's line
//! ends (CRLF or LF); a file without the markers gets the block appended
//! (after a line end, if its last line had none). Markers a person broke —
//! a begin without an end, an end before its begin, two blocks — are an
//! error naming the line, and nothing is written: guessing would risk the
//! user's text.

/// The first line of a generated block (what follows on the line is free).
pub const BEGIN: &str = "<!-- learnsync:begin";
/// The last line of a generated block.
pub const END: &str = "<!-- learnsync:end -->";

/// Markers that cannot be read safely: the 1-based line and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadMarkers {
    pub line: usize,
    pub message: String,
}

/// `existing` (`None`: no file yet) with `block` (LF line ends, ending in
/// `END` and a line end) in place.
pub fn splice(existing: Option<&[u8]>, block: &str) -> Result<Vec<u8>, BadMarkers> {
    let Some(existing) = existing else {
        return Ok(block.as_bytes().to_vec());
    };
    let crlf = existing.windows(2).any(|w| w == b"\r\n");
    let block = if crlf {
        block.replace('\n', "\r\n")
    } else {
        block.to_string()
    };
    match find(existing)? {
        Some((start, end)) => {
            let mut out = Vec::with_capacity(existing.len() + block.len());
            out.extend_from_slice(&existing[..start]);
            out.extend_from_slice(block.as_bytes());
            out.extend_from_slice(&existing[end..]);
            Ok(out)
        }
        None => {
            let mut out = existing.to_vec();
            if !out.is_empty() {
                if !out.ends_with(b"\n") {
                    out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
                }
                out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            }
            out.extend_from_slice(block.as_bytes());
            Ok(out)
        }
    }
}

/// The byte range of the block: from the start of the begin line to just
/// after the end line's line end; `None` when there are no markers.
fn find(text: &[u8]) -> Result<Option<(usize, usize)>, BadMarkers> {
    let mut begin: Option<(usize, usize)> = None; // (byte, line)
    let mut found: Option<(usize, usize)> = None;
    let mut at = 0;
    for (i, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        let n = i + 1;
        let trimmed = String::from_utf8_lossy(line);
        let trimmed = trimmed.trim();
        if trimmed.starts_with(BEGIN) {
            if let Some((_, first)) = begin {
                return Err(BadMarkers {
                    line: n,
                    message: format!(
                        "a second `{BEGIN}` before the `{END}` of the one on line {first}"
                    ),
                });
            }
            if found.is_some() {
                return Err(BadMarkers {
                    line: n,
                    message: "a second learnsync block: keep one".into(),
                });
            }
            begin = Some((at, n));
        } else if trimmed.starts_with("<!-- learnsync:end") {
            match begin.take() {
                Some((start, _)) => found = Some((start, at + line.len())),
                None => {
                    return Err(BadMarkers {
                        line: n,
                        message: format!("`{END}` with no `{BEGIN}` before it"),
                    });
                }
            }
        }
        at += line.len();
    }
    if let Some((_, line)) = begin {
        return Err(BadMarkers {
            line,
            message: format!("`{BEGIN}` with no `{END}` after it"),
        });
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "<!-- learnsync:begin x -->\nnew\n<!-- learnsync:end -->\n";

    #[test]
    fn the_users_text_around_the_block_comes_back_byte_for_byte() {
        let before =
            b"# Mine\n\n<!-- learnsync:begin old -->\nold\n<!-- learnsync:end -->\nafter\n";
        let out = splice(Some(before), BLOCK).expect("splice");
        assert_eq!(
            out,
            b"# Mine\n\n<!-- learnsync:begin x -->\nnew\n<!-- learnsync:end -->\nafter\n"
        );
        // Twice: the same bytes.
        assert_eq!(splice(Some(&out), BLOCK).expect("again"), out);
    }

    #[test]
    fn crlf_files_get_a_crlf_block_and_a_missing_final_newline_is_kept_before_it() {
        let out = splice(Some(b"# Mine\r\nrule one"), BLOCK).expect("splice");
        assert_eq!(
            out,
            b"# Mine\r\nrule one\r\n\r\n<!-- learnsync:begin x -->\r\nnew\r\n<!-- learnsync:end -->\r\n"
        );
        let again = splice(Some(&out), BLOCK).expect("again");
        assert_eq!(again, out);
        assert_eq!(splice(None, BLOCK).expect("new"), BLOCK.as_bytes());
        assert_eq!(splice(Some(b""), BLOCK).expect("empty"), BLOCK.as_bytes());
    }

    #[test]
    fn broken_markers_are_refused_with_their_line() {
        let cases: &[(&[u8], usize)] = &[
            (b"a\n<!-- learnsync:begin -->\nb\n", 2),
            (b"<!-- learnsync:end -->\n", 1),
            (b"<!-- learnsync:begin -->\n<!-- learnsync:begin -->\n<!-- learnsync:end -->\n", 2),
            (
                b"<!-- learnsync:begin -->\n<!-- learnsync:end -->\n<!-- learnsync:begin -->\n<!-- learnsync:end -->\n",
                3,
            ),
        ];
        for (text, line) in cases {
            let err = splice(Some(text), BLOCK).expect_err("refused");
            assert_eq!(err.line, *line, "{err:?}");
        }
    }

    #[test]
    fn markers_edited_by_hand_are_still_found() {
        let before =
            b"x\n   <!-- learnsync:begin edited by Bob -->  \nold\n <!-- learnsync:end -->\ny";
        let out = splice(Some(before), BLOCK).expect("splice");
        assert_eq!(
            out,
            b"x\n<!-- learnsync:begin x -->\nnew\n<!-- learnsync:end -->\ny"
        );
    }
}
