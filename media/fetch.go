package media

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/message"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/provider"
	"switchboard/secrets"
	"switchboard/worker"
)

// TaskFetch is the asynq task type that copies an incoming message's media
// from the platform into the Store.
const TaskFetch = "media:fetch"

// Fetch limits.
const (
	// DefaultMaxBytes caps one download: the platform's largest media
	// (documents) is 100 MB.
	DefaultMaxBytes = 100 << 20
	// RecoverWindow is how far back Recover looks for media still to fetch;
	// the platform keeps received media for about 30 days, but a message
	// that old without its media is not worth a retry storm at every start.
	RecoverWindow = 7 * 24 * time.Hour
	// fetchRetries bounds the attempts of one task (asynq's exponential
	// backoff spreads them over about half a day).
	fetchRetries = 12
)

// mediaTypes are the message types whose content names a platform media id.
var mediaTypes = []string{"image", "video", "audio", "document", "sticker"}

// Fetcher downloads the media of incoming messages from the platform and
// stores them locally, so that a message's media_url keeps working after
// the platform's link expires. It publishes no event when a message gets
// its media_url: the events package has no message-update event type
// (message:status is about delivery states), so clients see the URL when
// they next load the message.
type Fetcher struct {
	Client   *ent.Client
	Provider *provider.Client
	Secrets  *secrets.Box
	Store    *Store
	// Tasks enqueues fetch tasks (the method Queue is the entry point).
	Tasks *worker.Client
	Log   *slog.Logger
	// MaxBytes caps one download; zero means DefaultMaxBytes.
	MaxBytes int64
	// Now is the clock of Recover; nil means time.Now.
	Now func() time.Time
}

type fetchTask struct {
	OrgID     uuid.UUID `json:"organization_id"`
	MessageID uuid.UUID `json:"message_id"`
}

// Queue schedules the fetch of message messageID of org. Call it after the
// message is committed. Queueing a message already queued is a no-op.
func (f *Fetcher) Queue(ctx context.Context, org, messageID uuid.UUID) error {
	payload, err := json.Marshal(fetchTask{OrgID: org, MessageID: messageID})
	if err != nil {
		return err
	}
	_, err = f.Tasks.Enqueue(ctx, asynq.NewTask(TaskFetch, payload),
		asynq.TaskID("media:"+messageID.String()), asynq.Queue(worker.QueueDefault), asynq.MaxRetry(fetchRetries))
	if errors.Is(err, asynq.ErrTaskIDConflict) || errors.Is(err, asynq.ErrDuplicateTask) {
		return nil
	}
	return err
}

// Register installs the fetch handler on w.
func (f *Fetcher) Register(w *worker.Worker) {
	w.HandleFunc(TaskFetch, func(ctx context.Context, t *asynq.Task) error {
		var task fetchTask
		if err := json.Unmarshal(t.Payload(), &task); err != nil {
			return fmt.Errorf("media: bad fetch task: %w: %w", err, asynq.SkipRetry)
		}
		return f.Fetch(ctx, task.OrgID, task.MessageID)
	})
}

// Recover queues every incoming media message of the last RecoverWindow
// that has no media_url yet, in every organization, so that fetches lost
// with Redis (or never queued because of a crash) happen. The server runs
// it at start. It returns how many it queued.
func (f *Fetcher) Recover(ctx context.Context) (int, error) {
	since := f.now().Add(-RecoverWindow)
	msgs, err := f.Client.Message.Query().
		Where(message.DirectionEQ(message.DirectionIncoming), message.MessageTypeIn(mediaTypes...),
			message.MediaURL(""), message.CreatedAtGTE(since)).
		Select(message.FieldID, message.FieldOrganizationID, message.FieldContent).
		All(rule.Bypass(ctx, "media recovery sweep over every organization"))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range msgs {
		if mediaID(m) == "" {
			continue
		}
		if err := f.Queue(ctx, m.OrganizationID, m.ID); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Fetch copies the media of message messageID of org from the platform
// into the store and sets the message's media_url (and its MIME type and
// file name when they are empty). It does nothing for a message that is
// gone, not an incoming media message, or already has its media_url.
// Errors wrapping asynq.SkipRetry are permanent (the platform refused, the
// file is too large, the account's token is unreadable); others may pass.
func (f *Fetcher) Fetch(ctx context.Context, org, messageID uuid.UUID) error {
	octx := viewer.SystemContext(ctx, org)
	m, err := f.Client.Message.Get(octx, messageID)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	id := mediaID(m)
	if m.MediaURL != "" || m.Direction != message.DirectionIncoming || !isMediaType(m.MessageType) || id == "" {
		return nil
	}
	acc, err := f.account(octx, m.ChatAccount)
	if err != nil || acc == nil {
		return err
	}
	info, err := f.Provider.MediaInfo(ctx, *acc, id)
	if err != nil {
		return f.providerError("media info", m, err)
	}
	if limit := f.maxBytes(); info.FileSize > limit {
		return fmt.Errorf("media: message %s: %d bytes exceed the %d byte limit: %w", m.ID, info.FileSize, limit, asynq.SkipRetry)
	}
	mimeType := firstNonEmpty(m.MediaMimeType, info.MimeType, "application/octet-stream")
	key, err := f.download(ctx, org, acc, info.URL, mimeType)
	if err != nil {
		return f.providerError("download", m, err)
	}
	return f.attach(octx, m, key, mimeType)
}

// account returns the provider credentials of the organization's account
// named name, or nil when it no longer exists (nothing can be fetched).
func (f *Fetcher) account(ctx context.Context, name string) (*provider.Account, error) {
	acc, err := f.Client.Account.Query().Where(account.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		f.Log.Warn("media of a message whose account is gone not fetched", "account", name)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	token, err := f.Secrets.Open(acc.AccessTokenEncrypted)
	if err != nil {
		return nil, fmt.Errorf("media: opening the access token of account %s: %w: %w", acc.ID, err, asynq.SkipRetry)
	}
	return &provider.Account{
		PhoneID: acc.PhoneID, BusinessID: acc.BusinessID, AccessToken: string(token), APIVersion: acc.APIVersion,
	}, nil
}

// download streams the file at mediaURL into the store and returns its key.
func (f *Fetcher) download(ctx context.Context, org uuid.UUID, acc *provider.Account, mediaURL, mimeType string) (string, error) {
	pr, pw := io.Pipe()
	go func() {
		_, err := f.Provider.DownloadMedia(ctx, *acc, mediaURL, pw, f.maxBytes())
		pw.CloseWithError(err)
	}()
	key, _, err := f.Store.Save(org, pr, mimeType)
	_ = pr.CloseWithError(errors.New("media: store stopped reading"))
	return key, err
}

// attach sets the message's media fields, unless another run did first;
// then the file just saved is not needed.
func (f *Fetcher) attach(ctx context.Context, m *ent.Message, key, mimeType string) error {
	upd := f.Client.Message.Update().Where(message.ID(m.ID), message.MediaURL("")).SetMediaURL(URL(key))
	if m.MediaMimeType == "" {
		upd.SetMediaMimeType(mimeType)
	}
	if m.MediaFilename == "" {
		upd.SetMediaFilename(path.Base(key))
	}
	n, err := upd.Save(ctx)
	if err != nil || n == 0 {
		f.Store.remove(m.OrganizationID, key)
	}
	return err
}

// providerError classifies a failed platform call: worth retrying, or
// permanent (a refused or expired media id, a file over the limit).
func (f *Fetcher) providerError(step string, m *ent.Message, err error) error {
	err = fmt.Errorf("media: %s of message %s: %w", step, m.ID, err)
	if provider.IsRetryable(err) {
		return err
	}
	var pe *provider.Error
	if errors.As(err, &pe) || errors.Is(err, provider.ErrMediaTooLarge) || errors.Is(err, provider.ErrInvalid) ||
		errors.Is(err, provider.ErrUnexpectedResponse) {
		f.Log.Warn("media not fetched", "message_id", m.ID, "err", err)
		return fmt.Errorf("%w: %w", err, asynq.SkipRetry)
	}
	return err
}

func (f *Fetcher) maxBytes() int64 {
	if f.MaxBytes > 0 {
		return f.MaxBytes
	}
	return DefaultMaxBytes
}

func (f *Fetcher) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// mediaID is the platform media id inbound stored in the content.
func mediaID(m *ent.Message) string {
	id, _ := m.Content["id"].(string)
	return strings.TrimSpace(id)
}

func isMediaType(t string) bool {
	for _, mt := range mediaTypes {
		if t == mt {
			return true
		}
	}
	return false
}

// remove deletes the file of key, if it is org's; a failure only leaves an
// unreferenced file.
func (s *Store) remove(org uuid.UUID, key string) {
	owner, name, ok := strings.Cut(key, "/")
	if ok && owner == org.String() && validName(name) {
		_ = os.Remove(filepath.Join(s.Dir, owner, name))
	}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
