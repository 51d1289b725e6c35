package checkpoint

import "path"

// Checkpoints of a user's own repository live in its refs/nexus/...,
// which `git push --mirror` would publish. So an untracked file whose
// name says it holds secrets is never captured there (and so never
// restored or removed by a rollback): .env files, private keys and
// certificates, credential files. A tracked one is in the user's own
// commits already and is captured as usual. A workspace with a shadow
// repository (under the state dir, never pushed) keeps them too.
var secretNames = []string{
	".env", ".env.*", "*.env",
	"*.pem", "*.key", "*.p12", "*.pfx", "*.keystore", "*.jks",
	"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_*.pub",
	".netrc", ".npmrc", ".pypirc", ".git-credentials", ".htpasswd",
	"credentials", "credentials.json", "*.credentials", "secrets.json", "secrets.yaml", "secrets.yml",
}

// secretFile reports whether an untracked path's name says it holds
// secrets (secretNames).
func secretFile(p string) bool {
	base := path.Base(p)
	for _, pat := range secretNames {
		if ok, _ := path.Match(pat, base); ok {
			return true
		}
	}
	return false
}
