package rest

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"switchboard/apikeys"
	"switchboard/auth"
	"switchboard/calling"
	"switchboard/campaigns"
	"switchboard/canned"
	"switchboard/catalogs"
	"switchboard/chatbot"
	"switchboard/contacts"
	"switchboard/customactions"
	"switchboard/ent/customaction"
	"switchboard/ent/team"
	"switchboard/ent/teammember"
	"switchboard/flows"
	"switchboard/notes"
	"switchboard/people"
	"switchboard/provider"
	"switchboard/roles"
	"switchboard/settings"
	"switchboard/tags"
	"switchboard/teams"
	"switchboard/templates"
	"switchboard/transfers"
	"switchboard/webhooks"
	"switchboard/widgets"
)

// bodyField is the struct field at path (field names, dotted; a slice
// steps into its elements) of typ.
func bodyField(t *testing.T, typ any, path string) reflect.StructField {
	t.Helper()
	rt := reflect.TypeOf(typ)
	var f reflect.StructField
	for _, name := range strings.Split(path, ".") {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice {
			rt = rt.Elem()
		}
		var ok bool
		if f, ok = rt.FieldByName(name); !ok {
			t.Fatalf("%T has no field %s", typ, path)
		}
		rt = f.Type
	}
	return f
}

// TestBodyTagsMatchTheDomain: the bounds a request body declares in the
// OpenAPI document are the bounds its operation checks, the domain's
// constants (issue 32, point 1; TestRequestSchemasAgreeWithValidation
// checks that the server refuses what they exclude and accepts them).
func TestBodyTagsMatchTheDomain(t *testing.T) {
	n := strconv.Itoa
	for _, tc := range []struct {
		typ       any
		field     string
		tag, want string
	}{
		{createAPIKeyBody{}, "Name", "maxLength", n(apikeys.MaxNameLength)},
		{registerBody{}, "Password", "minLength", n(auth.MinPasswordChars)},
		{changePasswordBody{}, "NewPassword", "minLength", n(auth.MinPasswordChars)},
		{createUserBody{}, "Password", "minLength", n(auth.MinPasswordChars)},
		{updateUserBody{}, "Password", "minLength", n(auth.MinPasswordChars)},
		{updateUserBody{}, "FullName", "maxLength", n(people.MaxFullNameLength)},
		{updateBusinessProfileBody{}, "Websites", "maxItems", n(provider.MaxProfileWebsites)},
		{createIVRFlowBody{}, "Name", "maxLength", n(calling.MaxFlowNameLength)},
		{updateIVRFlowBody{}, "Name", "maxLength", n(calling.MaxFlowNameLength)},
		{createIVRFlowBody{}, "Description", "maxLength", n(calling.MaxFlowDescriptionLength)},
		{updateIVRFlowBody{}, "Description", "maxLength", n(calling.MaxFlowDescriptionLength)},
		{createIVRFlowBody{}, "WelcomeAudioURL", "maxLength", n(calling.MaxWelcomeAudioLength)},
		{updateIVRFlowBody{}, "WelcomeAudioURL", "maxLength", n(calling.MaxWelcomeAudioLength)},
		{createCampaignBody{}, "Name", "maxLength", n(campaigns.MaxNameLength)},
		{updateCampaignBody{}, "Name", "maxLength", n(campaigns.MaxNameLength)},
		{createCampaignBody{}, "ChatAccount", "maxLength", n(campaigns.MaxNameLength)},
		{updateCampaignBody{}, "ChatAccount", "maxLength", n(campaigns.MaxNameLength)},
		{importBody{}, "Recipients", "maxItems", n(campaigns.MaxImport)},
		{createCannedBody{}, "Name", "maxLength", n(canned.MaxName)},
		{updateCannedBody{}, "Name", "maxLength", n(canned.MaxName)},
		{createCannedBody{}, "Content", "maxLength", n(canned.MaxContent)},
		{updateCannedBody{}, "Content", "maxLength", n(canned.MaxContent)},
		{createCannedBody{}, "Shortcut", "maxLength", n(canned.MaxShortcut)},
		{updateCannedBody{}, "Shortcut", "maxLength", n(canned.MaxShortcut)},
		{createCannedBody{}, "Category", "maxLength", n(canned.MaxCategory)},
		{updateCannedBody{}, "Category", "maxLength", n(canned.MaxCategory)},
		{createCannedBody{}, "Buttons", "maxItems", n(canned.MaxButtons)},
		{updateCannedBody{}, "Buttons", "maxItems", n(canned.MaxButtons)},
		{cannedButtonBody{}, "ID", "maxLength", n(canned.MaxButtonID)},
		{cannedButtonBody{}, "Title", "maxLength", n(canned.MaxButtonTitle)},
		{createCatalogBody{}, "Name", "maxLength", n(catalogs.MaxNameLength)},
		{createCatalogBody{}, "ChatAccount", "maxLength", n(catalogs.MaxNameLength)},
		{syncCatalogsBody{}, "ChatAccount", "maxLength", n(catalogs.MaxNameLength)},
		{createProductBody{}, "Name", "maxLength", n(catalogs.MaxNameLength)},
		{updateProductBody{}, "Name", "maxLength", n(catalogs.MaxNameLength)},
		{createProductBody{}, "Description", "maxLength", n(catalogs.MaxDescriptionLength)},
		{updateProductBody{}, "Description", "maxLength", n(catalogs.MaxDescriptionLength)},
		{createProductBody{}, "URL", "maxLength", n(catalogs.MaxURLLength)},
		{updateProductBody{}, "ImageURL", "maxLength", n(catalogs.MaxURLLength)},
		{createProductBody{}, "RetailerID", "maxLength", n(catalogs.MaxRetailerIDLength)},
		{updateProductBody{}, "RetailerID", "maxLength", n(catalogs.MaxRetailerIDLength)},
		{sendProductListBody{}, "Sections", "maxItems", n(provider.MaxProductSections)},
		{createKeywordRuleBody{}, "Name", "maxLength", n(chatbot.MaxNameLength)},
		{createKeywordRuleBody{}, "Keywords", "maxItems", n(chatbot.MaxKeywords)},
		{updateKeywordRuleBody{}, "Keywords", "maxItems", n(chatbot.MaxKeywords)},
		{createKeywordRuleBody{}, "Priority", "maximum", n(chatbot.MaxPriority)},
		{createKeywordRuleBody{}, "Priority", "minimum", n(-chatbot.MaxPriority)},
		{updateKeywordRuleBody{}, "Priority", "maximum", n(chatbot.MaxPriority)},
		{createAIContextBody{}, "Name", "maxLength", n(chatbot.MaxNameLength)},
		{updateAIContextBody{}, "Name", "maxLength", n(chatbot.MaxNameLength)},
		{createAIContextBody{}, "StaticContent", "maxLength", n(chatbot.MaxContextContent)},
		{updateAIContextBody{}, "StaticContent", "maxLength", n(chatbot.MaxContextContent)},
		{createAIContextBody{}, "TriggerKeywords", "maxItems", n(chatbot.MaxKeywords)},
		{updateAIContextBody{}, "Priority", "minimum", n(-chatbot.MaxPriority)},
		{createChatbotFlowBody{}, "Name", "maxLength", n(chatbot.MaxNameLength)},
		{updateChatbotFlowBody{}, "Name", "maxLength", n(chatbot.MaxNameLength)},
		{createChatbotFlowBody{}, "Description", "maxLength", n(chatbot.MaxDescription)},
		{updateChatbotFlowBody{}, "Description", "maxLength", n(chatbot.MaxDescription)},
		{createChatbotFlowBody{}, "TriggerKeywords", "maxItems", n(chatbot.MaxKeywords)},
		{createChatbotFlowBody{}, "ChatAccount", "maxLength", n(chatbot.MaxNameLength)},
		{chatbotSettingsBody{}, "GreetingMessage", "maxLength", n(chatbot.MaxMessageLength)},
		{chatbotSettingsBody{}, "ClientAutoCloseMessage", "maxLength", n(chatbot.MaxMessageLength)},
		{chatbotSettingsBody{}, "AIModel", "maxLength", n(chatbot.MaxModelLength)},
		{chatbotSettingsBody{}, "AISystemPrompt", "maxLength", n(chatbot.MaxSystemPrompt)},
		{chatbotSettingsBody{}, "GreetingButtons", "maxItems", n(chatbot.MaxButtons)},
		{chatbotSettingsBody{}, "FallbackButtons", "maxItems", n(chatbot.MaxButtons)},
		{chatbotSettingsBody{}, "SLAEscalationNotifyIDs", "maxItems", n(chatbot.MaxEscalationNotify)},
		{chatbotSettingsBody{}, "SessionTimeoutMinutes", "maximum", n(chatbot.MaxMinutes)},
		{chatbotSettingsBody{}, "SLAResponseMinutes", "maximum", n(chatbot.MaxMinutes)},
		{chatbotSettingsBody{}, "ClientAutoCloseMinutes", "maximum", n(chatbot.MaxMinutes)},
		{chatbotSettingsBody{}, "SLAAutoCloseHours", "maximum", n(chatbot.MaxHours)},
		{chatbotSettingsBody{}, "AIMaxTokens", "maximum", n(chatbot.MaxAITokens)},
		{createContactBody{}, "ProfileName", "maxLength", n(contacts.MaxFieldLength)},
		{createContactBody{}, "ChatAccount", "maxLength", n(contacts.MaxFieldLength)},
		{updateContactBody{}, "ProfileName", "maxLength", n(contacts.MaxFieldLength)},
		{updateContactBody{}, "ChatAccount", "maxLength", n(contacts.MaxFieldLength)},
		{createCustomActionBody{}, "Name", "maxLength", n(customactions.MaxNameLength)},
		{updateCustomActionBody{}, "Name", "maxLength", n(customactions.MaxNameLength)},
		{createCustomActionBody{}, "DisplayOrder", "maximum", n(customactions.MaxDisplayOrder)},
		{updateCustomActionBody{}, "DisplayOrder", "minimum", n(-customactions.MaxDisplayOrder)},
		{noteBody{}, "Content", "maxLength", n(notes.MaxContentLength)},
		{createRoleBody{}, "Name", "maxLength", n(roles.MaxNameLength)},
		{updateRoleBody{}, "Name", "maxLength", n(roles.MaxNameLength)},
		{createRoleBody{}, "Description", "maxLength", n(roles.MaxDescriptionLength)},
		{updateRoleBody{}, "Description", "maxLength", n(roles.MaxDescriptionLength)},
		{updateOrgSettingsBody{}, "Name", "maxLength", n(settings.MaxOrgName)},
		{updateOrgSettingsBody{}, "DateFormat", "maxLength", n(settings.MaxDateFormat)},
		{updateOrgSettingsBody{}, "MaxCallDuration", "maximum", n(settings.MaxCallDurationSecs)},
		{updateOrgSettingsBody{}, "TransferTimeoutSecs", "maximum", n(settings.MaxTransferTimeoutSecs)},
		{createWebhookBody{}, "Name", "maxLength", n(webhooks.MaxNameLength)},
		{updateWebhookBody{}, "Name", "maxLength", n(webhooks.MaxNameLength)},
		{createWebhookBody{}, "Headers", "maxProperties", n(webhooks.MaxHeaders)},
		{updateWebhookBody{}, "Headers", "maxProperties", n(webhooks.MaxHeaders)},
		{createTagBody{}, "Name", "maxLength", n(tags.MaxNameLength)},
		{updateTagBody{}, "Name", "maxLength", n(tags.MaxNameLength)},
		{createTeamBody{}, "PerAgentTimeoutSecs", "maximum", n(teams.MaxTimeoutSecs)},
		{updateTeamBody{}, "PerAgentTimeoutSecs", "maximum", n(teams.MaxTimeoutSecs)},
		{templateDraftBody{}, "Name", "maxLength", n(templates.MaxNameLength)},
		{templateDraftBody{}, "Language", "maxLength", n(templates.MaxLanguageLength)},
		{templateDraftBody{}, "DisplayName", "maxLength", n(templates.MaxDisplayName)},
		{templateDraftBody{}, "BodyContent", "maxLength", n(templates.MaxBodyText)},
		{templateDraftBody{}, "FooterContent", "maxLength", n(templates.MaxFooterText)},
		{templateDraftBody{}, "HeaderContent", "maxLength", n(templates.MaxHeaderHandle)},
		{templateDraftBody{}, "Buttons", "maxItems", n(templates.MaxButtons)},
		{templateDraftBody{}, "CodeExpirationMinutes", "minimum", n(templates.MinCodeExpiration)},
		{templateDraftBody{}, "CodeExpirationMinutes", "maximum", n(templates.MaxCodeExpiration)},
		{transferBody{}, "Notes", "maxLength", n(transfers.MaxNotesLength)},
		{transferBody{}, "ChatAccount", "maxLength", n(transfers.MaxChatAccountLength)},
		{transferBody{}, "Source", "maxLength", n(transfers.MaxSourceLength)},
	} {
		f := bodyField(t, tc.typ, tc.field)
		if got := f.Tag.Get(tc.tag); got != tc.want {
			t.Errorf("%T.%s: %s %q, the domain's is %s", tc.typ, tc.field, tc.tag, got, tc.want)
		}
	}
}

// TestBodyEnumsMatchTheDomain: the values a request body's enum lists
// are the domain's (an empty string, where listed, means "the default"
// or "none").
func TestBodyEnumsMatchTheDomain(t *testing.T) {
	strs := func(vs ...any) []string {
		var out []string
		for _, v := range vs {
			out = append(out, reflect.ValueOf(v).String())
		}
		return out
	}
	for _, tc := range []struct {
		typ   any
		field string
		want  []string
	}{
		{createKeywordRuleBody{}, "MatchType", chatbot.MatchTypes},
		{updateKeywordRuleBody{}, "MatchType", chatbot.MatchTypes},
		{createKeywordRuleBody{}, "ResponseType", chatbot.ResponseTypes},
		{updateKeywordRuleBody{}, "ResponseType", chatbot.ResponseTypes},
		{createAIContextBody{}, "ContextType", []string{chatbot.ContextStatic, chatbot.ContextAPI}},
		{chatbotSettingsBody{}, "AIProvider", chatbot.AIProviders},
		{createTagBody{}, "Color", tags.Colors},
		{updateTagBody{}, "Color", tags.Colors},
		{createFormFlowBody{}, "Category", flows.Categories},
		{updateFormFlowBody{}, "Category", flows.Categories},
		{createWidgetBody{}, "DisplayType", widgets.Displays},
		{updateWidgetBody{}, "Color", widgets.Colors},
		{createWidgetBody{}, "Size", widgets.Sizes},
		{createTeamBody{}, "AssignmentStrategy", strs(team.AssignmentStrategyRoundRobin, team.AssignmentStrategyLoadBalanced, team.AssignmentStrategyManual)},
		{addTeamMemberBody{}, "Role", strs(teammember.RoleManager, teammember.RoleAgent)},
		{createCustomActionBody{}, "ActionType", strs(customaction.ActionTypeWebhook, customaction.ActionTypeURL, customaction.ActionTypeJavascript)},
		{createCustomActionBody{}, "Icon", strs(customaction.IconTicket, customaction.IconUser, customaction.IconBarChart, customaction.IconLink,
			customaction.IconPhone, customaction.IconMail, customaction.IconFileText, customaction.IconExternalLink, customaction.IconZap,
			customaction.IconGlobe, customaction.IconCode)},
	} {
		tag := bodyField(t, tc.typ, tc.field).Tag.Get("enum")
		var got []string
		if err := json.Unmarshal([]byte(tag), &got); err != nil {
			got = strings.Split(tag, ",")
		}
		got = slices.DeleteFunc(got, func(s string) bool { return s == "" })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%T.%s: enum %q, the domain's is %q", tc.typ, tc.field, got, tc.want)
		}
	}
}
