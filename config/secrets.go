package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Files in DATA_DIR that keep generated secrets across restarts.
const (
	JWTSecretFile     = "jwt_secret"
	EncryptionKeyFile = "encryption_key"
)

// EnsureSecrets gives JWTSecret and EncryptionKey a value when none was
// configured: the one kept in DATA_DIR from an earlier start, or else 32
// random bytes, hex-encoded, written there (mode 0600, DATA_DIR created 0700).
// Processes starting at the same time agree on one value. Configured values
// are left alone and never written to disk.
func (c *Config) EnsureSecrets() error {
	for _, s := range []struct {
		value *string
		file  string
	}{
		{&c.JWTSecret, JWTSecretFile},
		{&c.EncryptionKey, EncryptionKeyFile},
	} {
		if *s.value != "" {
			continue
		}
		v, err := loadOrCreateSecret(c.DataDir, s.file)
		if err != nil {
			return fmt.Errorf("config: %w", err)
		}
		*s.value = v
	}
	return nil
}

func loadOrCreateSecret(dir, name string) (string, error) {
	path := filepath.Join(dir, name)
	if v, err := readSecret(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return v, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create DATA_DIR: %w", err)
	}

	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate %s: %w", name, err)
	}
	secret := hex.EncodeToString(b)

	// Write a temporary file and link it into place: the secret appears
	// complete or not at all, and if another process won the race, its value
	// is the one kept.
	tmp, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.WriteString(secret + "\n"); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readSecret(path)
		}
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return secret, nil
}

func readSecret(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		return "", fmt.Errorf("%s is empty; delete it to generate a new secret, or set the variable", path)
	}
	return v, nil
}
