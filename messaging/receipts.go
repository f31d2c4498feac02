package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/provider"
	"switchboard/worker"
)

// TaskMarkRead sends the platform a read receipt for an incoming message
// of an account that asks for automatic receipts. (The name is kept from
// when the inbound package queued them: tasks already queued still run.)
const TaskMarkRead = "inbound:mark_read"

type markReadTask struct {
	OrgID         uuid.UUID `json:"organization_id"`
	AccountID     uuid.UUID `json:"account_id"`
	ChatMessageID string    `json:"chat_message_id"`
}

// queueReadReceipt queues the receipt; it is best effort (the customer
// sees "read" later, or when an agent answers), so a failure is logged.
func (s *Service) queueReadReceipt(ctx context.Context, task markReadTask) {
	if s.Provider == nil {
		return
	}
	payload, _ := json.Marshal(task)
	_, err := s.Queue.Enqueue(ctx, asynq.NewTask(TaskMarkRead, payload), asynq.Queue(worker.QueueDefault), asynq.MaxRetry(5))
	if err != nil {
		s.log().Warn("queueing a read receipt", "err", err)
	}
}

// sendReadReceipt is the TaskMarkRead handler.
func (s *Service) sendReadReceipt(ctx context.Context, t *asynq.Task) error {
	var task markReadTask
	if err := json.Unmarshal(t.Payload(), &task); err != nil {
		return fmt.Errorf("messaging: bad read receipt task: %w: %w", err, asynq.SkipRetry)
	}
	octx := viewer.SystemContext(ctx, task.OrgID)
	acc, err := s.Client.Account.Get(octx, task.AccountID)
	if ent.IsNotFound(err) {
		return nil // the account was removed meanwhile
	}
	if err != nil {
		return err
	}
	token, err := s.Secrets.Open(acc.AccessTokenEncrypted)
	if err != nil {
		return fmt.Errorf("messaging: opening access token: %w: %w", err, asynq.SkipRetry)
	}
	err = s.Provider.MarkRead(ctx, provider.Account{
		PhoneID: acc.PhoneID, BusinessID: acc.BusinessID, AccessToken: string(token), APIVersion: acc.APIVersion,
	}, task.ChatMessageID)
	if err != nil && !provider.IsRetryable(err) {
		var pe *provider.Error
		if errors.As(err, &pe) {
			s.log().Warn("read receipt refused by the platform", "err", err)
			return nil
		}
	}
	return err
}
