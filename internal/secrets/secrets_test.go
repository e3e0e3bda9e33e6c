package secrets

import (
	"encoding/base64"
	"fmt"
	"hash/crc32"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

// ghChecksummed returns prefix + 30 random characters + their CRC32 in
// base62, computed here with math/big rather than the package's encoder.
func ghChecksummed(prefix string, seed uint64) string {
	random := rnd(seed, alnumChars, 30)
	n := new(big.Int).SetUint64(uint64(crc32.ChecksumIEEE([]byte(random))))
	sum := n.Text(62) // math/big's base 62: 0-9, a-z, A-Z
	// GitHub's alphabet puts upper case before lower case.
	sum = strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z':
			return r - 'a' + 'A'
		case 'A' <= r && r <= 'Z':
			return r - 'A' + 'a'
		}
		return r
	}, sum)
	return prefix + random + strings.Repeat("0", 6-len(sum)) + sum
}

// A token published as an example of GitHub's format, with a checksum
// that holds.
var publishedGitHubToken = "ghp_" + "zQWBuTSOoRi4A9spHcVY5ncnsDkxkJ" + "0mLq17"

func TestRulesFind(t *testing.T) {
	awsID := "AKIA" + rnd(1, base32Chars, 16)
	awsSecret := rnd(2, b64Chars, 40)
	fineGrained := "github_pat_" + rnd(3, alnumChars, 22) + "_" + rnd(4, alnumChars, 59)
	glpat := "glpat-" + rnd(5, b64URLChars, 20)
	slack := "xoxb-" + "263594206564-2343320234567-" + rnd(6, alnumChars, 24)
	anthropic := "sk-ant-api03-" + rnd(7, b64URLChars, 93) + "AA"
	openaiProj := "sk-proj-" + rnd(8, b64URLChars, 120)
	openaiLegacy := "sk-" + rnd(9, alnumChars, 48)
	google := "AIza" + rnd(10, b64URLChars, 35)
	stripe := "sk_live_" + rnd(12, alnumChars, 24)
	restricted := "rk_live_" + rnd(13, alnumChars, 24)
	token := jwt(`{"alg":"HS256","typ":"JWT"}`)
	pw := "Xk9#mQ2$vL7p" + rnd(14, alnumChars, 4)
	apiKey := rnd(15, alnumChars, 32)
	hexSecret := rnd(16, hexChars, 128)
	openssh := pemBlock("OPENSSH PRIVATE KEY", 17)
	rsa := pemBlock("RSA PRIVATE KEY", 18)
	basic := base64.StdEncoding.EncodeToString([]byte("deploy:" + rnd(19, alnumChars, 16)))

	tests := []struct {
		name, text string
		want       []string // rule:secret
	}{
		{"private key, OpenSSH", "key:\n\n" + openssh + "\n\nrest", []string{"private-key:" + openssh}},
		{"private key, RSA PEM in a code block", "```\n" + rsa + "\n```", []string{"private-key:" + rsa}},
		{"private key, PKCS#8", pemBlock("PRIVATE KEY", 20), []string{"private-key:" + pemBlock("PRIVATE KEY", 20)}},
		{"private key, PGP", pemBlock("PGP PRIVATE KEY BLOCK", 21), []string{"private-key:" + pemBlock("PGP PRIVATE KEY BLOCK", 21)}},
		{"private key, indented and quoted", "> " + strings.ReplaceAll(rsa, "\n", "\n> "), []string{"private-key:" + strings.ReplaceAll(rsa, "\n", "\n> ")}},
		{"private key, escaped in JSON", `{"key": "` + strings.ReplaceAll(rsa, "\n", `\n`) + `\n"}`, []string{"private-key:" + strings.ReplaceAll(rsa, "\n", `\n`)}},
		{"private key without its END line", "pasted:\n" + rsa[:strings.Index(rsa, "-----END")-1] + "\nthen it broke", []string{"private-key:" + rsa[:strings.Index(rsa, "-----END")-1]}},
		{"AWS access key id", "id " + awsID + ".", []string{"aws-access-key-id:" + awsID}},
		{"AWS temporary key id", "ASIA" + rnd(22, base32Chars, 16), []string{"aws-access-key-id:ASIA" + rnd(22, base32Chars, 16)}},
		{"AWS secret key in an env file", "AWS_SECRET_ACCESS_KEY=" + awsSecret + "\n", []string{"aws-secret-key:" + awsSecret}},
		{"AWS secret key in YAML", "aws_secret_access_key: \"" + awsSecret + "\"", []string{"aws-secret-key:" + awsSecret}},
		{"GitHub classic token", "token " + publishedGitHubToken + " leaked", []string{"github-pat:" + publishedGitHubToken}},
		{"GitHub token, bad checksum", "ghp_" + rnd(23, alnumChars, 36), []string{"github-pat:ghp_" + rnd(23, alnumChars, 36)}},
		{"GitHub fine-grained token", "`" + fineGrained + "`", []string{"github-pat:" + fineGrained}},
		{"GitHub OAuth token", ghChecksummed("gho_", 24), []string{"github-oauth:" + ghChecksummed("gho_", 24)}},
		{"GitHub App user token", ghChecksummed("ghu_", 25), []string{"github-app:" + ghChecksummed("ghu_", 25)}},
		{"GitHub App installation token", ghChecksummed("ghs_", 26), []string{"github-app:" + ghChecksummed("ghs_", 26)}},
		{"GitHub refresh token", ghChecksummed("ghr_", 27), []string{"github-refresh:" + ghChecksummed("ghr_", 27)}},
		{"GitLab token", "glpat: " + glpat, []string{"gitlab-token:" + glpat}},
		{"Slack bot token", slack, []string{"slack-token:" + slack}},
		{"Anthropic key", "ANTHROPIC_API_KEY=" + anthropic, []string{"anthropic-key:" + anthropic}},
		{"OpenAI project key", "key " + openaiProj + ", then", []string{"openai-key:" + openaiProj}},
		{"OpenAI legacy key", openaiLegacy, []string{"openai-key:" + openaiLegacy}},
		{"Google API key", "?key=" + google, []string{"google-api-key:" + google}},
		{"Stripe live key", stripe, []string{"stripe-key:" + stripe}},
		{"Stripe restricted key", restricted, []string{"stripe-key:" + restricted}},
		{"JWT", "Authorization: Bearer " + token, []string{"jwt:" + token}},
		{"URL with a password", "postgres://app:s3cr3t-" + rnd(28, alnumChars, 8) + "@db:5432/app", []string{"url-password:s3cr3t-" + rnd(28, alnumChars, 8)}},
		{"password in YAML", "db:\n  password: " + pw + "\n", []string{"password-assignment:" + pw}},
		{"password as a flag", "mysql --password=" + pw + " -h db", []string{"password-assignment:" + pw}},
		{"password in YAML after an anchor", "db_password: &pw " + pw + "\nbackup: *pw\n", []string{"password-assignment:" + pw}},
		{"password in YAML after a tag", "db_password: !!str " + pw + "\n", []string{"password-assignment:" + pw}},
		{"password in YAML after an anchor and a tag", "db_password: &pw !!str \"" + pw + "\"\n", []string{"password-assignment:" + pw}},
		{"token in a YAML block scalar", "api_token: >-\n\n  " + apiKey + "\nname: x\n", []string{"secret-assignment:" + apiKey}},
		{"token in a YAML literal block", "api_token: |2\r\n  " + apiKey + "\r\n", []string{"secret-assignment:" + apiKey}},
		{"password in YAML on the line after an anchor", "db:\n  password: &a\n    " + pw + "\n", []string{"password-assignment:" + pw}},
		{"token in a YAML block after a comment", "- api_token: | # rotated\n    " + apiKey + "\n", []string{"secret-assignment:" + apiKey}},
		{"password after a long anchor", "password: &" + token + " " + pw, []string{"jwt:" + token, "password-assignment:" + pw}},
		{"passwords in a YAML flow mapping", "db_password: {current: " + pw + ", old: \"" + apiKey + "\", rotated: 2026-03-01}", []string{"password-assignment:" + pw, "password-assignment:" + apiKey}},
		{"tokens in a YAML flow list", "api_tokens: [" + apiKey + ", '" + hexSecret + "']", []string{"secret-assignment:" + apiKey, "secret-assignment:" + hexSecret}},
		{"password in a nested YAML mapping", "db:\n  password:   # rotated\n    current: " + pw + "\n\n    hint: in the vault\nuser: ci\n", []string{"password-assignment:" + pw}},
		{"tokens in a YAML list", "api_tokens:\n- " + apiKey + "\n- &b !!str " + hexSecret + "\n", []string{"secret-assignment:" + apiKey, "secret-assignment:" + hexSecret}},
		{"password on the line after its name", "password:\n  " + pw + "\n", []string{"password-assignment:" + pw}},
		{"secrets nested two deep", "secrets:\n  prod:\n    - db: " + pw + "\n      api: {primary: " + apiKey + "}\n", []string{"secret-assignment:" + pw, "secret-assignment:" + apiKey}},
		{"a nested name that names a secret itself", "credentials:\n  aws_secret_access_key: " + awsSecret + "\n", []string{"aws-secret-key:" + awsSecret}},
		{"an env value starting with #", "DB_PASSWORD=#" + pw + "\nexport API_TOKEN=#" + apiKey, []string{"password-assignment:#" + pw, "secret-assignment:#" + apiKey}},
		{"a flow in a line of a block under another name", "secrets:\n  cmd: curl -d '{\"token\": [\"" + apiKey + "\"]}' https://x\n", []string{"secret-assignment:" + apiKey}},
		{"nested values after an authorization scheme", "token: {value: \"Bearer " + apiKey + "\"}\nauth:\n  value: Bearer " + hexSecret + "\n", []string{"secret-assignment:" + apiKey, "secret-assignment:" + hexSecret}},
		{"secret in nested JSON", `{"credentials": {"primary":"` + apiKey + `", "backup": ["` + hexSecret + `"]}}`, []string{"secret-assignment:" + apiKey, "secret-assignment:" + hexSecret}},
		{"API key in JSON", `{"apiKey": "` + apiKey + `"}`, []string{"secret-assignment:" + apiKey}},
		{"API key header", "X-Api-Key: " + apiKey, []string{"secret-assignment:" + apiKey}},
		{"basic auth header", "Authorization: Basic " + basic, []string{"secret-assignment:" + basic}},
		{"hex secret key in Go", "secretKey := \"" + hexSecret + "\"", []string{"secret-assignment:" + hexSecret}},
		{"token in bold Markdown", "**Token:** `" + apiKey + "`", []string{"secret-assignment:" + apiKey}},
		{"two on a line", "user=ci password=" + pw + "; api_token=" + apiKey, []string{"password-assignment:" + pw, "secret-assignment:" + apiKey}},
		{"vendor token wins over the assignment", "GITHUB_TOKEN=" + publishedGitHubToken, []string{"github-pat:" + publishedGitHubToken}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := spans(t, tc.text, Scan(tc.text))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Scan(%q)\n got %q\nwant %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestRulesPass(t *testing.T) {
	sha1 := rnd(30, hexChars, 40)
	sha256 := rnd(31, hexChars, 64)
	png := "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte(rnd(32, alnumChars+"\x00\x01\xff", 3000)))
	tests := []struct{ name, text string }{
		{"prose", "Decided to keep cookie-based auth for now; the token refresh flow and the API key rotation wait for Q3. Password resets go through support."},
		{"UUID", "request 123e4567-e89b-12d3-a456-426614174000 failed"},
		{"UUID under a key name", "api_key: 123e4567-e89b-12d3-a456-426614174000"},
		{"a YAML tag that names the value elsewhere", "MasterUserPassword: !Ref ProdDbPasswordV2Param\nDbPassword: !ImportValue Prod-RdsStack-DbPasswordArn2\nkey: !secret owm_key"},
		{"a block header whose next line is not indented deeper", "token: |\nv1.22.3-rc.4+build.77\n\ntoken: |\n\n3f9a2c1b7e4d5a6b deployed"},
		{"an exclamation in prose", "api-key: !important k9Xm2-vL7pZr"},
		{"git SHA-1", "fixed in " + sha1 + " (see commit " + sha1[:7] + ")"},
		{"git SHA-256", "commit: " + sha256},
		{"checksum", "sources:\n- 2026-03-09.md sha256:" + sha256[:12] + "\nsecret: sha256:" + sha256},
		{"base64 image", "![chart](" + png + ")"},
		{"URLs without credentials", "see https://example.com/docs?page=2#token and git@github.com:org/repo.git and https://user@host/x"},
		{"URL with a placeholder password", "postgres://app:${DB_PASSWORD}@db/app https://u:<password>@h/ https://u:password@h/ https://u:****@h/"},
		{"AWS documentation keys", "AKIA" + "IOSFODNN7EXAMPLE and aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"},
		{"AWS id glued to letters", "XAKIA" + rnd(33, base32Chars, 16) + " AKIA" + rnd(33, base32Chars, 16) + "abc"},
		{"GitHub placeholder", "ghp_" + strings.Repeat("x", 36) + " ghp_" + strings.Repeat("X", 36)},
		{"GitHub prefix in a word", "xghp_" + rnd(34, alnumChars, 36)},
		{"GitHub token too short", "ghp_" + rnd(35, alnumChars, 20)},
		{"GitLab placeholder", "glpat-your-token-goes-here glpat-xxxxxxxxxxxxxxxxxxxx"},
		{"Slack placeholder", "xoxb-your-bot-token-here-please"},
		{"sk- words", "sk-learn-compatible-estimators and task-" + rnd(36, alnumChars, 30) + " and sk-proj-your-key-here-from-the-dashboard"},
		{"Google prefix, wrong length", "AIza" + rnd(37, b64URLChars, 30)},
		{"Stripe test key", "sk_test_" + rnd(38, alnumChars, 24)},
		{"JWT without alg", jwt(`{"typ":"JWT"}`)},
		{"unsigned JWT", base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`)) + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"x"}`)) + "."},
		{"eyJ that is not JSON", "eyJ" + rnd(39, b64URLChars, 20) + "." + rnd(40, b64URLChars, 20) + "." + rnd(41, b64URLChars, 20)},
		{"private key named in prose", "The file starts with -----BEGIN RSA PRIVATE KEY----- and ends with -----END RSA PRIVATE KEY-----, never commit it."},
		{"private key header alone", "-----BEGIN OPENSSH PRIVATE KEY-----\nsee the vault\n"},
		{"public key and certificate", pemBlock("PUBLIC KEY", 42) + "\n" + pemBlock("CERTIFICATE", 43)},
		{"names about secrets", "api_key_env: OPENAI_API_KEY\ntoken_budget: 32000\nmax_tokens: 4096\npassword_file: /run/secrets/db\nsecret_name: prod-db-credentials\ntoken_url: https://auth.example.com/oauth2/token"},
		{"keys that are not secret", "cache_key: v1-deps-" + sha1 + "\nsort_key: created_at_desc_2024\npublic_key: " + rnd(44, b64Chars, 68)},
		{"placeholders", "password: ${DB_PASSWORD}\napi_key: <your api key>\ntoken: {{ secrets.TOKEN }}\nsecret: your_secret_here\napiKey: process.env.API_KEY\npassword: changeme"},
		{"identifiers", "auth_method: oauth2_client_credentials\nclientSecret: CLIENT_SECRET_VALUE\npassword: CorrectHorseBatteryStaple"},
		{"already redacted", "token: " + Marker("github-token") + "\npassword: '" + Marker("password") + "'\nx " + Marker("jwt")},
		{"short values", "password: hunter2\ntoken: abc123"},
		{"a name with a block indented no deeper", "api_token:\nbuild: " + rnd(45, alnumChars, 32) + "\n- secret:\n- " + rnd(46, alnumChars, 32)},
		{"a secret-like word ending a line of prose", "  - we rotated the api token:\n  - " + rnd(47, alnumChars, 32) + " is the build that did it"},
		{"nothing secret nested", "password:\n  hint: in the vault\n  rotated: 2026-03-01\n  - {kind: manual, by: ops-team-lead}\ntoken: {{ secrets.TOKEN }}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Scan(tc.text); len(got) > 0 {
				t.Errorf("Scan(%q) = %q, want nothing", tc.text, spans(t, tc.text, got))
			}
		})
	}
}

func TestGitHubChecksum(t *testing.T) {
	tests := []struct {
		name, token  string
		wantVerified bool
	}{
		{"published example", publishedGitHubToken, true},
		{"generated ghp_", ghChecksummed("ghp_", 50), true},
		{"generated ghs_", ghChecksummed("ghs_", 51), true},
		{"one character off", publishedGitHubToken[:39] + "8", false},
		{"random", "gho_" + rnd(52, alnumChars, 36), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := Scan(tc.token)
			if len(fs) != 1 {
				t.Fatalf("Scan(%q) found %d, want 1", tc.token, len(fs))
			}
			if fs[0].Verified != tc.wantVerified {
				t.Errorf("Verified = %v, want %v", fs[0].Verified, tc.wantVerified)
			}
		})
	}
}

func TestFindingPosition(t *testing.T) {
	id := "AKIA" + rnd(60, base32Chars, 16)
	rsa := pemBlock("RSA PRIVATE KEY", 61)
	text := "# 2026-03-14\n\n## Deploy\nkey: " + id + "\n\nαβγ " + rsa + "\n"
	fs := Scan(text)
	if len(fs) != 2 {
		t.Fatalf("found %d, want 2", len(fs))
	}
	lines := strings.Count(rsa, "\n")
	want := []string{
		fmt.Sprintf("4:6-4:%d", 6+len(id)),
		fmt.Sprintf("6:%d-%d:%d", 1+len("αβγ "), 6+lines, 1+len(rsa)-strings.LastIndex(rsa, "\n")-1),
	}
	for i, f := range fs {
		if got := fmt.Sprintf("%d:%d-%d:%d", f.Line, f.Col, f.EndLine, f.EndCol); got != want[i] {
			t.Errorf("finding %d (%s) at %s, want %s", i, f.Rule, got, want[i])
		}
	}
	if got := fs[0].String(); got != "line 4: looks like an AWS access key ID (aws-access-key-id)" {
		t.Errorf("String() = %q", got)
	}
}

func TestRedact(t *testing.T) {
	id := "AKIA" + rnd(70, base32Chars, 16)
	pw := "Zq8!" + rnd(71, alnumChars, 12)
	tests := []struct {
		name, text, want string
		found            int
	}{
		{"nothing", "plain text, no secrets", "plain text, no secrets", 0},
		{"one", "id " + id + "\n", "id [REDACTED:aws-access-key]\n", 1},
		{"several kinds", "password: " + pw + " and " + publishedGitHubToken,
			"password: [REDACTED:password] and [REDACTED:github-token]", 2},
		{"the same secret twice", id + " " + id, "[REDACTED:aws-access-key] [REDACTED:aws-access-key]", 2},
		{"private key block", "a\n" + pemBlock("EC PRIVATE KEY", 72) + "\nb", "a\n[REDACTED:private-key]\nb", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, fs := Redact(tc.text)
			if got != tc.want || len(fs) != tc.found {
				t.Errorf("Redact(%q) = %q, %d findings; want %q, %d", tc.text, got, len(fs), tc.want, tc.found)
			}
			if again, fs := Redact(got); again != got || len(fs) != 0 {
				t.Errorf("Redact is not idempotent: %q → %q (%d findings)", got, again, len(fs))
			}
		})
	}
}

// TestRedactLines: every line stays where it was, a private key block
// leaving its marker on its first line and its other lines empty, and
// the text after it at its own line number.
func TestRedactLines(t *testing.T) {
	id := "AKIA" + rnd(73, base32Chars, 16)
	block := pemBlock("EC PRIVATE KEY", 74)
	text := "a " + id + "\n" + block + "\nb\n"
	got, fs := RedactLines(text)
	if len(fs) != 2 {
		t.Fatalf("RedactLines found %d secrets, want 2", len(fs))
	}
	if n, m := strings.Count(got, "\n"), strings.Count(text, "\n"); n != m {
		t.Errorf("RedactLines gave %d lines for %d:\n%s", n, m, got)
	}
	lines := strings.Split(got, "\n")
	want := []string{"a [REDACTED:aws-access-key]", "[REDACTED:private-key]", ""}
	if !reflect.DeepEqual(lines[:3], want) {
		t.Errorf("first lines %q, want %q", lines[:3], want)
	}
	if last := lines[len(lines)-2]; last != "b" {
		t.Errorf("the line after the key is %q, want b", last)
	}
	if again, fs := RedactLines(got); again != got || len(fs) != 0 {
		t.Errorf("RedactLines left %d secrets", len(fs))
	}
	if plain, _ := RedactLines("no secret here\n"); plain != "no secret here\n" {
		t.Errorf("text without secrets changed: %q", plain)
	}
}

func TestRedactAdjacentSecrets(t *testing.T) {
	id := "AKIA" + rnd(80, base32Chars, 16)
	block := pemBlock("RSA PRIVATE KEY", 81)
	tests := []struct{ name, text string }{
		{"key block glued to a key id", block + id},
		{"key id glued to a key block", id + block},
		{"tokens joined by punctuation", id + "," + publishedGitHubToken + ";" + id},
		{"secret in a URL in an assignment", "DATABASE_URL=postgres://app:Zq8-" + rnd(82, alnumChars, 10) + "@db/app"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, fs := Redact(tc.text)
			if len(fs) == 0 {
				t.Fatalf("Redact(%q) found nothing", tc.text)
			}
			if left := Scan(got); len(left) > 0 {
				t.Errorf("Redact left %q in %q", spans(t, got, left), got)
			}
			for _, secret := range []string{id, publishedGitHubToken} {
				if strings.Contains(tc.text, secret) && strings.Contains(got, secret) {
					t.Errorf("Redact left %s in %q", secret, got)
				}
			}
		})
	}
}
