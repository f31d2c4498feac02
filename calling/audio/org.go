package audio

import (
	"context"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/viewer"
)

// Kinds of organization audio (POST /api/org/audio?type=...).
const (
	HoldMusic = "hold_music"
	Ringback  = "ringback"
)

// Service is the audio operations of the viewer's organization.
type Service struct {
	Client *ent.Client
	Store  *Store
}

// UploadOrgAudio converts data and makes it the organization's hold music
// or ringback (kind), replacing the file it had, which is removed. It
// runs outside a transaction: the conversion takes a while and the row
// changes in one statement once the file is in place. Errors: invalid
// (kind, file), not_found (no organization), unavailable (no ffmpeg).
func (s *Service) UploadOrgAudio(ctx context.Context, kind string, data []byte) (File, error) {
	if kind != HoldMusic && kind != Ringback {
		return File{}, apperr.Invalidf("type must be %s or %s", HoldMusic, Ringback)
	}
	v := viewer.FromContext(ctx)
	if !v.HasOrg() {
		return File{}, apperr.NotFoundf("organization not found")
	}
	org, err := s.Client.Organization.Get(ctx, v.OrgID)
	if err != nil {
		return File{}, apperr.Wrap(err, "organization")
	}
	f, err := s.Store.Save(ctx, v.OrgID, data, OrgFormats)
	if err != nil {
		return File{}, err
	}
	u := s.Client.Organization.UpdateOneID(v.OrgID)
	old := org.HoldMusicFile
	if kind == HoldMusic {
		u.SetHoldMusicFile(f.Name)
	} else {
		old = org.RingbackFile
		u.SetRingbackFile(f.Name)
	}
	if _, err := u.Save(ctx); err != nil {
		_ = s.Store.Remove(v.OrgID, f.Name)
		return File{}, apperr.Wrap(err, "organization")
	}
	if old != "" && old != f.Name {
		_ = s.Store.Remove(v.OrgID, old)
	}
	return f, nil
}

// UploadIVRAudio converts data into a prompt file IVR flows can name.
// Errors: invalid, not_found, unavailable.
func (s *Service) UploadIVRAudio(ctx context.Context, data []byte) (File, error) {
	v := viewer.FromContext(ctx)
	if !v.HasOrg() {
		return File{}, apperr.NotFoundf("organization not found")
	}
	return s.Store.Save(ctx, v.OrgID, data, IVRFormats)
}
