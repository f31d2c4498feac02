package usersettings_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent/rule"
	"switchboard/internal/testkit"
	"switchboard/usersettings"
)

func ptr[T any](v T) *T { return &v }

var defaults = usersettings.Settings{EmailNotifications: true, NewMessageAlerts: true, CampaignUpdates: true,
	NotificationSound: usersettings.DefaultSound}

func TestOf(t *testing.T) {
	tests := []struct {
		name   string
		stored map[string]any
		want   usersettings.Settings
	}{
		{"NothingStored", nil, defaults},
		{"Chosen", map[string]any{"email_notifications": false, "campaign_updates": false, "notification_sound": "chime-2"},
			usersettings.Settings{NewMessageAlerts: true, NotificationSound: "chime-2"}},
		{"WrongTypesAreUnset", map[string]any{"new_message_alerts": "no", "notification_sound": 3}, defaults},
		{"BadSoundIsUnset", map[string]any{"notification_sound": "../../etc/passwd"}, defaults},
		{"UnknownNamesIgnored", map[string]any{"theme": "dark"}, defaults},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := usersettings.Of(tt.stored); got != tt.want {
				t.Errorf("Of = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestChangesFromJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want usersettings.Changes
		msg  string
	}{
		{"OneFlag", `{"new_message_alerts": false}`, usersettings.Changes{NewMessageAlerts: ptr(false)}, ""},
		{"All", `{"email_notifications": true, "new_message_alerts": true, "campaign_updates": false, "notification_sound": "bell"}`,
			usersettings.Changes{EmailNotifications: ptr(true), NewMessageAlerts: ptr(true), CampaignUpdates: ptr(false),
				NotificationSound: ptr("bell")}, ""},
		{"ErrEmpty", `{}`, usersettings.Changes{}, "give at least one of email_notifications, new_message_alerts, campaign_updates, notification_sound"},
		{"ErrUnknown", `{"theme": "dark"}`, usersettings.Changes{}, `unknown setting "theme"`},
		{"ErrFlagType", `{"campaign_updates": "yes"}`, usersettings.Changes{}, "campaign_updates must be a boolean"},
		{"ErrSoundType", `{"notification_sound": 1}`, usersettings.Changes{}, "notification_sound must be a string"},
		{"ErrSoundName", `{"notification_sound": "Bell Loud"}`, usersettings.Changes{}, "notification_sound must be 1 to 64 lowercase letters"},
		{"ErrSoundEmpty", `{"notification_sound": ""}`, usersettings.Changes{}, "notification_sound must be 1 to 64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal([]byte(tt.in), &m); err != nil {
				t.Fatal(err)
			}
			got, err := usersettings.ChangesFromJSON(m)
			if tt.msg != "" {
				testkit.ExpectError(t, err, apperr.Invalid, tt.msg)
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ChangesFromJSON = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		c    usersettings.Changes
		msg  string
	}{
		{"OK", usersettings.Changes{CampaignUpdates: ptr(false)}, ""},
		{"OKLongestSound", usersettings.Changes{NotificationSound: ptr("a" + strings.Repeat("_-9", 21))}, ""},
		{"ErrNothing", usersettings.Changes{}, "give at least one of"},
		{"ErrSoundTooLong", usersettings.Changes{NotificationSound: ptr("a" + strings.Repeat("_-9", 21) + "z")}, "1 to 64"},
		{"ErrSoundLeadingDash", usersettings.Changes{NotificationSound: ptr("-bell")}, "1 to 64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			if tt.msg == "" {
				testkit.ExpectError(t, err, "", "")
				return
			}
			testkit.ExpectError(t, err, apperr.Invalid, tt.msg)
		})
	}
}

// TestApplyRoundTrip: what Apply stores in a user row on PostgreSQL reads
// back through Of as the settings chosen; Apply keeps known names only
// and does not change what it was given.
func TestApplyRoundTrip(t *testing.T) {
	db := testkit.OpenDB(t).Client
	ctx := rule.Bypass(context.Background(), "test: a user's own settings")
	u, err := db.User.Create().SetEmail(uuid.NewString()[:8] + "@example.com").
		SetSettings(map[string]any{"theme": "dark", "campaign_updates": false}).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		c    usersettings.Changes
		want usersettings.Settings
	}{
		{"Sound", usersettings.Changes{NotificationSound: ptr("chime")},
			usersettings.Settings{EmailNotifications: true, NewMessageAlerts: true, NotificationSound: "chime"}},
		{"Flags", usersettings.Changes{EmailNotifications: ptr(false), CampaignUpdates: ptr(true)},
			usersettings.Settings{NewMessageAlerts: true, CampaignUpdates: true, NotificationSound: "chime"}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			before := map[string]any{}
			for k, v := range u.Settings {
				before[k] = v
			}
			next := usersettings.Apply(u.Settings, s.c)
			if !reflect.DeepEqual(u.Settings, before) {
				t.Errorf("Apply changed what it was given: %v", u.Settings)
			}
			if _, ok := next["theme"]; ok {
				t.Errorf("Apply kept an unknown name: %v", next)
			}
			if u, err = db.User.UpdateOne(u).SetSettings(next).Save(ctx); err != nil {
				t.Fatal(err)
			}
			stored, err := db.User.Get(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got := usersettings.Of(stored.Settings); got != s.want {
				t.Errorf("read back %+v, want %+v", got, s.want)
			}
		})
	}
}
