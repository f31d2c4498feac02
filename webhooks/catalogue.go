package webhooks

import "switchboard/events"

// EventTest is the event of a test delivery (POST /api/webhooks/{id}/test);
// subscriptions cannot subscribe to it.
const EventTest = "webhook:test"

// Event describes an event a subscription may subscribe to.
type Event struct {
	Value       string
	Label       string
	Description string
}

// catalogue is the spec's list of subscribable events, in its order.
var catalogue = []Event{
	{Value: events.HookMessageIncoming, Label: "Message received", Description: "A message is received from a contact"},
	{Value: events.HookMessageSent, Label: "Message sent", Description: "An agent sends a message"},
	{Value: events.HookContactCreated, Label: "Contact created", Description: "A contact is created"},
	{Value: events.HookTransferCreated, Label: "Transfer created", Description: "A transfer to a human agent is requested"},
	{Value: events.HookTransferAssigned, Label: "Transfer assigned", Description: "A transfer is assigned to an agent"},
	{Value: events.HookTransferResumed, Label: "Transfer resumed", Description: "The chatbot is resumed and the transfer closed"},
	{Value: events.HookTemplateStatus, Label: "Template status", Description: "A template is submitted, or the platform changes its review status, quality rating or category"},
	{Value: events.HookCampaignStatus, Label: "Campaign status", Description: "A campaign is scheduled, starts, pauses, completes, fails or is cancelled"},
	{Value: events.HookCampaignProgress, Label: "Campaign progress", Description: "A campaign's sent, delivered, read and failed counters moved"},
}

// Events returns the subscribable events with their labels and
// descriptions.
func Events() []Event {
	return append([]Event(nil), catalogue...)
}

// IsEvent reports whether name is a subscribable event.
func IsEvent(name string) bool {
	for _, e := range catalogue {
		if e.Value == name {
			return true
		}
	}
	return false
}
