//! The names of secrets in other languages than English: `Passwort`, `mot_de_passe`,
//! `contraseña`, `senha`, `пароль`, `密码`, `パスワード`, `비밀번호`, … Words written
//! in ASCII join the English ones in `classify_word` (so `DB_KENNWORT` is a key like
//! `DB_PASSWORD`); words in other scripts are found by an automaton of their own, run
//! only on a text that holds a byte outside ASCII (`detect.rs`), and read here: the
//! key, then its value after `:` or `=` (as an English key's), a few words on in its
//! sentence (`label::along_sentence`: `Пароль от базы: X`, `la contraseña es X`), or
//! after a full-width `：`, a dash or another script's verb.

use super::{Family, Found, Key, apart_value, direct_value, need_for};
use crate::redact::text::{Need, at, line_end, plausible, run, skip_blanks};

/// Names of secrets in ASCII, by family; `classify_word` reads them.
pub(in crate::redact) const ASCII_WORDS: &[(&str, Family)] = &[
    ("kennwort", Family::Password),
    ("wachtwoord", Family::Password),
    ("senha", Family::Password),
    ("contrasena", Family::Password),
    ("clave", Family::Password),
    ("haslo", Family::Password),
    ("heslo", Family::Password),
    ("salasana", Family::Password),
    ("losenord", Family::Password),
    ("adgangskode", Family::Password),
    ("passord", Family::Password),
    ("parola", Family::Password),
    ("jelszo", Family::Password),
    ("sifre", Family::Password),
    ("motdepasse", Family::Password),
    ("passe", Family::Password),
    ("geheim", Family::Secret),
    ("geheimnis", Family::Secret),
    ("secreto", Family::Secret),
    ("segredo", Family::Secret),
    ("segreto", Family::Secret),
    ("sekret", Family::Secret),
    ("hemlighet", Family::Secret),
    ("schluessel", Family::Key),
    ("schlussel", Family::Key),
    ("chiave", Family::Key),
    ("sleutel", Family::Key),
    ("klucz", Family::Key),
    ("nyckel", Family::Key),
    ("chave", Family::Key),
    ("jeton", Family::Token),
    ("anahtar", Family::Key),
    ("anahtari", Family::Key),
    ("sandi", Family::Password),
    ("matkhau", Family::Password),
    // `MAT_KHAU`: Vietnamese `mật khẩu` without its marks, cut at the underscore.
    ("khau", Family::Password),
    // Russian, Ukrainian, Uzbek, Estonian, Latvian, Serbo-Croatian, Slovene,
    // Lithuanian, Basque, Catalan, Galician, Welsh, Afrikaans, Swahili, Esperanto,
    // Icelandic, Malay and Turkish names of a password, written in ASCII.
    ("parol", Family::Password),
    ("parool", Family::Password),
    ("lozinka", Family::Password),
    ("sifra", Family::Password),
    ("geslo", Family::Password),
    ("slaptazodis", Family::Password),
    ("pasahitza", Family::Password),
    ("contrasenya", Family::Password),
    ("contrasinal", Family::Password),
    ("cyfrinair", Family::Password),
    ("wagwoord", Family::Password),
    ("nenosiri", Family::Password),
    ("pasvorto", Family::Password),
    ("lykilord", Family::Password),
    ("laluan", Family::Password),
    ("parolasi", Family::Password),
    // … of a secret and of a key.
    ("rahasia", Family::Secret),
    ("salaisuus", Family::Secret),
    ("kunci", Family::Key),
    ("avain", Family::Key),
    ("kulcs", Family::Key),
    ("cheie", Family::Key),
    ("kljuc", Family::Key),
    // Romanised names a key is given where its script is not ASCII: Irish, Tamil,
    // Zulu, Korean, Japanese, Hebrew, Latvian, Mongolian, Greek, Thai, Persian,
    // Georgian, Armenian, Albanian, Kazakh, Turkish, Hindi, Bengali, Chinese and
    // Russian names of a password, a secret and a key.
    ("pasfhocal", Family::Password),
    ("kadavuchol", Family::Password),
    ("kadavucchol", Family::Password),
    ("iphasiwedi", Family::Password),
    ("bimilbeonho", Family::Password),
    ("bimilbunho", Family::Password),
    ("pasuwado", Family::Password),
    ("pasuwaado", Family::Password),
    ("sisma", Family::Password),
    ("parole", Family::Password),
    ("nuuts", Family::Password),
    ("kodikos", Family::Password),
    ("rahatphan", Family::Password),
    ("ramz", Family::Password),
    ("paroli", Family::Password),
    ("gaghtnabar", Family::Password),
    ("fjalekalimi", Family::Password),
    ("kupiyasoz", Family::Password),
    ("sifresi", Family::Password),
    ("mima", Family::Password),
    ("himitsu", Family::Secret),
    ("bimil", Family::Secret),
    ("rahasya", Family::Secret),
    ("gopon", Family::Secret),
    ("titok", Family::Secret),
    ("miyao", Family::Key),
    ("klyuch", Family::Key),
    ("kluch", Family::Key),
    ("chabi", Family::Key),
    ("kunji", Family::Key),
];

/// Names of secrets in other scripts (or with letters outside ASCII), by family, in
/// lower case. A name is found capitalised and in capitals too (`Lösenord`, `ПАРОЛЬ`),
/// and a name of two words with `_` for its blank (`mật_khẩu`, `پاس_ورڈ`): see
/// `detect.rs`'s automaton. Spellings casing cannot make are listed (`ŞİFRE`).
pub(in crate::redact) const WORDS: &[(&str, Family)] = &[
    ("пароль", Family::Password),
    ("密码", Family::Password),
    ("密碼", Family::Password),
    ("口令", Family::Password),
    ("パスワード", Family::Password),
    ("暗証番号", Family::Password),
    ("비밀번호", Family::Password),
    ("암호", Family::Password),
    ("contraseña", Family::Password),
    ("hasło", Family::Password),
    ("lösenord", Family::Password),
    ("jelszó", Family::Password),
    ("şifre", Family::Password),
    ("ŞİFRE", Family::Password),
    ("şifrə", Family::Password),
    ("parolă", Family::Password),
    ("šifra", Family::Password),
    ("slaptažodis", Family::Password),
    ("lykilorð", Family::Password),
    ("fjalëkalimi", Family::Password),
    ("парола", Family::Password),
    ("лозинка", Family::Password),
    ("құпиясөз", Family::Password),
    ("нууц үг", Family::Password),
    ("құпия сөз", Family::Password),
    ("ΚΩΔΙΚΟΣ", Family::Password),
    ("گذرواژه", Family::Password),
    ("پاس ورڈ", Family::Password),
    ("รหัสผ่าน", Family::Password),
    ("ລະຫັດຜ່ານ", Family::Password),
    ("ពាក្យសម្ងាត់", Family::Password),
    ("စကားဝှက်", Family::Password),
    ("পাসওয়ার্ড", Family::Password),
    ("கடவுச்சொல்", Family::Password),
    ("පාස්වර්ඩ්", Family::Password),
    ("මුරපදය", Family::Password),
    ("ਪਾਸਵਰਡ", Family::Password),
    ("પાસવર્ડ", Family::Password),
    ("గుప్తపదం", Family::Password),
    ("పాస్\u{200c}వర్డ్", Family::Password),
    ("పాస్వర్డ్", Family::Password),
    ("പാസ്\u{200c}വേഡ്", Family::Password),
    ("പാസ്വേഡ്", Family::Password),
    ("ಪಾಸ್\u{200c}ವರ್ಡ್", Family::Password),
    ("ಪಾಸ್ವರ್ಡ್", Family::Password),
    ("ಗುಪ್ತಪದ", Family::Password),
    ("ପାସୱାର୍ଡ", Family::Password),
    ("сырсөз", Family::Password),
    ("серсүз", Family::Password),
    ("پارول", Family::Password),
    ("پټنوم", Family::Password),
    ("პაროლი", Family::Password),
    ("գաղտնաբառ", Family::Password),
    ("የይለፍ ቃል", Family::Password),
    ("mật khẩu", Family::Password),
    ("κωδικός", Family::Password),
    ("סיסמה", Family::Password),
    ("كلمة المرور", Family::Password),
    ("كلمة السر", Family::Password),
    ("رمز الدخول", Family::Password),
    ("पासवर्ड", Family::Password),
    ("कूटशब्द", Family::Password),
    ("गुप्तशब्द", Family::Password),
    ("гасло", Family::Password),
    ("رمز عبور", Family::Password),
    ("токен", Family::Token),
    ("令牌", Family::Token),
    ("權杖", Family::Token),
    ("权杖", Family::Token),
    ("トークン", Family::Token),
    ("토큰", Family::Token),
    ("कुंजी", Family::Key),
    ("চাবি", Family::Key),
    ("ключ", Family::Key),
    ("密钥", Family::Key),
    ("密鑰", Family::Key),
    ("金鑰", Family::Key),
    ("金钥", Family::Key),
    ("秘钥", Family::Key),
    ("キー", Family::Key),
    ("clé", Family::Key),
    ("κλειδί", Family::Key),
    ("מפתח", Family::Key),
    ("مفتاح", Family::Key),
    ("klíč", Family::Key),
    ("kľúč", Family::Key),
    ("ključ", Family::Key),
    ("кључ", Family::Key),
    ("khóa", Family::Key),
    ("anahtarı", Family::Key),
    ("กุญแจ", Family::Key),
    ("คีย์", Family::Key),
    ("schlüssel", Family::Key),
    // `jeton_d_accès`, `clé_d_accès`: the ASCII word before it is cut at `è`.
    ("d_accès", Family::Token),
    ("d'accès", Family::Token),
    ("रहस्य", Family::Secret),
    ("গোপন", Family::Secret),
    ("סוד", Family::Secret),
    ("секрет", Family::Secret),
    ("Секрет", Family::Secret),
    ("秘密", Family::Secret),
    ("シークレット", Family::Secret),
    ("비밀", Family::Secret),
    ("ความลับ", Family::Secret),
    ("bí mật", Family::Secret),
    ("sırrı", Family::Secret),
];

/// Dashes and the verbs of other scripts a sentence puts between a secret's name and
/// its value; `is`, `ist`, `est`, `es` and `é` are `label::along_sentence`'s.
const VERBS: &[&[u8]] = &[
    "— ".as_bytes(),
    b"- ",
    "это ".as_bytes(),
    "是".as_bytes(),
    "は".as_bytes(),
    "는 ".as_bytes(),
    "은 ".as_bytes(),
];

/// The quotes of other scripts a value may stand in: CJK corner brackets, guillemets
/// and curly quotes.
const BRACKETS: [(&str, &str); 5] = [
    ("「", "」"),
    ("『", "』"),
    ("«", "»"),
    ("“", "”"),
    ("„", "“"),
];

/// The value a name in another script at `s..e` (the anchor `literal`) is given.
pub(in crate::redact) fn foreign_key(b: &[u8], s: usize, e: usize, literal: &str) -> Option<Found> {
    let (family, kind) = named(literal)?;
    // The key goes on, in ASCII or its own script (`пароль_db`, `токен_доступу`,
    // `비밀키`), and may be quoted or bracketed.
    let ke = past_gloss(b, key_end(b, e));
    let key = Key {
        start: s,
        end: ke,
        flag: false,
        quote: super::quote_before(b, s),
        family,
        kind,
    };
    if let Some(f) = direct_value(b, &key).or_else(|| apart_value(b, s, ke, family, kind)) {
        // `Пароль: уточните у дежурного`: the sentence goes on where a value would be.
        return (!starts_sentence(b, f.start, f.end)).then_some(f);
    }
    // `Пароль от базы: X`: a few words on, as an English label's sentence would.
    if let Some((start, end)) = super::label::along_sentence(b, ke, family) {
        return Some(Found {
            kind,
            start,
            end,
            direct: false,
        });
    }
    // A full-width colon, or a sentence's verb: the value is the next word.
    let mut i = skip_blanks(b, ke + usize::from(matches!(at(b, ke), Some(b'"' | b'\''))));
    if let Some(c) = super::WIDE_COLONS
        .iter()
        .find(|c| b[i..].starts_with(c.as_bytes()))
    {
        i += c.len();
    } else if let Some(v) = VERBS.iter().find(|v| b[i..].starts_with(v)) {
        i += v.len();
    } else if let Some(v) = VERBS.iter().find(|v| b[e..].starts_with(v)) {
        // `密碼是`: a verb of a script without blanks, read as the key's going on.
        i = e + v.len();
    } else {
        return None;
    }
    i = skip_blanks(b, i);
    // `密碼是「X」`, `«X»`: the script's own quotes around the value.
    if let Some((open, close)) = BRACKETS
        .iter()
        .find(|(o, _)| b[i..].starts_with(o.as_bytes()))
    {
        let vs = i + open.len();
        let ve = vs
            + b[vs..line_end(b, vs, 256)]
                .windows(close.len())
                .position(|w| w == close.as_bytes())?;
        let v = &b[vs..ve];
        return (v.len() >= 8 && v.is_ascii() && plausible(v, need_for(family))).then_some(Found {
            kind,
            start: vs,
            end: ve,
            direct: true,
        });
    }
    let quote = at(b, i).filter(|c| matches!(c, b'"' | b'\'' | b'`'));
    let vs = i + usize::from(quote.is_some());
    // Up to the next blank, quote or comma, or the script's own punctuation (`（`).
    let ve = run(b, vs, |c| {
        c.is_ascii()
            && !c.is_ascii_whitespace()
            && Some(c) != quote
            && !matches!(c, b'"' | b'\'' | b'`' | b',')
    });
    // A sentence's full stop is not the value's.
    let ve = if quote.is_none() && ve > vs && b[ve - 1] == b'.' {
        ve - 1
    } else {
        ve
    };
    let v = &b[vs..ve];
    let need = need_for(family);
    let strict = need == Need::Password && v.len() < 8;
    (ve > vs && v.is_ascii() && !strict && plausible(v, need)).then_some(Found {
        kind,
        start: vs,
        end: ve,
        direct: true,
    })
}

/// The cells under a header cell that a name in another script starts (`ключ_api`).
pub(in crate::redact) fn foreign_column(
    b: &[u8],
    s: usize,
    e: usize,
    literal: &str,
    out: &mut Vec<crate::redact::context::Hit>,
) {
    let Some((family, kind)) = named(literal) else {
        return;
    };
    super::label::column_below(b, s, key_end(b, e), (family, kind), out);
}

/// Whether `b[s..e]` is a word of a script other than Latin's that another word
/// follows: what a sentence says in place of a value (`Пароль: уточните у …`,
/// `비밀번호: 담당자에게 문의하세요`).
fn starts_sentence(b: &[u8], s: usize, e: usize) -> bool {
    let Ok(word) = std::str::from_utf8(&b[s..e]) else {
        return false;
    };
    let mut after = utf8_from(b, e, 8).chars();
    !word.is_ascii()
        && word.chars().all(char::is_alphabetic)
        && after.next() == Some(' ')
        && after.next().is_some_and(char::is_alphabetic)
}

/// After a name's gloss in brackets (`存取權杖（Token）：`, `Пароль (password):`), or
/// `e` when none follows.
fn past_gloss(b: &[u8], e: usize) -> usize {
    let i = skip_blanks(b, e);
    let Some((open, close)) = [("（", "）"), ("(", ")")]
        .into_iter()
        .find(|(o, _)| b[i..].starts_with(o.as_bytes()))
    else {
        return e;
    };
    let from = i + open.len();
    let gloss = &b[from..(from + 40).min(b.len())];
    match gloss
        .windows(close.len())
        .position(|w| w == close.as_bytes())
    {
        Some(p)
            if gloss[..p]
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || b" _-".contains(c)) =>
        {
            from + p + close.len()
        }
        _ => e,
    }
}

/// The family and marker kind of the name `literal` (one of `WORDS`).
fn named(literal: &str) -> Option<(Family, &'static str)> {
    let family = WORDS.iter().find(|(w, _)| *w == literal).map(|&(_, f)| f)?;
    let kind = match family {
        Family::Password => "password",
        Family::Token => "token",
        Family::Key => "key",
        _ => "secret",
    };
    Some((family, kind))
}

/// Where a key that goes on from `e` ends: ASCII word characters and letters of any
/// script, not a full-width colon or other punctuation.
fn key_end(b: &[u8], e: usize) -> usize {
    let len: usize = utf8_from(b, e, 64)
        .chars()
        .take_while(|&c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
        .map(char::len_utf8)
        .sum();
    e + len
}

/// The whole characters of `b[e..e + max]`: a character the bound cuts is left out.
fn utf8_from(b: &[u8], e: usize, max: usize) -> &str {
    let bytes = &b[e..(e + max).min(b.len())];
    std::str::from_utf8(bytes)
        .or_else(|err| std::str::from_utf8(&bytes[..err.valid_up_to()]))
        .unwrap_or("")
}
