// Package usersettings owns a user's own preferences: which notifications
// they want and the sound that announces a message. It defines their names,
// defaults and bounds; the user row stores only what the user chose.
package usersettings

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"switchboard/apperr"
)

// The preference names, as stored and as REST clients send them.
const (
	EmailNotifications = "email_notifications"
	NewMessageAlerts   = "new_message_alerts"
	CampaignUpdates    = "campaign_updates"
	NotificationSound  = "notification_sound"
)

// DefaultSound is the notification sound of a user who chose none.
const DefaultSound = "default"

// soundName bounds a sound's name: it names a sound the client ships.
var soundName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// Settings are a user's effective preferences: what they chose, defaults
// for the rest.
type Settings struct {
	EmailNotifications bool   `json:"email_notifications"`
	NewMessageAlerts   bool   `json:"new_message_alerts"`
	CampaignUpdates    bool   `json:"campaign_updates"`
	NotificationSound  string `json:"notification_sound"`
}

// Changes are the preferences a user sets; nil fields keep their value.
type Changes struct {
	EmailNotifications *bool
	NewMessageAlerts   *bool
	CampaignUpdates    *bool
	NotificationSound  *string
}

// Of returns the effective settings of stored preferences (nil stores
// nothing); a stored value of the wrong type counts as unset.
func Of(stored map[string]any) Settings {
	s := Settings{EmailNotifications: true, NewMessageAlerts: true, CampaignUpdates: true, NotificationSound: DefaultSound}
	flag := func(name string, dst *bool) {
		if b, ok := stored[name].(bool); ok {
			*dst = b
		}
	}
	flag(EmailNotifications, &s.EmailNotifications)
	flag(NewMessageAlerts, &s.NewMessageAlerts)
	flag(CampaignUpdates, &s.CampaignUpdates)
	if v, ok := stored[NotificationSound].(string); ok && soundName.MatchString(v) {
		s.NotificationSound = v
	}
	return s
}

// ChangesFromJSON reads changes from a decoded JSON object. Errors:
// invalid (an unknown name, a value of the wrong type, no change at all,
// a bad sound name).
func ChangesFromJSON(m map[string]any) (Changes, error) {
	var c Changes
	if len(m) == 0 {
		return c, apperr.Invalidf("give at least one of %s", strings.Join(names(), ", "))
	}
	flag := func(name string, v any) (*bool, error) {
		b, ok := v.(bool)
		if !ok {
			return nil, apperr.Invalidf("%s must be a boolean", name)
		}
		return &b, nil
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		var err error
		switch k {
		case EmailNotifications:
			c.EmailNotifications, err = flag(k, v)
		case NewMessageAlerts:
			c.NewMessageAlerts, err = flag(k, v)
		case CampaignUpdates:
			c.CampaignUpdates, err = flag(k, v)
		case NotificationSound:
			s, ok := v.(string)
			if !ok {
				return c, apperr.Invalidf("%s must be a string", k)
			}
			c.NotificationSound = &s
		default:
			return c, apperr.Invalidf("unknown setting %q (known: %s)", k, strings.Join(names(), ", "))
		}
		if err != nil {
			return c, err
		}
	}
	return c, c.Validate()
}

// Validate checks the values of c. Errors: invalid (no change, a bad
// sound name).
func (c Changes) Validate() error {
	if c.EmailNotifications == nil && c.NewMessageAlerts == nil && c.CampaignUpdates == nil && c.NotificationSound == nil {
		return apperr.Invalidf("give at least one of %s", strings.Join(names(), ", "))
	}
	if c.NotificationSound != nil && !soundName.MatchString(*c.NotificationSound) {
		return apperr.Invalidf("%s must be 1 to 64 lowercase letters, digits, '-' or '_'", NotificationSound)
	}
	return nil
}

// Apply returns the stored preferences with c applied; stored is not
// changed. Only known names are kept, so what is stored stays bounded.
func Apply(stored map[string]any, c Changes) map[string]any {
	out := map[string]any{}
	for _, k := range names() {
		if v, ok := stored[k]; ok {
			out[k] = v
		}
	}
	set := func(name string, v any) { out[name] = v }
	if c.EmailNotifications != nil {
		set(EmailNotifications, *c.EmailNotifications)
	}
	if c.NewMessageAlerts != nil {
		set(NewMessageAlerts, *c.NewMessageAlerts)
	}
	if c.CampaignUpdates != nil {
		set(CampaignUpdates, *c.CampaignUpdates)
	}
	if c.NotificationSound != nil {
		set(NotificationSound, *c.NotificationSound)
	}
	return out
}

func names() []string {
	return []string{EmailNotifications, NewMessageAlerts, CampaignUpdates, NotificationSound}
}
