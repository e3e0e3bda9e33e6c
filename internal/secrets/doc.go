// Package secrets finds credentials in text, so that tmem never spreads
// one: writes refuse them, the prompt stack and recall hide them, and
// doctor reports the ones already on disk.
//
// Text enters through Scan, which returns a Finding per secret (rule,
// kind, line and column span), and Redact, which also returns the text
// with each secret replaced by "[REDACTED:kind]". Both are pure functions
// of the text: no configuration, no IO, safe for concurrent use.
//
// # Rules
//
// Scan looks only for high-confidence secrets, where a false alarm is
// rare enough to refuse a write over it:
//
//	rule                 kind            what
//	private-key          private-key     "-----BEGIN … PRIVATE KEY-----" with a base64 body (PEM, OpenSSH, PGP)
//	aws-access-key-id    aws-access-key  AKIA/ASIA/ABIA/ACCA + 16 base32 characters
//	aws-secret-key       aws-secret-key  40 base64 characters assigned to an aws…secret… name
//	github-pat           github-token    ghp_ + 36, github_pat_ + 22_59 (fine-grained)
//	github-oauth         github-token    gho_ + 36
//	github-app           github-token    ghu_, ghs_ + 36
//	github-refresh       github-token    ghr_ + 36
//	gitlab-token         gitlab-token    glpat-, glptt-, glrt-, gldt-, glft-, glsoat-, glcbt-, glimt-, gloas- + 20 or more
//	slack-token          slack-token     xoxb-, xoxp-, xoxa-, xoxo-, xoxr-, xoxs-, xoxe-, xapp-
//	anthropic-key        anthropic-key   sk-ant- + 20 or more
//	openai-key           openai-key      sk-, sk-proj-, sk-svcacct-, sk-admin- + 20 or more
//	google-api-key       google-api-key  AIza + 35
//	stripe-key           stripe-key      sk_live_, rk_live_ + 20 or more
//	jwt                  jwt             three base64url parts whose header is JSON with "alg"
//	url-password         password        the password of scheme://user:password@host
//	password-assignment  password        a random-looking value assigned to a password-like name
//	secret-assignment    secret          a random-looking value assigned to a key/secret/token-like name
//
// GitHub's classic tokens (ghp_, gho_, ghu_, ghs_, ghr_) end in a CRC32
// checksum of their random part; a token whose checksum holds is reported
// with Verified set. Tokens whose checksum fails are still reported unless
// they look like placeholders, since a made-up token in a memory file is
// most likely a real one mistyped or one meant for a test.
//
// "Random-looking" means: at least 12 characters without spaces, letters
// mixed with digits or symbols, a Shannon entropy of at least 3 bits per
// character, and not shaped like words or an identifier (snake_case,
// camelCase, CONSTANT_CASE). Placeholders ($VAR, <value>, {{x}}, xxxx,
// values already redacted), UUIDs, paths and digests ("sha256:…") never
// count. AWS's documentation keys (ending in EXAMPLE or EXAMPLEKEY) are
// not reported.
//
// Left alone on purpose: UUIDs, git object names (40 or 64 hex
// characters), base64 data URLs, checksums and URLs without a password.
//
// # Use
//
// Writers refuse text with any finding (layout.CheckSecrets does this for
// AppendDaily and WriteMemory). Readers that show memory to a model or a
// person pass it through Redact. Compaction must do both: redact the text
// of every summary and WISDOM.md entry it writes, and never derive a
// name, description, topic or file name from text that has a finding
// (derive it from the redacted text instead, or skip the item).
package secrets
