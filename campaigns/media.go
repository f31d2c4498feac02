package campaigns

import (
	"context"
	"io"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/campaign"
	"switchboard/ent/viewer"
	"switchboard/messaging"
	"switchboard/provider"
)

// MediaResult is the answer of a campaign media upload. LocalPath is the
// file's place under DATA_DIR.
type MediaResult struct {
	MediaID   string `json:"media_id"`
	Filename  string `json:"filename"`
	MimeType  string `json:"mime_type"`
	LocalPath string `json:"local_path"`
	Message   string `json:"message"`
}

// UploadMedia keeps the header file of a draft campaign whose template
// has a media header: checked against the spec's limits for the header's
// kind (by its content), stored under DATA_DIR/media, and uploaded to the
// platform, whose media id the campaign's sends use. Errors: invalid (not
// a draft, a template without a media header, the file's type or size, a
// platform refusal), unavailable (the platform failed), not_found.
func (s *Service) UploadMedia(ctx context.Context, id uuid.UUID, u messaging.Upload) (*MediaResult, error) {
	db := s.db(ctx)
	c, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if c.Status != campaign.StatusDraft {
		return nil, apperr.Invalidf("media can only be uploaded for a draft campaign (this one is %s)", c.Status)
	}
	t := c.Edges.Template
	if t == nil {
		return nil, apperr.Invalidf("the campaign has no template")
	}
	kind := messaging.HeaderKind(t)
	if kind == "" {
		return nil, apperr.Invalidf("template %q has no media header (its header is %s)", t.Name, t.HeaderType)
	}
	mimeType, err := messaging.CheckMedia(kind, "file", u)
	if err != nil {
		return nil, err
	}
	v := viewer.FromContext(ctx)
	if !v.HasOrg() || s.Media == nil {
		return nil, apperr.New(apperr.Internal, "the media store is not available")
	}
	a, err := db.Account.Query().Where(account.Name(c.ChatAccount)).Only(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "account")
	}
	if len(a.AccessTokenEncrypted) == 0 {
		return nil, apperr.Invalidf("account %q has no access token", a.Name)
	}
	token, err := s.Secrets.Open(a.AccessTokenEncrypted)
	if err != nil {
		return nil, apperr.Invalidf("the access token of account %q cannot be decrypted", a.Name)
	}
	if _, err := u.Content.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	key, _, err := s.Media.Save(v.OrgID, u.Content, mimeType)
	if err != nil {
		return nil, err
	}
	name := messaging.UploadName(u.Filename, kind, mimeType)
	f, err := s.Media.Open(v.OrgID, key)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	acc := provider.Account{PhoneID: a.PhoneID, BusinessID: a.BusinessID, AccessToken: string(token), APIVersion: a.APIVersion}
	mediaID, err := s.Provider.UploadMedia(ctx, acc, name, mimeType, f)
	if err != nil {
		return nil, provider.AppError(err)
	}
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		c, err := s.lockCampaign(ctx, db, id)
		if err != nil {
			return err
		}
		if c.Status != campaign.StatusDraft {
			return apperr.Invalidf("the campaign left draft during the upload (it is %s)", c.Status)
		}
		return apperr.Wrap(db.Campaign.UpdateOne(c).SetHeaderMediaID(mediaID).SetHeaderMediaPath(key).
			SetHeaderMediaFilename(name).SetHeaderMediaMimeType(mimeType).Exec(ctx), "campaign")
	})
	if err != nil {
		return nil, err
	}
	return &MediaResult{MediaID: mediaID, Filename: name, MimeType: mimeType, LocalPath: "media/" + key,
		Message: "Media uploaded"}, nil
}
