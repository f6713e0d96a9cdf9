//! The scan behind the redactor: one aho-corasick pass over literal anchors (vendor
//! prefixes, keyword roots, header names, flags, structural markers), then the validator
//! each anchor names (`vendor.rs`, `assign.rs`, `context.rs`). No regex.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

use super::allow;
use super::argv;
use super::assign::{self, Found};
use super::command;
use super::context::{self, Hit};
use super::dump;
use super::keymaterial;
use super::stdin;
use super::structure;
use super::text::{at, before, line_end, run};
use super::vendor::{self, Vendor};

/// A possible secret; the resolver in `mod.rs` picks non-overlapping ones by priority.
#[derive(Debug, Clone, Copy)]
pub(super) struct Candidate {
    pub kind: &'static str,
    pub start: usize,
    pub end: usize,
    pub priority: u8,
}

/// A known token format or structure: the bytes alone say "credential".
pub(super) const SPECIFIC: u8 = 5;
/// A credential position (URL userinfo, a header, a password flag, a connection string).
const CONTEXT: u8 = 4;
/// `<word>_<random>`: the shape of a vendor token the table does not know.
const SHAPE: u8 = 3;
/// A `key = value` assignment whose key names a secret.
pub(super) const ASSIGNMENT: u8 = 2;
/// A quoted value near such a key in prose.
const NEAR: u8 = 1;
/// A value a parser quoted back with no key in sight (``!!str `…` ``).
const QUOTED: u8 = 0;

#[derive(Clone, Copy)]
enum Anchor {
    Vendor(Vendor),
    SkDash,
    OpenAiMarker,
    Jwt,
    Pem,
    B64Pem,
    B64PrettyJson,
    Putty,
    /// A libgcrypt private key's S-expression (GnuPG's key files).
    Gcrypt,
    Webhook,
    PathSecret,
    /// A sign-in link's query (`/magic?t=<token>`).
    LinkQuery,
    /// A host that takes its API key as a path segment (RPC providers, webhook URLs).
    KeyedRoute,
    /// An RTMP URL's last segment: the stream key.
    StreamKey,
    /// A SIP URI's `user:password@`.
    SipUri,
    Azure,
    SignatureParam,
    Url,
    AuthHeader,
    Bearer,
    Basic,
    Cookie,
    Keyword,
    IdentifiedBy,
    AddMask,
    YamlStr,
    Pgpass,
    SlashOption,
    SecureString,
    Chpasswd,
    Positional,
    StdinReader,
    FileReader,
    Printer,
    Generator,
    QuotedPair,
    HereString,
    /// `here you go: <value>` in a chat: what one person hands another.
    HandOff,
    /// `new one -> <value>` in a chat message.
    PointedAt,
    /// `--vault-password-file <(echo '…')`: a secret's file made on the command line.
    Substitution,
    TypedValue,
    AuthVerb,
    Using,
    FtpUser,
    Bundler,
    OauthCode,
    QuotedAuth,
    KeyedMap,
    Fernet,
    Accounts,
    At,
    SaslPasswd,
    CallArgs,
    /// A client of a service built with its credential: `SDK("…")`, `new Client(…)`.
    ClientArgs,
    /// A template's literal fallback for a secret: `{{ pw | default('…') }}`.
    TemplateDefault,
    /// NTLM hashes by the empty LM hash or impacket's `-hashes`.
    Ntlm,
    /// What an expect script sends to a password prompt.
    ExpectSend,
    /// A one-time recovery or backup code, or a disk's recovery key, after its label.
    RecoveryCode,
    /// An askpass helper (`SSH_ASKPASS`, `GIT_ASKPASS`): what it echoes is the password.
    Askpass,
    /// A Terraform state's `random_password` resource: its `result`.
    RandomPassword,
    /// A cookie jar in Netscape's format (curl's `-c`, a browser's export).
    CookieJar,
    /// A JAAS login module's options: `user_<name>="…"` is that user's password.
    Jaas,
    /// A raw key in hex on a line of its own below a sentence that names a private key.
    PrivateKeyBelow,
    /// A trailing comment that says the value before it is secret (`# keep private`).
    CommentSaysSecret,
    /// strace opening a file whose name says secret: what it reads from it.
    StraceOpen,
    /// An argument list (`argv.rs`).
    Argv,
    /// A protocol's or a dump's credential after its fixed marker (Kerberos keys in a
    /// secrets dump, SMTP's `AUTH PLAIN <base64>`).
    Protocol,
    /// A Wi-Fi join code's password.
    Wifi,
    Registry,
    LoginCall,
    /// An SSH2 (RFC 4716 style) private key block.
    Ssh2,
    /// openssl's `-K <hex>` and `-k <password>`.
    OpensslKey,
    /// `?u=…&p=…`: a login in a query.
    QueryLogin,
    Totp,
    Jwk,
    Infix,
    Separator,
    Dot,
    Marker,
}

/// Anchors other than vendor prefixes, matched ASCII-case-insensitively; validators
/// re-check case where it matters.
#[rustfmt::skip]
const FIXED: &[(&str, Anchor)] = &[
    ("sk-", Anchor::SkDash), ("T3BlbkFJ", Anchor::OpenAiMarker),
    ("eyJ", Anchor::Jwt),
    ("-----BEGIN ", Anchor::Pem), ("LS0tLS1CRUdJTi", Anchor::B64Pem),
    ("AEdJVENSWVBUS0VZ", Anchor::B64Pem),
    ("ewog", Anchor::B64PrettyJson), ("ewoi", Anchor::B64PrettyJson),
    ("Private-Lines:", Anchor::Putty), ("(private-key", Anchor::Gcrypt),
    // Slack's webhooks are pasted without a scheme; the others are found after `://`.
    ("hooks.slack.com/", Anchor::Webhook),
    ("rtmp://", Anchor::StreamKey), ("rtmps://", Anchor::StreamKey), ("sip:", Anchor::SipUri),
    ("sips:", Anchor::SipUri),
    ("/webhooks/", Anchor::PathSecret), ("/webhook/", Anchor::PathSecret),
    ("/hooks/", Anchor::PathSecret), ("/token/", Anchor::PathSecret),
    ("/tokens/", Anchor::PathSecret), ("/key/", Anchor::PathSecret),
    ("/keys/", Anchor::PathSecret), ("/secret/", Anchor::PathSecret),
    ("/hook/", Anchor::PathSecret), ("/integration/", Anchor::PathSecret),
    // Links that log their holder in or act for them: invitations, magic links, resets.
    ("/join/", Anchor::PathSecret), ("/invite/", Anchor::PathSecret),
    ("/invitation/", Anchor::PathSecret), ("/magic/", Anchor::PathSecret),
    ("/magic?", Anchor::LinkQuery), ("/magic-link?", Anchor::LinkQuery),
    ("/verify?", Anchor::LinkQuery), ("/reset-password?", Anchor::LinkQuery),
    ("/confirm?", Anchor::LinkQuery), ("/invite?", Anchor::LinkQuery),
    ("/reset/", Anchor::PathSecret), ("/reset-password/", Anchor::PathSecret),
    ("/password-reset/", Anchor::PathSecret), ("/reset_password/", Anchor::PathSecret), ("/verify/", Anchor::PathSecret),
    ("/confirm/", Anchor::PathSecret), ("/activate/", Anchor::PathSecret),
    ("/signin/", Anchor::PathSecret), ("/login/", Anchor::PathSecret),
    // Build and deploy hooks, heartbeat and ping URLs, conda's token path.
    ("_hooks/", Anchor::PathSecret), ("/heartbeat/", Anchor::PathSecret),
    ("/push/", Anchor::PathSecret), ("/ping/", Anchor::PathSecret),
    ("/integrations/", Anchor::PathSecret), ("/t/", Anchor::PathSecret),
    // Log and event collectors' ingest URLs, a calendar's private feed.
    ("/receiver/", Anchor::PathSecret), ("/inputs/", Anchor::PathSecret),
    ("/private-", Anchor::PathSecret),
    // Hosts whose URL carries the account's key as a path segment.
    (".alchemy.com/v2/", Anchor::KeyedRoute), (".infura.io/v3/", Anchor::KeyedRoute),
    (".quiknode.pro/", Anchor::KeyedRoute), ("dl.cloudsmith.io/", Anchor::KeyedRoute),
    ("/rest/", Anchor::KeyedRoute),
    ("AccountKey=", Anchor::Azure), ("SharedAccessKey=", Anchor::Azure),
    ("sig=", Anchor::SignatureParam), ("X-Amz-Signature=", Anchor::SignatureParam),
    ("X-Goog-Signature=", Anchor::SignatureParam),
    ("://", Anchor::Url),
    ("authorization", Anchor::AuthHeader),
    ("bearer ", Anchor::Bearer), ("basic ", Anchor::Basic),
    ("cookie", Anchor::Cookie),
    // Roots of the words that name a secret in a key (`assign.rs` reads the whole key).
    ("pass", Anchor::Keyword), ("pw", Anchor::Keyword), ("psk", Anchor::Keyword),
    ("sk:", Anchor::Keyword), ("sk=", Anchor::Keyword), ("sk =", Anchor::Keyword),
    ("secret", Anchor::Keyword), ("token", Anchor::Keyword), ("key", Anchor::Keyword),
    ("auth", Anchor::Keyword), ("cred", Anchor::Keyword), ("signature", Anchor::Keyword),
    ("salt", Anchor::Keyword), ("api", Anchor::Keyword), ("access", Anchor::Keyword),
    ("hmac", Anchor::Keyword), ("bearer", Anchor::Keyword), ("ticket", Anchor::Keyword),
    ("_pat", Anchor::Keyword), ("-pat", Anchor::Keyword), ("pat\"", Anchor::Keyword),
    ("pat:", Anchor::Keyword), ("_sk", Anchor::Keyword),
    ("seed", Anchor::Keyword), ("login", Anchor::Keyword),
    ("sess", Anchor::Keyword), ("verifier", Anchor::Keyword), ("community", Anchor::Keyword),
    ("appid", Anchor::Keyword), ("skey", Anchor::Keyword), ("encrypt", Anchor::Keyword),
    ("setcookie", Anchor::Keyword), ("macaroon", Anchor::Keyword), ("--suri", Anchor::Keyword),
    ("\"private\"", Anchor::Keyword), ("device_code", Anchor::Keyword),
    ("devicecode", Anchor::Keyword), ("\"Plaintext\"", Anchor::Keyword),
    ("identified by", Anchor::IdentifiedBy),
    ("::add-mask::", Anchor::AddMask), ("!!str `", Anchor::YamlStr),
    (":5432:", Anchor::Pgpass), ("*:*:*:", Anchor::Pgpass),
    // Credentials by position (`structure.rs`).
    ("/p:", Anchor::SlashOption), ("/rp ", Anchor::SlashOption), ("/p ", Anchor::SlashOption), ("-p:", Anchor::SlashOption), ("ConvertTo-SecureString", Anchor::SecureString),
    ("chpasswd", Anchor::Chpasswd), ("add_user", Anchor::Positional), ("send \"", Anchor::ExpectSend),
    ("recovery key", Anchor::RecoveryCode), ("recovery code", Anchor::RecoveryCode),
    ("backup code", Anchor::RecoveryCode), ("recovery password", Anchor::RecoveryCode),
    ("verification codes", Anchor::RecoveryCode),
    ("security key", Anchor::RecoveryCode),
    ("askpass", Anchor::Askpass),
    ("keep private", Anchor::CommentSaysSecret), ("keep secret", Anchor::CommentSaysSecret),
    ("do not share", Anchor::CommentSaysSecret), ("don't share", Anchor::CommentSaysSecret),
    ("do not commit", Anchor::CommentSaysSecret), ("don't commit", Anchor::CommentSaysSecret),
    ("dont share", Anchor::CommentSaysSecret), ("do not paste", Anchor::CommentSaysSecret),
    ("don't paste", Anchor::CommentSaysSecret), ("dont paste", Anchor::CommentSaysSecret),
    ("-> ", Anchor::PointedAt), ("here you go", Anchor::HandOff), ("here it is", Anchor::HandOff), ("here you are", Anchor::HandOff),
    ("user:password ", Anchor::Positional), ("upwd ", Anchor::Positional),
    ("change_password", Anchor::Positional), ("authenticate_user", Anchor::Positional),
    ("htpasswd", Anchor::Positional), ("net use ", Anchor::Positional), ("isql ", Anchor::Positional),
    ("\"random_password\"", Anchor::RandomPassword),
    ("Netscape HTTP Cookie File", Anchor::CookieJar), ("private key", Anchor::PrivateKeyBelow), ("BUNDLE_", Anchor::Bundler), ("code=", Anchor::OauthCode), ("\"auth\" \"", Anchor::QuotedAuth),
    ("keys:", Anchor::KeyedMap), ("secrets:", Anchor::KeyedMap), ("tokens:", Anchor::KeyedMap),
    ("credentials:", Anchor::KeyedMap), ("keys\": {", Anchor::KeyedMap),
    ("secrets\": {", Anchor::KeyedMap), ("tokens\": {", Anchor::KeyedMap), ("fernet(", Anchor::Fernet), ("accounts:", Anchor::Accounts),
    ("net user ", Anchor::Positional), ("samba-tool user create ", Anchor::Positional),
    ("bundle config ", Anchor::Positional), ("set-agent-token ", Anchor::Positional),
    ("wpa_passphrase ", Anchor::Positional), ("openssl passwd ", Anchor::Positional),
    ("nickserv identify ", Anchor::Positional), ("oathtool ", Anchor::Positional),
    ("login ", Anchor::AuthVerb), ("auth ", Anchor::AuthVerb), ("authorize ", Anchor::AuthVerb), ("unlock ", Anchor::AuthVerb),
    // Verbs that set or present a credential (`command.rs`), judged where a command stands.
    ("register ", Anchor::AuthVerb), ("unseal ", Anchor::AuthVerb), ("setuser ", Anchor::AuthVerb),
    ("addauth ", Anchor::AuthVerb), ("user add ", Anchor::AuthVerb), ("useradd ", Anchor::AuthVerb),
    ("adduser ", Anchor::AuthVerb), ("http-basic.", Anchor::AuthVerb), ("passwd ", Anchor::AuthVerb),
    ("add_user ", Anchor::AuthVerb), ("change_password ", Anchor::AuthVerb),
    ("join ", Anchor::AuthVerb),
    (" using ", Anchor::Using), ("user ", Anchor::FtpUser),
    ("@", Anchor::At), ("]:", Anchor::SaslPasswd),
    // Calls that open a session with a password argument; a line that says TOTP.
    ("login(", Anchor::CallArgs), ("_pw_set(", Anchor::CallArgs), ("connection(", Anchor::CallArgs),
    ("pdo(", Anchor::CallArgs), ("PDO->__construct(", Anchor::CallArgs), ("pool(", Anchor::CallArgs), ("bind(", Anchor::CallArgs),
    ("connect(", Anchor::CallArgs), ("totp", Anchor::Totp),
    // sbt's and Gradle's `Credentials("realm", "host", "user", "password")`.
    ("credentials(", Anchor::CallArgs),
    // MATLAB's `database(name, user, password, …)`, Groovy's `Sql.newInstance(url,
    // user, password, driver)`.
    ("database(", Anchor::CallArgs), ("sql.newinstance(", Anchor::CallArgs),
    // An SDK's signer or client made from an id and a secret: Qiniu's `qbox.NewMac`,
    // Razorpay's `new Api(keyId, secret)`. (Algolia's `algoliasearch(appId, key)` is
    // given the search-only key in a page as often as the admin key on a server.)
    ("newmac(", Anchor::ClientArgs), ("new api(", Anchor::ClientArgs),
    ("client(", Anchor::ClientArgs), ("sdk(", Anchor::ClientArgs), ("auth(", Anchor::ClientArgs),
    ("provider(", Anchor::ClientArgs), ("app(", Anchor::ClientArgs),
    ("client.run(", Anchor::ClientArgs), ("bot.run(", Anchor::ClientArgs),
    // A cipher's or a MAC's key handed to its constructor.
    ("secretkeyspec(", Anchor::ClientArgs), ("hmac.new(", Anchor::ClientArgs),
    ("createhmac(", Anchor::ClientArgs), ("createcipheriv(", Anchor::ClientArgs),
    ("aes.new(", Anchor::ClientArgs),
    // A JWT library's signing or verifying call: its literal argument is the HMAC key.
    ("jwt.sign(", Anchor::ClientArgs), ("jwt.encode(", Anchor::ClientArgs),
    ("jwt.verify(", Anchor::ClientArgs), ("jwt.decode(", Anchor::ClientArgs),
    ("hmac256(", Anchor::ClientArgs), ("hmac512(", Anchor::ClientArgs),
    ("default", Anchor::TemplateDefault),
    ("aad3b435b51404eeaad3b435b51404ee:", Anchor::Ntlm), ("-hashes ", Anchor::Ntlm),
    (":aes256-cts-hmac-sha1-96:", Anchor::Protocol), (":aes128-cts-hmac-sha1-96:", Anchor::Protocol),
    ("auth plain ", Anchor::Protocol), ("mechanism=\"plain\">", Anchor::Protocol),
    ("mechanism='plain'>", Anchor::Protocol), ("UGFzc3dvcmQ6", Anchor::Protocol),
    ("$4\r\nAUTH\r\n", Anchor::Protocol), ("$4\\r\\nAUTH\\r\\n", Anchor::Protocol),
    // strace's read of a typed line; an Ethereum keystore's encrypted key; IRC's
    // NickServ login; a Synapse signing key file's line.
    ("read(0, \"", Anchor::Protocol), ("\"ciphertext\":", Anchor::Protocol),
    (":identify ", Anchor::Protocol), ("ed25519 ", Anchor::Protocol),
    ("\"SecureString\"", Anchor::Protocol), (" crypt aes-", Anchor::Protocol),
    (" crypt serpent-", Anchor::Protocol), (" crypt twofish-", Anchor::Protocol),
    (" crypt capi:", Anchor::Protocol),
    // A TLS key log (`SSLKEYLOGFILE`): the label, the client random, the secret.
    ("CLIENT_RANDOM ", Anchor::Protocol), ("_TRAFFIC_SECRET", Anchor::Protocol),
    ("EXPORTER_SECRET ", Anchor::Protocol),
    // tcpdump's SNMP: `C="community" GetRequest(28)`; AMQP's PLAIN response as an
    // Erlang binary: `<<0,"user",0,"password">>`.
    (" C=", Anchor::Protocol), ("<<0,\"", Anchor::Protocol),
    // Wireshark's LDAP bind: `authentication: simple (0)` over `simple: <password>`.
    ("simple: ", Anchor::Protocol),
    // Roblox's session cookie after its warning; curl's config file's proxy login;
    // Teradata BTEQ's logon.
    ("-and-items.|_", Anchor::Protocol), ("proxy-user", Anchor::Protocol),
    // A V2Ray share link.
    ("vmess://", Anchor::Protocol),
    (".logon ", Anchor::Protocol),
    // ltrace's view of a password check: `strcmp("guess", "<stored>") = -1`.
    ("strcmp(\"", Anchor::Protocol), ("strncmp(\"", Anchor::Protocol),
    // strace's `openat(…, "<secret file>", …) = 3` then `read(3, "<content>", …)`.
    ("openat(", Anchor::StraceOpen), ("open(\"", Anchor::StraceOpen),
    // `cryptsetup luksDump --dump-volume-key`: the volume key as spaced hex bytes.
    ("MK dump:", Anchor::Protocol), ("Volume key:", Anchor::Protocol),
    ("type=EXECVE", Anchor::Argv), ("args:", Anchor::Argv), ("\"args\"", Anchor::Argv),
    ("command:", Anchor::Argv), ("\"command\"", Anchor::Argv), ("execve(", Anchor::Argv),
    ("CMD [", Anchor::Argv), ("ENTRYPOINT [", Anchor::Argv),
    (".login(", Anchor::LoginCall), ("REG_SZ ", Anchor::Registry), ("REG_EXPAND_SZ ", Anchor::Registry),
    ("WIFI:", Anchor::Wifi), ("---- BEGIN SSH2 ", Anchor::Ssh2), (" -K ", Anchor::OpensslKey),
    ("&p=", Anchor::QueryLogin),
    ("LoginModule required", Anchor::Jaas), ("\"kty\"", Anchor::Jwk), ("'kty'", Anchor::Jwk), ("kty:", Anchor::Jwk), ("\" \"", Anchor::QuotedPair), ("<<< ", Anchor::HereString), ("<(echo ", Anchor::Substitution), ("<(printf ", Anchor::Substitution), ("\"value\"", Anchor::TypedValue), ("\"cborHex\"", Anchor::TypedValue),
    ("Q~", Anchor::Infix), (".atlasv1.", Anchor::Infix),
    ("AAAAAAAAAAAAAAAAAAAAA", Anchor::Infix), (":AA", Anchor::Infix), (":fx", Anchor::Infix),
    (":descriptor:x25519:", Anchor::Infix),
    // Every `_` and `-`: vendor prefixes that end in one, `<word>_<random>`, command-line
    // flags (`-p`, `--user`) and the formats marked by a separator (`key-…`, `…_mmk`),
    // dispatched in `separator` rather than given patterns of their own: each pattern
    // costs the automaton's build, and those starting with a blank cost every scan.
    ("_", Anchor::Separator), ("-", Anchor::Separator),
    // `<word>.<random>` (`sl.…`, `sk.…`): the dotted shape of a vendor token.
    (".", Anchor::Dot),
    // Our own output, which must never be found again.
    ("[REDACTED:", Anchor::Marker),
];

struct Anchors {
    automaton: AhoCorasick,
    table: Vec<(&'static str, Anchor)>,
    /// Vendor prefixes that end in `_` or `-`, sorted: looked up at each separator the
    /// automaton finds instead of being patterns of their own, which keeps the automaton
    /// small (its build is most of a one-shot hook's redaction cost).
    separated: Vec<(&'static [u8], Vendor)>,
    /// Per first byte, a bit for each length some separated prefix has.
    separated_index: [u32; 256],
}

static ANCHORS: LazyLock<Anchors> = LazyLock::new(|| {
    let (separated, joined): (Vec<_>, Vec<_>) = vendor::PREFIXES
        .iter()
        .partition(|(p, _)| p.ends_with('_') || p.ends_with('-'));
    let table: Vec<(&'static str, Anchor)> = joined
        .iter()
        .map(|&&(p, v)| (p, Anchor::Vendor(v)))
        .chain(FIXED.iter().copied())
        // Names of secrets in other languages, in ASCII (`assign::foreign`).
        .chain(
            assign::foreign::ASCII_WORDS
                .iter()
                .filter(|(w, _)| !FIXED.iter().any(|(f, _)| f == w))
                .map(|&(w, _)| (w, Anchor::Keyword)),
        )
        .chain(stdin::READERS.iter().map(|&r| (r, Anchor::StdinReader)))
        .chain(dump::READERS.iter().map(|&r| (r, Anchor::FileReader)))
        .chain(dump::PRINTERS.iter().map(|&r| (r, Anchor::Printer)))
        .chain(
            dump::GENERATORS
                .iter()
                .map(|&(r, _, _)| (r, Anchor::Generator)),
        )
        .collect();
    let mut separated: Vec<(&'static [u8], Vendor)> =
        separated.iter().map(|&&(p, v)| (p.as_bytes(), v)).collect();
    separated.sort_by(|a, b| a.0.cmp(b.0));
    let mut separated_index = [0u32; 256];
    for (p, _) in &separated {
        separated_index[usize::from(p[0])] |= 1 << p.len().min(31);
    }
    let automaton = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        // The capture hook is a one-shot process that redacts a few KiB: the
        // build dominates there. A contiguous NFA builds several times faster
        // than a DFA and scans a few KiB in tens of microseconds.
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(table.iter().map(|(pattern, _)| pattern))
        .expect("the anchors are fixed short literals, which always build");
    Anchors {
        automaton,
        table,
        separated,
        separated_index,
    }
});

/// Names of secrets in other scripts (`пароль`, `密码`): an automaton of their own, built
/// and run only for a text that holds a byte outside ASCII, so the capture hook's common
/// case (an English tool's output) never pays for their states.
/// Each pattern's name in `WORDS`: a name of two words is a pattern twice, with its
/// blank and with `_` for it (a key's spelling).
static FOREIGN: LazyLock<(AhoCorasick, Vec<&'static str>)> = LazyLock::new(|| {
    let mut patterns = Vec::new();
    let mut names = Vec::new();
    for &(w, _) in assign::foreign::WORDS {
        let mut chars = w.chars();
        let capitalised: String = chars
            .next()
            .into_iter()
            .flat_map(char::to_uppercase)
            .chain(chars)
            .collect();
        for form in [w.to_string(), capitalised, w.to_uppercase()] {
            for form in [form.replace(' ', "_"), form] {
                if !patterns.contains(&form) {
                    patterns.push(form);
                    names.push(w);
                }
            }
        }
    }
    let automaton = AhoCorasickBuilder::new()
        .match_kind(MatchKind::Standard)
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(&patterns)
        .expect("the foreign names are fixed short literals, which always build");
    (automaton, names)
});

/// Builds the automaton now rather than on the first scan.
pub(super) fn warm_up() {
    LazyLock::force(&ANCHORS);
}

/// Per detector, the end of the furthest stretch already scanned: a later hit inside it
/// would rescan the same bytes (quadratic on `password=password=…`) and find a sub-range.
#[derive(Default)]
struct Reach {
    sk: usize,
    pem: usize,
    header: usize,
    shape: usize,
    /// End of the last login command whose arguments were read.
    auth_verb: usize,
    /// End of the last line read for a TOTP seed.
    totp: usize,
    /// End of the last libgcrypt S-expression read: one nested in it is read with it.
    gcrypt: usize,
    assign: assign::Reach,
}

/// One scan of a text: what its detectors read, and what they gather as it goes.
struct Scan<'a> {
    text: &'a str,
    b: &'a [u8],
    anchors: &'a Anchors,
    reach: Reach,
    /// Cookies and key material, added once every anchor has been seen.
    cookie_hits: Vec<Hit>,
    blobs: Vec<Hit>,
    /// Argument lists to read once every anchor has been seen, and the reader of the
    /// lines they stand for (`None`: not read).
    argv: Option<(LineFindings, Vec<(usize, &'static str)>)>,
    out: &'a mut Vec<Candidate>,
    markers: &'a mut Vec<(usize, usize)>,
}

/// Finds every candidate secret and every redaction marker in `text`.
/// The rules' findings in a command line (`mod.rs`'s, handed down so that this layer
/// does not import the one above it).
pub(super) type LineFindings = fn(&str) -> Vec<Hit>;

/// `lines`: when given, argument lists are read as the command lines they stand for.
pub(super) fn scan(
    text: &str,
    lines: Option<LineFindings>,
    out: &mut Vec<Candidate>,
    markers: &mut Vec<(usize, usize)>,
) {
    let anchors = &*ANCHORS;
    let mut scan = Scan {
        text,
        b: text.as_bytes(),
        anchors,
        reach: Reach::default(),
        cookie_hits: Vec::new(),
        blobs: Vec::new(),
        argv: lines.map(|f| (f, Vec::new())),
        out,
        markers,
    };
    for m in anchors.automaton.find_overlapping_iter(text) {
        let Some(&(literal, anchor)) = anchors.table.get(m.pattern().as_usize()) else {
            continue;
        };
        let (s, e) = (m.start(), m.end());
        // A hit inside one of our markers (`[REDACTED:password]`) is our own word.
        if scan
            .markers
            .last()
            .is_some_and(|&(ms, me)| ms < s && s < me)
        {
            continue;
        }
        if let Some((h, priority)) = scan.validate(anchor, literal, s, e) {
            push(scan.out, h, priority);
        }
    }
    if !text.is_ascii() {
        let (automaton, names) = &*FOREIGN;
        for m in automaton.find_overlapping_iter(text) {
            let Some(&literal) = names.get(m.pattern().as_usize()) else {
                continue;
            };
            if let Some(f) = assign::foreign::foreign_key(scan.b, m.start(), m.end(), literal) {
                push(scan.out, (f.kind, f.start, f.end), ASSIGNMENT);
            } else {
                push_all(scan.out, NEAR, |hits| {
                    assign::foreign::foreign_column(scan.b, m.start(), m.end(), literal, hits)
                });
            }
        }
    }
    scan.finish();
}

impl Scan<'_> {
    /// What the validator `anchor` names finds at `s..e`, with its priority; one that
    /// finds several candidates, or marks, records them itself.
    fn validate(
        &mut self,
        anchor: Anchor,
        literal: &'static str,
        s: usize,
        e: usize,
    ) -> Option<(Hit, u8)> {
        let (b, text) = (self.b, self.text);
        let reach = &mut self.reach;
        let specific = |h: Option<Hit>| h.map(|h| (h, SPECIFIC));
        let context = |h: Option<Hit>| h.map(|h| (h, CONTEXT));
        match anchor {
            Anchor::Vendor(v) => vendor_token(b, s, e, literal, v, self.out),
            Anchor::SkDash if s >= reach.sk => specific(context::sk_dash(b, s, e, &mut reach.sk)),
            Anchor::OpenAiMarker => specific(context::openai_marker(b, s, e)),
            Anchor::Jwt => specific(context::jwt(b, s)),
            Anchor::Pem if s >= reach.pem => specific(context::pem(text, s, e, &mut reach.pem)),
            Anchor::B64Pem => specific(context::b64_pem(b, s)),
            Anchor::B64PrettyJson => specific(context::b64_pretty_json(b, s)),
            Anchor::Putty => specific(context::putty(b, e)),
            Anchor::Webhook => specific(context::webhook(b, s, e, literal)),
            Anchor::PathSecret => context(context::path_secret(b, s, e)),
            Anchor::LinkQuery => context(context::link_query_token(b, e)),
            Anchor::KeyedRoute => context(context::keyed_route(b, e)),
            Anchor::StreamKey => context(context::stream_key(b, e)),
            Anchor::SipUri => context(context::sip_password(b, s, e)),
            Anchor::Azure => specific(context::azure(b, s, e)),
            Anchor::SignatureParam => specific(context::signature_param(b, s, e)),
            Anchor::Infix => specific(context::infix(b, s, e, literal)),
            Anchor::Url => url_credentials(b, s, e, self.out),
            Anchor::AuthHeader if s >= reach.header => {
                context(context::auth_header(b, s, e, &mut reach.header))
            }
            Anchor::Bearer => context(context::bearer(b, s, e)),
            Anchor::Basic => context(context::basic(b, s, e)),
            Anchor::Cookie => {
                context::cookies(b, s, e, &mut self.cookie_hits);
                None
            }
            Anchor::IdentifiedBy => context(context::identified_by(b, e)),
            Anchor::AddMask => context(context::add_mask(b, e)),
            Anchor::YamlStr => context::yaml_str(b, e).map(|h| (h, QUOTED)),
            Anchor::Pgpass => context(context::pgpass(b, s)),
            Anchor::SlashOption => context(structure::slash_option(b, s, e)),
            Anchor::SecureString => context(structure::secure_string(b, e)),
            Anchor::Chpasswd => context(stdin::chpasswd(b, s, e)),
            Anchor::Positional => context(structure::positional(b, s, e, literal)),
            Anchor::StdinReader => context(stdin::credential(b, s, e, literal)),
            Anchor::StraceOpen => context(dump::strace_read(b, e)),
            Anchor::FileReader => {
                // Weaker than a key that names the value: `password: x` in the file
                // keeps its own kind and its whole value.
                push_all(self.out, NEAR, |hits| dump::scan(b, s, hits));
                None
            }
            Anchor::AuthVerb if s >= reach.auth_verb => {
                reach.auth_verb = auth_verb_arguments(b, s, e, literal, self.out);
                None
            }
            Anchor::Using => context(command::using_after_user(b, s, e)),
            Anchor::FtpUser => context(command::ftp_user(b, s, e)),
            Anchor::At => context(userinfo_at(b, s)),
            Anchor::Bundler => context(structure::bundler_credentials(b, s, e)),
            Anchor::OauthCode => context(context::oauth_code(b, s, e)),
            Anchor::QuotedAuth => context(command::quoted_auth(b, e)),
            Anchor::Fernet => specific(keymaterial::fernet(b, e)),
            Anchor::Accounts => {
                keymaterial::account_keys(b, e, &mut self.blobs);
                None
            }
            Anchor::KeyedMap => {
                push_all(self.out, CONTEXT, |hits| assign::keyed_map(b, s, e, hits));
                None
            }
            Anchor::SaslPasswd => context(structure::sasl_passwd(b, s, e)),
            Anchor::CallArgs => context(structure::call_password(b, e, literal)),
            Anchor::ClientArgs => context(structure::client_credential(b, e)),
            Anchor::TemplateDefault => context(structure::template_default(b, s, e)),
            Anchor::Ntlm => context(structure::ntlm_hashes(b, s, e, literal)),
            Anchor::ExpectSend => context(structure::expect_send(b, s, e)),
            Anchor::RecoveryCode => {
                push_all(self.out, CONTEXT, |hits| structure::code_block(b, s, hits));
                context(structure::recovery_code(b, e))
            }
            Anchor::RandomPassword => context(structure::random_password(b, e)),
            Anchor::PrivateKeyBelow => context(structure::hex_key_below(b, e)),
            Anchor::CookieJar => {
                push_all(self.out, CONTEXT, |hits| structure::cookie_jar(b, e, hits));
                None
            }
            Anchor::Jaas => {
                push_all(self.out, CONTEXT, |hits| structure::jaas_users(b, e, hits));
                None
            }
            Anchor::Askpass => context(structure::askpass(b, e)),
            Anchor::CommentSaysSecret => context(structure::said_secret(b, s, e)),
            Anchor::Protocol => context(structure::protocol_secret(b, e, literal)),
            Anchor::Wifi => context(structure::wifi_code(b, e)),
            Anchor::Registry => context(structure::registry_value(b, s, e)),
            Anchor::LoginCall => context(structure::login_call(b, e)),
            Anchor::Ssh2 => specific(structure::ssh2_private(b, e)),
            Anchor::OpensslKey => context(structure::openssl_key(b, s, e)),
            Anchor::QueryLogin => context(structure::query_login(b, s, e)),
            Anchor::Totp if s >= reach.totp => {
                reach.totp = line_end(b, s, 512);
                // Below a key that names the seed: `MFA_SEED=…` keeps its own marker.
                structure::totp_seed(b, s).map(|h| (h, NEAR))
            }
            Anchor::Printer => context(dump::printed(b, s, e)),
            Anchor::Generator => {
                push_all(self.out, NEAR, |hits| {
                    dump::generated(b, s, e, literal, hits)
                });
                None
            }
            Anchor::QuotedPair => context(dump::quoted_pair(b, s)),
            Anchor::HereString => context(stdin::here_string(b, e)),
            Anchor::Substitution => context(stdin::substituted(b, s, e)),
            Anchor::HandOff => context(structure::handed_over(b, e)),
            Anchor::PointedAt => context(structure::pointed_at(b, s, e)),
            Anchor::Argv => {
                if let Some((_, lists)) = self.argv.as_mut() {
                    lists.push((e, literal));
                }
                None
            }
            Anchor::TypedValue => specific(keymaterial::typed_value(b, s, e)),
            Anchor::Gcrypt if s >= reach.gcrypt => {
                push_all(self.out, SPECIFIC, |hits| {
                    reach.gcrypt = keymaterial::gcrypt_private(b, e, hits);
                });
                None
            }
            Anchor::Jwk => {
                keymaterial::jwk(b, s, &mut self.blobs);
                None
            }
            Anchor::Separator => {
                separator(b, s, self.anchors, &mut reach.shape, self.out);
                None
            }
            Anchor::Dot => vendor::generic_dotted(b, s).map(|(a, z)| (("token", a, z), SHAPE)),
            Anchor::Keyword => {
                // `pat"`, `pat:`, `sk=`: a short key anchored with its delimiter so that
                // `path`, `pattern` and `task` do not fire; the key ends before it.
                let e = e - (literal.len() - literal.trim_end_matches(['"', ':', '=', ' ']).len());
                // `"private"`: anchored with its quotes, the key is the word inside.
                let s = s + usize::from(literal.starts_with('"'));
                let found = keyword_value(b, s, e, &mut reach.assign);
                if found.is_none() {
                    push_all(self.out, NEAR, |hits| {
                        assign::table_column(b, s, e, &mut reach.assign, hits)
                    });
                }
                found
            }
            Anchor::Marker => {
                if let Some(end) = marker_end(b, e) {
                    self.markers.push((s, end));
                }
                None
            }
            Anchor::SkDash
            | Anchor::Pem
            | Anchor::AuthHeader
            | Anchor::AuthVerb
            | Anchor::Totp
            | Anchor::Gcrypt => None,
        }
    }

    /// Adds what is known once every anchor has been seen: the cookies, a REPL prompt
    /// on the text's first line, and key material (blobs and mnemonics).
    fn finish(mut self) {
        let b = self.b;
        for h in self.cookie_hits {
            push(self.out, h, CONTEXT);
        }
        // A REPL prompt on the text's first line has no line break for the anchor to see.
        for prompt in ["> ", ">>> "] {
            if b.starts_with(prompt.as_bytes())
                && let Some(h) = dump::printed(b, 0, prompt.len())
            {
                push(self.out, h, CONTEXT);
            }
        }
        if let Some((line_findings, lists)) = self.argv.take() {
            for (e, literal) in lists {
                push_all(self.out, CONTEXT, |hits| {
                    argv::hits(b, e, literal, line_findings, hits)
                });
            }
        }
        keymaterial::scan(b, &mut self.blobs);
        keymaterial::mnemonics(b, &mut self.blobs);
        for h in self.blobs {
            push(self.out, h, SPECIFIC);
        }
    }
}

/// A vendor's token after its prefix at `s..e`, unless it is a Firebase web config's
/// public key; an AWS key id also brings the secret key beside it into `out`.
fn vendor_token(
    b: &[u8],
    s: usize,
    e: usize,
    literal: &str,
    v: Vendor,
    out: &mut Vec<Candidate>,
) -> Option<(Hit, u8)> {
    let end = vendor::prefixed(b, s, e, literal, v)?;
    if v.kind == "google-api-key"
        && (allow::firebase_web_config(b, s, end) || allow::maps_script_key(b, s))
    {
        return None;
    }
    if v.aws_pair
        && let Some((ps, pe)) = vendor::aws_secret_near(b, end)
    {
        push(out, ("aws-secret-key", ps, pe), SPECIFIC);
    }
    if v.aws_pair && allow::aws_key_id_listed(b, s, end) {
        return None;
    }
    Some(((v.kind, s, end), SPECIFIC))
}

/// The credentials a URL at `s..e` carries (in its userinfo, as a webhook's path, or
/// as a hook's host); a pair after it goes straight to `out`.
fn url_credentials(b: &[u8], s: usize, e: usize, out: &mut Vec<Candidate>) -> Option<(Hit, u8)> {
    push_all(out, CONTEXT, |hits| {
        structure::after_url_pair(b, s, e, hits)
    });
    let context = |h: Option<Hit>| h.map(|h| (h, CONTEXT));
    context(context::url_credentials(b, s, e))
        .or_else(|| context::webhook_url(b, s, e).map(|h| (h, SPECIFIC)))
        .or_else(|| context(context::hook_host(b, e)))
        .or_else(|| context(context::otp_migration(b, s, e)))
        .or_else(|| context(context::fragment_key(b, e)))
}

/// The arguments of a login verb at `s..e`, into `out`: all of them where a command
/// stands, machine-made ones for a login sub-command anywhere on a line. Returns where
/// the reading ended.
fn auth_verb_arguments(
    b: &[u8],
    s: usize,
    e: usize,
    literal: &str,
    out: &mut Vec<Candidate>,
) -> usize {
    let mut end = e;
    push_all(out, CONTEXT, |hits| {
        end = if command::verb_in_command(b, s) {
            // A join presents a token only in its route (`microk8s join host:port/<token>`);
            // its bare arguments are peers and network ids.
            command::verb_arguments(b, e, literal == "join ", hits)
        } else if matches!(literal, "login " | "auth " | "authorize " | "unlock ") {
            // Login sub-commands anywhere on a line: machine-made arguments only.
            structure::auth_verb(b, s, e, hits)
        } else {
            e
        };
    });
    end
}

/// The credentials in the userinfo before an `@` at `s`: a Go MySQL DSN's, an Easy
/// Connect string's, or a bare `user:password@`.
fn userinfo_at(b: &[u8], s: usize) -> Option<Hit> {
    structure::go_mysql_dsn_at(b, s)
        .or_else(|| structure::ezconnect(b, s))
        .or_else(|| structure::bare_userinfo(b, s))
}

/// The value of the assignment whose key holds the keyword at `s..e`, or what an
/// `echo … |` feeds the reader the word names; a direct value outranks a near one.
fn keyword_value(b: &[u8], s: usize, e: usize, reach: &mut assign::Reach) -> Option<(Hit, u8)> {
    assign::assignment(b, s, e, reach)
        .or_else(|| {
            // `echo '…' | gpg --passphrase-fd 0`: the word names the reader.
            command::echoed(b, s).map(|(kind, start, end)| Found {
                kind,
                start,
                end,
                direct: false,
            })
        })
        .map(
            |Found {
                 kind,
                 start,
                 end,
                 direct,
             }| { ((kind, start, end), if direct { ASSIGNMENT } else { NEAR }) },
        )
}

/// Pushes every hit `detect` finds, at `priority`.
fn push_all(out: &mut Vec<Candidate>, priority: u8, detect: impl FnOnce(&mut Vec<Hit>)) {
    let mut hits = Vec::new();
    detect(&mut hits);
    for h in hits {
        push(out, h, priority);
    }
}

/// Everything a `_` or `-` at `s` may start, end or mark.
fn separator(
    b: &[u8],
    s: usize,
    anchors: &Anchors,
    shape_reach: &mut usize,
    out: &mut Vec<Candidate>,
) {
    if let Some((start, end, v)) =
        vendor::separated(b, s, &anchors.separated, &anchors.separated_index)
    {
        push(out, (v.kind, start, end), SPECIFIC);
    }
    let rest = &b[s..];
    let infix = |out: &mut Vec<Candidate>, from: usize, to: usize, lit: &str| {
        if let Some(h) = context::infix(b, from, to, lit) {
            push(out, h, SPECIFIC);
        }
    };
    if b[s] == b'-' {
        let flag_start = before(b, s).is_none_or(|c| matches!(c, b' ' | b'\t' | b'"' | b'\''));
        if flag_start {
            let word_end = run(&b[..(s + 16).min(b.len())], s, |c| {
                c == b'-' || c.is_ascii_alphabetic()
            });
            match &b[s..word_end] {
                b"-u" | b"-U" | b"--user" | b"-a" | b"--auth" | b"--proxy-user" => {
                    if let Some(h) = context::user_flag(b, s, word_end) {
                        push(out, h, CONTEXT);
                    }
                }
                // curl's `-b 'name=value; …'` is a Cookie header by another name.
                b"-b" if at(b, word_end) == Some(b' ') && context::runs_curl(b, s) => {
                    let mut hits = Vec::new();
                    context::cookies(b, s + 1, word_end, &mut hits);
                    for h in hits {
                        push(out, h, CONTEXT);
                    }
                }
                // curl's clustered short flags that end in `u` (`-su`, `-fsSLu`).
                cluster
                    if (3..=7).contains(&cluster.len())
                        && cluster[1] != b'-'
                        && cluster.ends_with(b"u")
                        && context::runs_curl(b, s) =>
                {
                    if let Some(h) = context::user_flag_as(b, s, word_end, b"-u") {
                        push(out, h, CONTEXT);
                    }
                }
                flag if flag.len() >= 2 && flag.len() <= 12 => {
                    if let Some(h) = command::flag_value(b, s, word_end) {
                        push(out, h, CONTEXT);
                    }
                }
                _ => {}
            }
            if s > 0
                && rest.len() >= 2
                && matches!(
                    rest[1],
                    b'p' | b'P' | b'w' | b'a' | b'k' | b'N' | b't' | b'A' | b'X' | b'c'
                )
                && let Some(h) = context::short_flag(b, s - 1, s + 2)
            {
                push(out, h, CONTEXT);
            }
        }
        if rest.starts_with(b"-us") {
            infix(out, s, s + 3, "-us");
        }
        if s >= 3 && &b[s - 3..s] == b"key" {
            infix(out, s - 3, s + 1, "key-");
        }
    } else {
        if rest.starts_with(b"_mmk") {
            infix(out, s, s + 4, "_mmk");
        }
        if rest.starts_with(b"_secret_") {
            infix(out, s, s + 8, "_secret_");
        }
    }
    if s >= *shape_reach
        && let Some((start, end)) = vendor::generic_prefixed(b, s, shape_reach)
    {
        push(out, ("token", start, end), SHAPE);
    }
}

fn push(out: &mut Vec<Candidate>, (kind, start, end): Hit, priority: u8) {
    if start < end {
        out.push(Candidate {
            kind,
            start,
            end,
            priority,
        });
    }
}

/// End of a `[REDACTED:kind]` marker whose `[REDACTED:` ends at `e`.
pub(super) fn marker_end(b: &[u8], e: usize) -> Option<usize> {
    if b.get(e - "[REDACTED:".len()..e) != Some(b"[REDACTED:".as_slice()) {
        return None;
    }
    let k = e + b[e..]
        .iter()
        .take(41)
        .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || **c == b'-')
        .count();
    (k > e && k - e <= 40 && b.get(k) == Some(&b']')).then_some(k + 1)
}
